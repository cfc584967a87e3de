"""Project audits: `POST /api/scan`, `POST /api/check_bulk`, `POST /api/ai/stack` (database only)."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from starlette.concurrency import run_in_threadpool

from pkgintel import __version__
from pkgintel.api.deps import RuntimeDep
from pkgintel.api.errors import problem, validation_error
from pkgintel.api.gc_pause import collector_paused
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.freshness import Freshness, iso
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import MAX_PURL_CHARS, parse_purl
from pkgintel.domain.suppressions import MAX_ENTRIES as MAX_IGNORE_ENTRIES
from pkgintel.domain.suppressions import Suppression
from pkgintel.domain.versions import validate_version
from pkgintel.lockfiles import ParsedLockfile, is_empty, parse_lockfile
from pkgintel.lockfiles.includes import MAX_FILES as MAX_INCLUDE_FILES
from pkgintel.lockfiles.includes import expand_requirements
from pkgintel.runtime.container import Runtime
from pkgintel.services.audit.bulk import MAX_ITEMS
from pkgintel.services.audit.scan import packages_from_mapping, purl_keys_resolved, to_sbom
from pkgintel.transport.guard import fan_out

router = APIRouter(prefix="/api", tags=["audit"])

OFF_LOOP_BYTES = 64 * 1024
"""Bodies at least this large are decoded, validated and parsed, and SBOMs always built, in a
worker thread: pure CPU work of up to hundreds of milliseconds that would otherwise stall every
other request. Matching runs on the loop in slices (`audit.scan.CHUNK`), and large answers
are encoded in a thread too."""


LARGE_ANSWER_PACKAGES = 1000
"""Answers about more packages than this are JSON-encoded in a worker thread."""


def _read_body(raw: bytes) -> ScanBody:
    """The scan body from raw bytes: UnicodeDecodeError when not UTF-8, else pydantic's errors."""
    raw.decode("utf-8")
    return ScanBody.model_validate_json(raw)


def _parse(body: ScanBody) -> ParsedLockfile:
    with collector_paused():
        parsed = parse_lockfile(
            body.lockfile or "", kind=body.lockfile_kind, filename=body.filename
        )
        if (
            body.files
            and parsed.kind == "requirements.txt"
            and not is_empty(parsed.kind, body.lockfile or "")
        ):
            files = {f.filename: f.content for f in body.files}
            return expand_requirements(
                body.lockfile or "", body.filename or "requirements.txt", files
            )
        return parsed


class ScanFile(BaseModel):
    """One more file of the project, named as the including file refers to it."""

    model_config = ConfigDict(extra="forbid")
    filename: str = Field(min_length=1, max_length=256)
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
            max_length=5000,
            description="Name → version or range; a name may be a Package URL "
            '(`{"pkg:npm/lodash@4.17.15": ""}`), whose version is the entry\'s and whose type '
            "is the ecosystem when `ecosystem` is omitted.",
        )
    )
    lockfile: str | None = None
    lockfile_kind: str | None = Field(None, max_length=64)
    filename: str | None = Field(None, max_length=256)
    format: Literal["native", "cyclonedx", "spdx"] = "native"
    include_transitive: bool = True
    files: list[ScanFile] | None = Field(None, max_length=MAX_INCLUDE_FILES)
    """Other requirements files of the project, so `-r`/`-c` in `lockfile` resolve (docs/api.md)."""
    ignore: list[IgnoreEntry] | None = Field(None, max_length=MAX_IGNORE_ENTRIES)
    """Suppressions: findings they name are marked `suppressed` and left out of the counts."""


class _NamedItem(BaseModel):
    """One package of a body, named by `ecosystem` + `package` (+ `version`) or by `purl` (whose
    version, when it has one, is the item's `version`). The name must be one the ecosystem allows
    and the version one its scheme can parse, else a 422 naming the item's field
    (`body.items.3.version`, `body.items.3.purl`)."""

    ecosystem: Ecosystem | None = Field(
        None, description="Ecosystem identifier or alias; required unless `purl` is given."
    )
    package: str | None = Field(
        None, min_length=1, max_length=214, description="Required unless `purl` is given."
    )
    version: str | None = Field(None, min_length=1, max_length=128)
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
    def _named(self) -> _NamedItem:
        if self.ecosystem is None or self.package is None:
            raise ValueError("name the package with `ecosystem` and `package`, or with `purl`")
        return self

    def target(self) -> tuple[Ecosystem, str, str | None]:
        """(ecosystem, name, version) of a validated item."""
        assert self.ecosystem is not None and self.package is not None  # `_named`
        return self.ecosystem, validate_name(self.ecosystem, self.package), self.version


class BulkItem(_NamedItem):
    pass


class BulkBody(BaseModel):
    items: list[BulkItem] = Field(min_length=1, max_length=MAX_ITEMS)


class StackItem(_NamedItem):
    pass


class StackBody(BaseModel):
    """A proposed dependency stack: the packages an agent intends to install, versions optional."""

    packages: list[StackItem] = Field(min_length=1, max_length=200)


async def _read_limited(request: Request, limit: int) -> bytes | None:
    """The body, or None when it is larger than `limit` bytes (checked before and while reading)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/scan",
    summary="Audit a project (lockfile or package map)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ScanBody.model_json_schema()}},
        }
    },
    responses={
        413: {"description": "Body larger than PKGINTEL_MAX_LOCKFILE_BYTES"},
        422: {"description": "Invalid body or unparseable lockfile (names the line)"},
    },
)
async def scan(request: Request, runtime: RuntimeDep) -> Response:
    """Per package: advisories affecting that exact version, malicious flag, deprecation, licence, nearest safe version; a summary; or CycloneDX 1.6 / SPDX 2.3 JSON."""
    started = time.perf_counter()
    raw = await _read_limited(request, runtime.max_lockfile_bytes)
    if raw is None:
        return problem(
            413,
            "Body too large",
            f"the scan body is limited to {runtime.max_lockfile_bytes:,} bytes",
            kind="body-too-large",
            limit=runtime.max_lockfile_bytes,
        )
    large = len(raw) >= OFF_LOOP_BYTES
    try:
        body = await run_in_threadpool(_read_body, raw) if large else _read_body(raw)
    except UnicodeDecodeError as exc:
        return validation_error(
            "body",
            f"the body is not UTF-8 text (byte {exc.start} cannot be decoded); send JSON in UTF-8",
            None,
            where="body",
        )
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from exc
    try:
        payload = await scan_answer(runtime, body, started=started, large=large)
    except SbomError as exc:
        return problem(500, "SBOM could not be built", str(exc), kind="sbom-invalid")
    packages = payload.get("packages")
    if isinstance(packages, list) and len(packages) > LARGE_ANSWER_PACKAGES:
        # Encoding tens of thousands of entries takes long enough to stall other requests.
        encoded = await run_in_threadpool(orjson.dumps, payload)
        return Response(encoded, media_type="application/json", headers={"Cache-Control": NO_STORE})
    return plain_json(payload)


class SbomError(ValueError):
    """The SBOM document could not be built (a library refused what we gave it)."""


async def scan_answer(
    runtime: Runtime,
    body: ScanBody,
    *,
    started: float | None = None,
    large: bool | None = None,
) -> dict[str, Any]:
    """
    The `/api/scan` answer (shared with the MCP tool `scan_project`): the native audit, or the SBOM
    document itself for `format` cyclonedx/spdx. Raises `SbomError` when the SBOM cannot be built.
    `large` (default: the lockfile is at least `OFF_LOOP_BYTES`) moves parsing off the event loop and
    pauses the collector during the audit.
    """
    started = time.perf_counter() if started is None else started
    if large is None:
        large = len(body.lockfile or "") >= OFF_LOOP_BYTES
    if body.lockfile is not None:
        if large:
            parsed = await run_in_threadpool(_parse, body)
        else:
            parsed = _parse(body)
        if body.ecosystem is not None and body.ecosystem is not parsed.ecosystem:
            raise InvalidInput(
                "ecosystem",
                f"the {parsed.kind} holds {parsed.ecosystem.value} packages, not {body.ecosystem.value}",
            )
    elif body.packages is not None:
        ecosystem, packages = purl_keys_resolved(body.ecosystem, body.packages)
        if ecosystem is None:
            raise InvalidInput(
                "ecosystem", "ecosystem is required with packages (unless they are package URLs)"
            )
        for name in packages:
            validate_name(ecosystem, name)
        parsed = packages_from_mapping(ecosystem, packages)
    else:
        raise InvalidInput("lockfile", "send either lockfile or packages")
    ignore = [entry.suppression() for entry in body.ignore or ()]
    if large:
        # The audit of a big lockfile allocates in proportion to it; collections it would set
        # off mid-way walk the whole heap on the event loop (see `gc_pause`).
        with collector_paused():
            result = await runtime.audit.audit(parsed, ignore)
    else:
        result = await runtime.audit.audit(parsed, ignore)
    if body.format != "native":
        created = datetime.now(UTC).replace(microsecond=0)
        try:
            document: dict[str, Any] = await run_in_threadpool(
                to_sbom,
                parsed,
                result,
                body.format,
                name=parsed.kind,
                created=created,
                tool_version=__version__,
            )
        except ValueError as exc:
            raise SbomError(str(exc)) from exc
        return document
    return {
        "kind": parsed.kind,
        "ecosystem": parsed.ecosystem.value,
        "summary": result.summary,
        "packages": list(result.packages),
        "warnings": list(result.warnings),
        "include_transitive": body.include_transitive,
        "_meta": {
            "endpoint": "/api/scan",
            "database_only": True,
            "note": "nothing a lockfile names is fetched or executed",
            **_not_looked_up(),
        },
        "_response_ms": round((time.perf_counter() - started) * 1000),
    }


def _data_fields(data: Freshness | None) -> dict[str, Any]:
    """`vulnerability_data` (null when no package was judged on advisories), its `_as_of` date
    and `_sources` (the stale feeds), as the scan's summary has them."""
    return {
        "vulnerability_data": data.status if data else None,
        "vulnerability_data_as_of": iso(data.as_of) if data else None,
        "vulnerability_data_sources": data.sources_wire() if data else [],
    }


def _not_looked_up() -> dict[str, Any]:
    """`not_looked_up`: packages this request could not ask upstream about (fan-out bound)."""
    budget = fan_out.get()
    if budget is None or not budget.skipped:
        return {}
    return {
        "not_looked_up": list(budget.skipped),
        "not_looked_up_reason": f"on-demand upstream lookups are limited to {budget.limit} per request",
    }


@router.post("/check_bulk", summary="Check up to 100 packages from the database")
async def check_bulk(body: BulkBody, runtime: RuntimeDep) -> Response:
    """One status per item — stdlib, malicious, typosquat_suspect, historical_incident, exists or unknown — from the database only; `unknown` means fall back to /api/check."""
    return plain_json(await check_bulk_answer(runtime, body), cache_control=NO_STORE)


async def check_bulk_answer(runtime: Runtime, body: BulkBody) -> dict[str, Any]:
    """The `/api/check_bulk` answer (shared with the MCP tool `check_bulk`); database only."""
    started = time.perf_counter()
    items = [i.target() for i in body.items]
    results = await runtime.bulk.check(items)
    data = await runtime.bulk.malicious_data([eco for eco, _, _ in items])
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return {
        "count": len(results),
        "results": results,
        "summary": counts,
        "malicious_data": data.status,
        "malicious_data_as_of": iso(data.as_of),
        "malicious_data_sources": data.sources_wire(),
        "_meta": {"endpoint": "/api/check_bulk", "database_only": True},
        "_response_ms": round((time.perf_counter() - started) * 1000),
    }


@router.post("/ai/stack", summary="Audit a proposed dependency stack")
async def ai_stack(body: StackBody, runtime: RuntimeDep) -> Response:
    """Per package a verdict (a package without a version is judged at its latest release; no advisory data is `unknown`, never `ok`); action items ordered by severity: replace, upgrade to a published release that clears the advisories, review, remove (stdlib), remove duplicate, pin, verify."""
    started = time.perf_counter()
    items = [i.target() for i in body.packages]
    audit = await runtime.stack.audit(items)
    return plain_json(
        {
            "packages": list(audit.packages),
            "action_items": list(audit.action_items),
            "compatibility": audit.compatibility,
            "summary": {
                "packages": len(audit.packages),
                "action_items": len(audit.action_items),
                **_data_fields(audit.vulnerability_data),
            },
            "_meta": {
                "endpoint": "/api/ai/stack",
                "database_only": not audit.compatibility,
                "note": "verdicts from the database; compatibility from registry metadata (cached)",
            },
            "_response_ms": round((time.perf_counter() - started) * 1000),
        },
        cache_control=NO_STORE,
    )
