"""Request bodies of the audit endpoints (scan, check_bulk, ai/stack), shared by the HTTP and MCP doors: each package named by ecosystem + name (+ version) or by Package URL, validated as the ecosystem allows."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import (
    MAX_FILENAME_CHARS,
    MAX_LOCKFILE_KIND_CHARS,
    MAX_NAME_CHARS,
    MAX_SCAN_PACKAGES,
    MAX_VERSION_CHARS,
)
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import MAX_PURL_CHARS, parse_purl
from pkgintel.domain.suppressions import MAX_ENTRIES as MAX_IGNORE_ENTRIES
from pkgintel.domain.suppressions import Suppression
from pkgintel.domain.versions import validate_version
from pkgintel.lockfiles.includes import MAX_FILES as MAX_INCLUDE_FILES
from pkgintel.services.audit.bulk import MAX_ITEMS


class ScanFile(BaseModel):
    """One more file of the project, named as the including file refers to it."""

    model_config = ConfigDict(extra="forbid")
    filename: str = Field(min_length=1, max_length=MAX_FILENAME_CHARS)
    content: str


class IgnoreEntry(BaseModel):
    """A suppression (`domain/suppressions.py`): the advisory `id` (or an alias), the `reason`
    (required) and an optional `until` date after which it no longer applies."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    id: str = Field(min_length=1, max_length=200, description="advisory id or alias")
    reason: str = Field(min_length=1, max_length=2000, description="why it is accepted")
    until: date | None = Field(None, description="last day it applies (YYYY-MM-DD)")

    def suppression(self) -> Suppression:
        return Suppression(self.id, self.reason, self.until, "request")


class ScanBody(BaseModel):
    """The specification's scan body (plus `filename`, a hint for detecting the lockfile kind)."""

    model_config = ConfigDict(extra="forbid")
    ecosystem: Ecosystem | None = None
    packages: dict[Annotated[str, Field(min_length=1, max_length=MAX_PURL_CHARS)], str] | None = (
        Field(
            None,
            max_length=MAX_SCAN_PACKAGES,
            description="Name → version or range; a name may be a Package URL "
            '(`{"pkg:npm/lodash@4.17.15": ""}`), whose version is the entry\'s and whose type '
            "is the ecosystem when `ecosystem` is omitted.",
        )
    )
    lockfile: str | None = None
    lockfile_kind: str | None = Field(None, max_length=MAX_LOCKFILE_KIND_CHARS)
    filename: str | None = Field(None, max_length=MAX_FILENAME_CHARS)
    format: Literal["native", "cyclonedx", "spdx"] = "native"
    include_transitive: bool = True
    files: list[ScanFile] | None = Field(None, max_length=MAX_INCLUDE_FILES)
    """Other requirements files of the project, so `-r`/`-c` in `lockfile` resolve (docs/api.md)."""
    ignore: list[IgnoreEntry] | None = Field(None, max_length=MAX_IGNORE_ENTRIES)
    """Suppressions: findings they name are marked `suppressed` and left out of the counts."""


class NamedItem(BaseModel):
    """One package of a body, named by `ecosystem` + `package` (+ `version`) or by `purl` (whose
    version, when it has one, is the item's `version`). The name must be one the ecosystem allows
    and the version one its scheme can parse, else a 422 naming the item's field
    (`body.items.3.version`, `body.items.3.purl`)."""

    ecosystem: Ecosystem | None = Field(
        None, description="Ecosystem identifier or alias; required unless `purl` is given."
    )
    package: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="Required unless `purl` is given.",
    )
    version: str | None = Field(None, min_length=1, max_length=MAX_VERSION_CHARS)
    purl: str | None = Field(
        None,
        min_length=5,
        max_length=MAX_PURL_CHARS,
        description="The package as a Package URL (`pkg:npm/lodash@4.17.15`), instead of "
        "`ecosystem` and `package`.",
        examples=["pkg:npm/lodash@4.17.15"],
    )

    @model_validator(mode="before")
    @classmethod
    def _from_purl(cls, data: Any) -> Any:
        """Fill `ecosystem`, `package` and `version` from a readable `purl` (an unreadable one is
        reported by the `purl` field's own check)."""
        if not isinstance(data, dict) or not isinstance(data.get("purl"), str):
            return data
        try:
            ref = parse_purl(data["purl"])
        except InvalidInput:
            return data
        if data.get("ecosystem") is not None or data.get("package") is not None:
            raise ValueError("give either `purl` or `ecosystem` and `package`, not both")
        given = data.get("version")
        if ref.version is not None and given is not None and given != ref.version:
            raise ValueError(
                f"version {given!r} differs from the package URL's version {ref.version!r}; give one"
            )
        return {
            **data,
            "ecosystem": ref.ecosystem.value,
            "package": ref.name,
            "version": given if given is not None else ref.version,
        }

    @field_validator("purl")
    @classmethod
    def _valid_purl(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parse_purl(value)
            except InvalidInput as exc:
                raise ValueError(exc.message) from None
        return value

    @field_validator("package")
    @classmethod
    def _valid_name(cls, value: str | None, info: ValidationInfo) -> str | None:
        ecosystem = info.data.get("ecosystem")
        try:
            return validate_name(ecosystem, value) if ecosystem and value is not None else value
        except InvalidInput as exc:
            raise ValueError(exc.message) from None

    @field_validator("version")
    @classmethod
    def _valid_version(cls, value: str | None, info: ValidationInfo) -> str | None:
        ecosystem = info.data.get("ecosystem")
        if value is None or ecosystem is None:
            return value
        try:
            return validate_version(ecosystem, value)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None

    @model_validator(mode="after")
    def _named(self) -> NamedItem:
        if self.ecosystem is None or self.package is None:
            raise ValueError("name the package with `ecosystem` and `package`, or with `purl`")
        return self

    def target(self) -> tuple[Ecosystem, str, str | None]:
        """(ecosystem, name, version) of a validated item."""
        assert self.ecosystem is not None and self.package is not None  # `_named`
        return self.ecosystem, validate_name(self.ecosystem, self.package), self.version


class BulkItem(NamedItem):
    pass


class BulkBody(BaseModel):
    items: list[BulkItem] = Field(min_length=1, max_length=MAX_ITEMS)


class StackItem(NamedItem):
    pass


class StackBody(BaseModel):
    """A proposed dependency stack: the packages an agent intends to install, versions optional."""

    packages: list[StackItem] = Field(min_length=1, max_length=200)
