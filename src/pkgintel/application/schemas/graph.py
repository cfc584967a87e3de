"""Wire models of the dependency-tree, tree-licence and history endpoints (OpenAPI + response checks)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.packages import SourcesMetaOut, purl_field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class TreeVulnsOut(_Open):
    count: int | None = Field(description="Advisories affecting this version; null when not known.")
    status: str = Field(description="complete, stale, partial or unavailable")


class TreeNodeOut(_Open):
    id: str = Field(description="name@version")
    name: str
    purl: str | None = purl_field()
    version: str
    depth: int = Field(ge=0)
    kind: str = Field(
        description="root, runtime, optional, peer, build, extra:<name> or (Go) indirect"
    )
    requirement: str | None
    required_by: list[str]
    dependencies: list[str]
    latest_version: str | None
    health_score: int | None
    risk: str | None
    vulnerabilities: TreeVulnsOut
    license: str | None
    license_risk: str
    copyleft: str | None = Field(description="AGPL, LGPL or GPL when the licence is of that family")
    deprecated: bool
    malicious: bool | None
    dependencies_known: bool
    not_expanded: int
    minimums: list[dict[str, str]] = Field(
        default_factory=list,
        description="Go: each minimum version of this module required in the explored graph, "
        "with the module version requiring it; `version` is their maximum (minimal version "
        "selection). Empty for the other ecosystems.",
    )


class UnresolvedOut(_Open):
    required_by: str
    name: str
    requirement: str
    reason: str = Field(
        description="no_matching_version, not_found, unavailable, not_looked_up or unevaluable"
    )
    detail: str


class TreeOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str
    root: str
    max_depth: int
    max_deps: int
    total_dependencies: int
    complete: bool = Field(description="No edge is missing for lack of registry data.")
    vulnerabilities_known: bool = Field(description="Every node's advisory data was available.")
    truncated: bool
    truncation: list[str]
    summary: dict[str, Any]
    nodes: list[TreeNodeOut]
    unresolved: list[UnresolvedOut]
    conflicts: list[dict[str, Any]]
    cycles: list[list[str]]
    skipped: list[dict[str, Any]]
    environment: dict[str, str] | None
    computed_at: str
    meta: SourcesMetaOut = Field(alias="_meta")


class LicenseVerdictOut(_Open):
    license: str | None
    verdict: str = Field(description="compatible, conditional, review, unknown or incompatible")
    reason: str
    counts: dict[str, int]


class TreeLicensesOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str
    license: str | None
    license_risk: str
    total_dependencies: int
    complete: bool
    truncated: bool
    unresolved: int
    compatibility: LicenseVerdictOut
    target: str | None
    target_compatibility: LicenseVerdictOut | None
    flagged: list[dict[str, Any]]
    by_license: dict[str, int]
    by_risk: dict[str, int]
    packages: list[dict[str, Any]]
    computed_at: str
    meta: SourcesMetaOut = Field(alias="_meta")


class HistorySnapshotOut(_Open):
    date: str
    score: int
    risk: str
    breakdown: dict[str, Any]
    unscored: list[str]
    vulnerabilities: dict[str, Any]
    latest_version: str
    recorded_at: str | None


class HistoryOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    days: int
    count: int
    trend: str | None = Field(description="up, down or stable; null with fewer than two snapshots")
    trend_delta: float | None
    trend_window: int
    trend_rule: str
    gone_since: str | None = Field(
        None, description="first day the registry no longer had the package (history kept)"
    )
    snapshots: list[HistorySnapshotOut]
    meta: SourcesMetaOut = Field(alias="_meta")
