"""
Wire models of the package endpoints. The route functions build plain dicts with the `*_wire`
functions (fast, orjson) and declare these models as `response_model` for the OpenAPI document; a test
validates real responses against them so the two cannot drift.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


def purl_field() -> Any:
    """The `purl` every answer about a package carries (docs/api.md, Package URLs)."""
    return Field(
        None,
        description="Package URL of the package, with the version the answer is about when it is "
        "about one; null only when the name cannot form a purl.",
        examples=["pkg:npm/lodash@4.17.21"],
    )


class SourceOut(_Open):
    name: str
    kind: str
    status: str = Field(description="ok, stale or unavailable")
    fetched_at: datetime | None
    detail: str | None = None
    age_s: int | None = Field(None, description="Seconds since fetched_at (null when unknown).")
    stale: bool | None = Field(None, description="True when served from an older copy.")


class CheaperAlternative(_Open):
    endpoint: str
    tokens_estimated: int
    use_when: str


class MetaOut(_Open):
    endpoint: str
    tier: str
    philosophy: str
    cheaper_alternatives: list[CheaperAlternative]
    docs: str
    hint_bulk: str | None = None
    sources: list[SourceOut]


class HealthOut(_Open):
    score: int = Field(ge=0, le=100)
    risk: str = Field(
        description="low (80+), medium (60-79), high (40-59), critical (<40), unknown (insufficient data)"
    )
    breakdown: dict[str, int]
    deprecated: bool
    max_score: int = Field(
        100, description="always 100, the top of the score's scale (score / max_score <= 1)"
    )
    points: int | None = Field(None, description="points earned: the sum of the breakdown")
    points_possible: int = Field(
        100,
        description="points the scored components could earn (100 less the weights of the unscored "
        "ones); score = round(100 * points / points_possible)",
    )
    colour: str
    unscored: list[str]
    insufficient_data: bool
    explanations: dict[str, str]


class VulnerabilitiesOut(_Open):
    status: str = Field(
        description="complete, stale (old data: see data_as_of), partial or unavailable (counts are then not known)"
    )
    version: str | None
    count: int
    critical: int
    high: int
    medium: int
    low: int
    details: list[dict[str, Any]]
    reason: str | None = None


class VersionsOut(_Open):
    latest: str
    total_count: int
    recent: list[str]


class DependencyOut(_Open):
    name: str
    requirement: str
    kind: str
    marker: str | None = None


class MetadataOut(_Open):
    deprecated: bool
    deprecated_message: str | None
    maintainers_count: int
    first_published: datetime | None
    last_published: datetime | None
    dependencies_count: int | None = Field(
        description="null when the registry does not list the dependencies (unknown, not 0)"
    )
    dependencies: list[DependencyOut]


class KnownIssuesOut(_Open):
    bugs_count: int
    bugs_severity: dict[str, int]
    status_breakdown: dict[str, int]
    link: str | None
    scope: str


class RecommendationOut(_Open):
    action: str
    issues: list[str]
    use_version: str
    version_hint: str | None
    summary: str


class VersionHistoryOut(_Open):
    total_versions: int
    first_release_age_days: int | None
    last_release_days_ago: int | None
    avg_days_between_releases: float | None
    release_velocity: str


class FlagOut(_Open):
    available: bool


class ReportTyposquatOut(_Open):
    """The report's `typosquat` (the `/api/typosquat` body without its envelope)."""

    is_suspected: bool | None = Field(
        description="null when not checked (no popularity data loaded): unknown, not false"
    )
    checked: bool
    status: str = Field(description="ok or unavailable")


class ReportMaliciousOut(_Open):
    """The report's `malicious` check."""

    is_malicious: bool | None = Field(
        description="null when no malicious-package data could be consulted: unknown, not false"
    )
    checked: bool
    status: str


class PackageReportOut(_Open):
    """The package report (`/api/check`)."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    latest_version: str
    description: str
    license: str | None
    license_risk: str
    commercial_use_notes: str
    homepage: str | None
    repository: str | None
    downloads_weekly: int | None
    health: HealthOut
    vulnerabilities: VulnerabilitiesOut
    versions: VersionsOut
    metadata: MetadataOut
    github_stats: dict[str, Any] | None
    bundle: dict[str, Any] | None
    typescript: dict[str, Any] | None
    known_issues: KnownIssuesOut
    historical_compromise: dict[str, Any] | None
    recommendation: RecommendationOut
    version_scoped: dict[str, Any] | None
    requested_version: str | None
    typosquat: ReportTyposquatOut
    maintainer_trust: FlagOut
    malicious: ReportMaliciousOut
    scorecard: FlagOut
    quality: FlagOut
    version_history_summary: VersionHistoryOut
    meta: MetaOut = Field(alias="_meta")
    cache: str = Field(alias="_cache")
    response_ms: int = Field(alias="_response_ms")
    powered_by: str = Field(alias="_powered_by")


class PackageHealthOut(_Open):
    """`/api/health/{ecosystem}/{package}`."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    version: str
    requested_version: str | None
    health: HealthOut
    recommendation: RecommendationOut
    meta: MetaOut = Field(alias="_meta")


class ExistsOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    normalized: str
    exists: bool | None = Field(description="null: the name index for this ecosystem is not loaded")
    reason: str
    latest_version: str | None
    source: str | None
    index_loaded_at: datetime | None
    did_you_mean: list[str]


class SourcesMetaOut(_Open):
    endpoint: str
    sources: list[SourceOut]


class LatestOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    latest_version: str
    published_at: datetime | None
    deprecated: bool
    meta: SourcesMetaOut | None = Field(None, alias="_meta")


class VersionsListOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    latest: str
    total_count: int
    recent: list[str]
    deprecated: bool
    versions: list[dict[str, Any]]


class LicenseOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str
    license: str | None
    license_class: str = Field(alias="class")
    license_risk: str
    commercial_safe: bool
    copyleft: bool
    commercial_use_notes: str
    meta: SourcesMetaOut | None = Field(None, alias="_meta")


class InstallOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str
    commands: dict[str, str]
    meta: SourcesMetaOut | None = Field(None, alias="_meta")
