"""
Wire models of the advisory and audit answers (`/api/vulns`, `/api/pin_safe`, `/api/malicious`,
`/api/check_bulk`, `/api/scan`) and of the brief as the MCP tool returns it. Like `packages.py`, the
routes build plain dicts; these models document them for `/openapi.json` and give the MCP tools their
output schemas. Open (`extra="allow"`): a new field is not a breaking change.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.packages import MetaOut, SourceOut, purl_field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class SourcesMetaOut(_Open):
    endpoint: str
    sources: list[SourceOut]


class VulnsOut(_Open):
    """`/api/vulns/{ecosystem}/{package}`: advisories affecting the latest version."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    version: str | None = Field(description="the latest release judged (null: none known)")
    version_source: str = Field(description="registry, name_index or none")
    status: str = Field(
        description="complete, stale (old data: see data_as_of), partial or unavailable (counts are then not known)"
    )
    count: int
    critical: int
    high: int
    medium: int
    low: int
    unrated: int
    details: list[dict[str, Any]]
    reason: str | None = None
    kev_count: int | None
    max_epss: float | None
    fixed_version: str | None = Field(description="the published upgrade target, or null")
    upgrade: dict[str, Any] | None
    meta: MetaOut = Field(alias="_meta")
    cache: str | None = Field(alias="_cache")
    response_ms: int = Field(alias="_response_ms")


class PinSafeOut(_Open):
    """`/api/pin_safe/{ecosystem}/{package}`: the highest version below a severity."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    safe_version: str | None
    latest_version: str | None
    is_latest: bool
    status: str = Field(
        description="complete, stale (a pin is still given: see warning), partial or unavailable"
    )
    reason: str | None
    min_severity: str
    constraint: str | None
    include_prerelease: bool
    limit_checked: int
    checked: int
    candidates: int
    skipped: dict[str, int]
    rejected: list[dict[str, Any]]
    data_as_of: str | None = Field(
        None, description="with stale data: the date of the oldest stale feed's data"
    )
    data_sources: list[dict[str, Any]] = Field(
        default_factory=list, description="the stale feeds the versions were checked against"
    )
    warning: str | None = Field(
        None, description="with stale data: that the pin was computed on data as of data_as_of"
    )
    meta: SourcesMetaOut = Field(alias="_meta")
    response_ms: int = Field(alias="_response_ms")


class MaliciousOut(_Open):
    """`/api/malicious/{ecosystem}/{package}`: malicious-package reports."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    version: str | None
    judged_version: str | None
    is_malicious: bool | None = Field(description="null: no malicious-package data loaded")
    verdict: str
    verdict_reason: str | None
    status: str
    reason: str | None
    advisory_id: str | None
    advisories: list[dict[str, Any]]
    all_versions: bool
    reported_versions: list[str]
    historical_compromise: dict[str, Any] | None
    latest_version: str | None
    downloads_weekly: int | None
    likely_false_positive: bool
    action: str = Field(
        description="do_not_use, review_advisory, avoid_reported_versions, none or insufficient_data"
    )
    meta: SourcesMetaOut = Field(alias="_meta")
    response_ms: int = Field(alias="_response_ms")


class BulkResultOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str | None
    status: str = Field(
        description="stdlib, malicious, typosquat_suspect, historical_incident, exists or unknown"
    )
    reason: str
    malicious_data: str | None = Field(
        None,
        description="complete, stale, partial or unavailable: the malicious-package data of the "
        "item's ecosystem (absent for stdlib)",
    )


class BulkOut(_Open):
    """`POST /api/check_bulk`: one status per item, database only."""

    count: int
    results: list[BulkResultOut]
    summary: dict[str, int]
    malicious_data: str = Field(
        description="complete, stale, partial or unavailable: the worst over the ecosystems asked"
    )
    malicious_data_as_of: str | None = Field(
        description="with stale data: the date of the oldest stale feed's data"
    )
    malicious_data_sources: list[dict[str, Any]] = Field(description="the stale feeds")
    meta: dict[str, Any] = Field(alias="_meta")
    response_ms: int = Field(alias="_response_ms")


class ScanOut(_Open):
    """
    `POST /api/scan`. With `format: native`: `kind`, `ecosystem`, `summary`, `packages`, `warnings`;
    with `cyclonedx` or `spdx` the SBOM document itself (its own fields), hence every field optional.
    """

    kind: str | None = None
    ecosystem: str | None = None
    summary: dict[str, Any] | None = Field(
        None,
        description="counts, and vulnerability_data (complete, stale, partial or unavailable) "
        "with vulnerability_data_as_of and vulnerability_data_sources (the stale feeds)",
    )
    packages: list[dict[str, Any]] | None = None
    warnings: list[Any] | None = None
    include_transitive: bool | None = None


class PromptOut(_Open):
    """The `/api/prompt` brief as the MCP tool returns it: the text (also the tool's text content)."""

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str = Field(description="the version the brief is rendered for")
    prompt: str = Field(description="exactly the text/plain body of /api/prompt")
