"""
Wire shapes of the people-and-project signals: `/api/maintainers`, `/api/maintainer/trust`,
`/api/quality`, and the report's `github_stats`, `maintainer_trust` and `quality` blocks. Plain dicts
from service values; the open pydantic models below document them (OpenAPI, MCP output schemas).
Timestamps are ISO 8601 strings or null; a figure we do not know is null with its reason under
`unavailable`, never 0.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.packages import purl_field
from pkgintel.domain.purl import purl_of
from pkgintel.domain.signals.maintainers import MaintainerAnalysis
from pkgintel.services.reports.service import PackageReport
from pkgintel.services.signals.github import RepoStatsAnswer, TrustAnswer
from pkgintel.services.signals.maintainers import MaintainersAnswer
from pkgintel.services.signals.quality import QualityAnswer


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def maintainers_wire(m: MaintainerAnalysis) -> dict[str, Any]:
    """The maintainer analysis (the endpoint's body without package, `_meta`)."""
    return {
        "count": m.count,
        "count_basis": m.count_basis,
        "bus_factor": m.bus_factor,
        "primary_publisher": m.primary_publisher,
        "dominance": m.dominance,
        "releases_total": m.releases_total,
        "releases_with_publisher": m.releases_with_publisher,
        "accounts": [
            {
                "name": a.name,
                "role": a.role,
                "current": a.current,
                "releases_published": a.releases_published,
                "share": a.share,
                "first_seen_at": _iso(a.first_seen_at),
                "first_seen_version": a.first_seen_version,
                "account_created_at": _iso(a.account_created_at),
            }
            for a in m.accounts
        ],
        "ownership_changes": [
            {
                "version": c.version,
                "previous_version": c.previous_version,
                "published_at": _iso(c.published_at),
                "added": list(c.added),
                "removed": list(c.removed),
                "new_publisher": c.new_publisher,
            }
            for c in m.ownership_changes
        ],
        "ownership_changes_total": m.ownership_changes_total,
        "trusted_publishing_latest": m.trusted_publishing_latest,
        "alerts": [
            {"code": a.code, "severity": a.severity, "message": a.message} for a in m.alerts
        ],
        "unavailable": dict(m.unavailable),
    }


def maintainers_answer_wire(a: MaintainersAnswer) -> dict[str, Any]:
    """The `/api/maintainers` body without `_meta`; `purl` without a version (the publish rights
    are the package's)."""
    return {
        "package": a.package,
        "ecosystem": a.ecosystem.value,
        "purl": purl_of(a.ecosystem, a.package),
        "latest_version": a.latest_version,
        **maintainers_wire(a.analysis),
    }


def github_stats_wire(r: RepoStatsAnswer) -> dict[str, Any]:
    """`github_stats`: the figures with `available: true`, or `available: false` and the reason."""
    s = r.stats
    if s is None:
        return {"available": False, "repository": r.repository, "reason": r.reason}
    return {
        "available": True,
        "repository": s.full_name,
        "stars": s.stars,
        "forks": s.forks,
        "open_issues": s.open_issues,
        "last_push": _iso(s.pushed_at),
        "archived": s.archived,
        "fork": s.fork,
        "created_at": _iso(s.created_at),
        "owner": s.owner_login,
        "owner_type": s.owner_type,
    }


def trust_wire(t: TrustAnswer) -> dict[str, Any]:
    """A trust answer (the endpoint's body without `_meta`)."""
    if t.trust is None or t.account is None:
        return {
            "platform": t.platform,
            "username": t.username,
            "available": False,
            "reason": t.reason,
        }
    acc = t.account
    return {
        "platform": t.platform,
        "username": acc.login,
        "available": True,
        "trust_score": t.trust.score,
        "level": t.trust.level,
        "breakdown": dict(t.trust.breakdown),
        "max_score": t.trust.max_score,
        "unscored": list(t.trust.unscored),
        "explanations": dict(t.trust.explanations),
        "account": {
            "type": acc.type,
            "name": acc.name,
            "created_at": _iso(acc.created_at),
            "followers": acc.followers,
            "public_repos": acc.public_repos,
            "organizations": list(t.organizations) if t.organizations is not None else None,
        },
        "top_packages": [
            {"repository": r.full_name, "stars": r.stars, "last_push": _iso(r.pushed_at)}
            for r in t.top_repositories
        ],
        "note": "trust measures how established an account is, not its honesty: "
        "established accounts can be taken over",
    }


def quality_wire(q: QualityAnswer) -> dict[str, Any]:
    """The quality block (the endpoint's body without package and `_meta`)."""
    h = q.history
    repo = q.repository.stats if q.repository is not None else None
    deps = q.dependents
    ps = q.publish_security
    return {
        "available": True,
        "criticality_inputs": {
            "age_days": h.first_release_age_days,
            "last_release_days_ago": h.last_release_days_ago,
            # without release dates summarise_history counts 0 recent releases: unknown, not 0
            "releases_last_365_days": h.releases_last_365_days
            if h.first_release_age_days is not None
            else None,
            "avg_days_between_releases": h.avg_days_between_releases,
            "release_velocity": h.release_velocity,
            "maintainers_count": q.maintainers_count,
            "publishers_last_365_days": q.publishers_last_365_days,
            "contributors": None,
            "dependents": None
            if deps is None
            else {
                "total": deps.total,
                "direct": deps.direct,
                "indirect": deps.indirect,
                "of_version": deps.version,
            },
            "repository_created_at": _iso(repo.created_at) if repo else None,
            "repository_last_push": _iso(repo.pushed_at) if repo else None,
            "repository_archived": repo.archived if repo else None,
            "stars": repo.stars if repo else None,
        },
        "downloads": None
        if q.windows is None
        else {
            "last_week": q.windows.last_week,
            "last_month": q.windows.last_month,
            "trend": q.trend.trend if q.trend else None,
            "ratio": q.trend.ratio if q.trend else None,
            "explanation": q.trend.explanation if q.trend else None,
            "source": q.windows.source,
        },
        "publish_security": {
            "trusted_publishing": ps.trusted_publishing,
            "mfa_required": ps.mfa_required,
            "mfa_basis": ps.mfa_basis,
        },
        "unavailable": dict(q.unavailable),
    }


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class MaintainersOut(_Open):
    """`/api/maintainers/{ecosystem}/{package}`."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    latest_version: str
    count: int | None = Field(description="accounts with publish rights (or declared authors)")
    count_basis: str = Field(description="accounts, declared or none")
    bus_factor: int | None = Field(description="fewest publishers covering half the releases")
    primary_publisher: str | None
    dominance: float | None = Field(description="share of releases by the primary publisher, 0..1")
    accounts: list[dict[str, Any]]
    ownership_changes: list[dict[str, Any]]
    ownership_changes_total: int
    alerts: list[dict[str, Any]]
    unavailable: dict[str, str] = Field(description="figure → why it is unknown")
    meta: dict[str, Any] = Field(alias="_meta")


class TrustOut(_Open):
    """`/api/maintainer/trust/github/{username}`."""

    platform: str
    username: str
    available: bool
    trust_score: int | None = Field(None, ge=0, le=100)
    level: str | None = None
    breakdown: dict[str, int] | None = None
    reason: str | None = None
    meta: dict[str, Any] = Field(alias="_meta")


class QualityOut(_Open):
    """`/api/quality/{ecosystem}/{package}`."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    latest_version: str
    criticality_inputs: dict[str, Any]
    downloads: dict[str, Any] | None
    publish_security: dict[str, Any]
    unavailable: dict[str, str]
    meta: dict[str, Any] = Field(alias="_meta")


def report_github_stats(report: PackageReport) -> dict[str, Any] | None:
    """The report's `github_stats`: the figures, or None when there are none (the reason is
    `github_stats_unavailable`)."""
    if report.trust is None or report.trust.github.stats is None:
        return None
    return github_stats_wire(report.trust.github)


def report_github_stats_unavailable(report: PackageReport) -> str | None:
    """Why the report's `github_stats` is null (no GitHub repository, GitHub down...); None when it is not."""
    if report.trust is None:
        return "repository statistics are not wired in"
    return report.trust.github.reason if report.trust.github.stats is None else None


def report_maintainer_trust(report: PackageReport) -> dict[str, Any]:
    """The report's `maintainer_trust`: the repository owner's GitHub trust and the maintainer
    alerts and bus factor."""
    t = report.trust
    if t is None:
        return {"available": False, "reason": "maintainer-trust signals are not wired in"}
    m = t.maintainers
    people = {
        "count": m.count,
        "bus_factor": m.bus_factor,
        "primary_publisher": m.primary_publisher,
        "dominance": m.dominance,
        "alerts": [
            {"code": a.code, "severity": a.severity, "message": a.message} for a in m.alerts
        ],
        "details": f"/api/maintainers/{report.ecosystem.value}/{report.info.name}",
    }
    if t.owner_trust is None or t.owner_trust.trust is None:
        reason = t.owner_trust.reason if t.owner_trust is not None else t.owner_trust_reason
        return {"available": False, "reason": reason, "maintainers": people}
    return {**trust_wire(t.owner_trust), "subject": "repository owner", "maintainers": people}


def report_quality(report: PackageReport) -> dict[str, Any]:
    """The report's `quality` block."""
    if report.trust is None:
        return {"available": False, "reason": "quality signals are not wired in"}
    return quality_wire(report.trust.quality)
