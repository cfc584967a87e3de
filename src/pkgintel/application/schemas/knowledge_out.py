"""
Wire models of the package-knowledge answers (`/api/alternatives`, `/api/migration`,
`/api/breaking/{ecosystem}/{package}`, `/api/bugs/{ecosystem}/{package}`, `/api/compare`,
`/api/trending`, `/api/sameas`). The routes build plain dicts (`schemas/knowledge.py`); these models
document them (OpenAPI `response_model`) and are the MCP tools' output schemas. Open (`extra="allow"`): a new field is not a
breaking change. Timestamps are ISO 8601 strings (or null).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.packages import KnownIssuesOut, purl_field


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ReportBriefOut(_Open):
    """The facts of a package report other answers quote."""

    package: str
    latest_version: str | None
    health_score: int = Field(ge=0, le=100)
    risk: str
    breakdown: dict[str, int]
    action: str = Field(description="the report's recommendation.action")
    deprecated: bool
    deprecated_message: str | None
    license: str | None
    license_risk: str | None
    downloads_weekly: int | None
    last_release: str | None
    maintainers_count: int
    vulnerabilities: dict[str, Any] = Field(
        description="status (complete, stale, partial, unavailable), version, count and counts by severity"
    )
    check: str = Field(description="path of the full report")


class AlternativeOut(_Open):
    name: str
    purl: str | None = purl_field()
    why: str | None
    origin: str = Field(
        description="curated, registry-deprecation, ...: where the suggestion comes from"
    )
    sources: list[str]
    builtin: bool = Field(
        False,
        description="part of the language, its standard library or the framework: nothing to install",
    )
    status: str = Field(
        description="ok, builtin (ships with the language or framework), or why the candidate could not be scored"
    )
    health_score: int | None
    risk: str | None
    action: str | None
    latest_version: str | None
    deprecated: bool
    license: str | None
    downloads_weekly: int | None
    migration: str = Field(description="path of the migration answer from the package to this one")


class AlternativesOut(_Open):
    """`/api/alternatives/{ecosystem}/{package}`: replacements for a deprecated or unhealthy package."""

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    needs_replacement: bool
    reason: str | None
    current: ReportBriefOut | None = Field(
        description="the package's own report facts; null when the registry could not be read now "
        "and the answer is the curated knowledge alone"
    )
    curated_reason: str | None
    alternatives: list[AlternativeOut] = Field(description="empty for a healthy package")
    sources: list[str]


class MigrationSideOut(_Open):
    """One side of a migration; the report facts (`ReportBriefOut` fields) when it could be read."""

    name: str
    purl: str | None = Field(None, description="Package URL of the package (no version)")
    status: str
    install: dict[str, str]
    uninstall: dict[str, str]
    detail: str | None = None


class MigrationOut(_Open):
    """`/api/migration/{ecosystem}/{from_pkg}/{to_pkg}`: curated path or a generated scaffold."""

    ecosystem: str
    from_: MigrationSideOut = Field(alias="from")
    to: MigrationSideOut
    kind: str = Field(description="curated or generated")
    generated: bool
    notes: list[str]
    rationale: str | None
    steps: list[str]
    before: str | None
    after: str | None
    breaking_differences: list[str]
    estimated_minutes: int | float | None
    sources: list[str]


class BreakingChangeOut(_Open):
    text: str
    kind: str
    origin: str = Field(description="curated, or the harvested source (releases, changelog)")
    source_url: str | None
    migration_hint: str | None


class BreakingVersionOut(_Open):
    version: str
    published_at: str | None
    changes: list[BreakingChangeOut]
    sources: list[str]


class BreakingOut(_Open):
    """`/api/breaking/{ecosystem}/{package}`: breaking changes per version, or of one transition."""

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    from_version: str | None
    to_version: str | None
    status: str = Field(
        description="ok, not_harvested, ... (not_harvested: not checked, not 'none')"
    )
    breaking_count: int
    versions: list[BreakingVersionOut]
    sections_read: int
    harvest: dict[str, Any] | None
    note: str


class BugOut(_Open):
    number: int
    title: str
    state: str = Field(description="open or closed")
    severity: str
    labels: list[str]
    versions: list[str]
    fixed_in: str | None
    url: str
    created_at: str | None
    closed_at: str | None
    comments: int
    excerpt: str
    affects_version: bool | None = Field(description="whether the bug names the asked version")


class KnownIssuesBlockOut(KnownIssuesOut):
    available: bool = Field(description="false: the tracker was not harvested (not 'no bugs')")


class BugsOut(_Open):
    """`/api/bugs/{ecosystem}/{package}`: known non-CVE bugs from the issue tracker."""

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str | None
    status: str
    known_issues: KnownIssuesBlockOut
    bugs: list[BugOut]
    harvested_at: str | None


class SameAsMatchOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    evidence: str = Field(description="same_repository, relocation or same_name")
    detail: str


class SameAsOut(_Open):
    """`/api/sameas/{ecosystem}/{package}`: the same project published elsewhere."""

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    repository: str | None
    same_as: list[SameAsMatchOut]
    note: str


class CompareRowOut(_Open):
    """One compared package; the report facts (`ReportBriefOut` fields) when it could be read."""

    name: str
    purl: str | None = Field(None, description="Package URL of the package (no version)")
    status: str = Field(description="ok, not_found or unavailable")
    health_score: int | None = None
    action: str | None = None
    caveats: list[str]
    detail: str | None = None


class CompareOut(_Open):
    """`/api/compare/{ecosystem}/{packages}`: 2 to 10 packages side by side with a verdict."""

    ecosystem: str
    packages: list[CompareRowOut]
    best_fit: str | None = Field(description="null when none is a safe pick")
    verdict: str


class TrendOut(_Open):
    ecosystem: str
    package: str
    queries_this_week: int
    queries_previous_week: int
    distinct_clients: int
    growth: float | None = Field(description="relative change; null when not asked the week before")


class TrendingOut(_Open):
    """`/api/trending`: packages agents asked about most in the last 7 days (our own query log)."""

    window: dict[str, str]
    packages: list[TrendOut]
    excludes: str
