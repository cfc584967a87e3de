"""Wire shapes (plain dicts) of the package-knowledge endpoints; documented in docs/api.md."""

from __future__ import annotations

from typing import Any

from pkgintel.application.schemas.wire import _iso, path_name, sources_wire
from pkgintel.domain.knowledge.bugs import BugReport
from pkgintel.domain.knowledge.release_notes import BreakingChange
from pkgintel.domain.operations.usage import Trend
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.search import SearchHit
from pkgintel.services.knowledge.alternatives import (
    AlternativesAnswer,
    MigrationAnswer,
    MigrationSide,
)
from pkgintel.services.knowledge.breaking import BreakingAnswer, VersionBreaking
from pkgintel.services.knowledge.bugs import PackageBugs
from pkgintel.services.knowledge.compare import Comparison
from pkgintel.services.packages.discovery import SameAsAnswer, SearchAnswer
from pkgintel.services.reports.service import PackageReport


def report_brief(report: PackageReport) -> dict[str, Any]:
    """The facts of a report other answers quote: score, verdict, versions, licence, popularity."""
    info = report.info
    v = report.vulnerabilities
    dates = [r.published_at for r in info.releases if r.published_at is not None]
    return {
        "package": info.name,
        "latest_version": info.latest_version,
        "health_score": report.health.score,
        "risk": report.health.risk,
        "breakdown": dict(report.health.breakdown),
        "action": report.recommendation.action,
        "deprecated": bool(report.health.deprecated or report.deprecated),
        "deprecated_message": report.deprecated_message,
        "license": report.license.license,
        "license_risk": report.license.license_risk,
        "downloads_weekly": report.snapshot.weekly_downloads,
        "last_release": _iso(max(dates)) if dates else None,
        "maintainers_count": len(info.maintainers),
        "vulnerabilities": {
            "status": v.status,
            "version": v.version,
            "count": len(v.details),
            "critical": v.count("critical"),
            "high": v.count("high"),
            "medium": v.count("medium"),
            "low": v.count("low"),
            "kev": v.kev_count,
        },
        "check": f"/api/check/{report.ecosystem.value}/{path_name(info.name)}",
    }


def alternatives_wire(ans: AlternativesAnswer) -> dict[str, Any]:
    """`current` is null when the package's report could not be built now and the answer is the
    curated knowledge alone; a `builtin` alternative (standard library, framework feature) has no
    purl, no report and no migration scaffold of its own."""
    sources: list[str] = []
    for opt in ans.alternatives:
        sources.extend(s for s in opt.sources if s not in sources)
    if ans.curated_source and ans.curated_source not in sources:
        sources.insert(0, ans.curated_source)
    return {
        "ecosystem": ans.ecosystem.value,
        "package": ans.package,
        "purl": purl_of(ans.ecosystem, ans.package),
        "needs_replacement": ans.needs_replacement,
        "reason": ans.reason,
        "current": report_brief(ans.report) if ans.report is not None else None,
        "curated_reason": ans.curated_reason,
        "alternatives": [
            {
                "name": o.name,
                "purl": None if o.builtin else purl_of(ans.ecosystem, o.name),
                "builtin": o.builtin,
                "why": o.why,
                "origin": o.origin,
                "sources": list(o.sources),
                "status": o.status,
                "health_score": o.report.health.score if o.report else None,
                "risk": o.report.health.risk if o.report else None,
                "action": o.report.recommendation.action if o.report else None,
                "latest_version": o.report.info.latest_version if o.report else None,
                "deprecated": bool(
                    o.report and (o.report.health.deprecated or o.report.deprecated)
                ),
                "license": o.report.license.license if o.report else None,
                "downloads_weekly": o.report.snapshot.weekly_downloads if o.report else None,
                "migration": f"/api/migration/{ans.ecosystem.value}/{path_name(ans.package)}/{path_name(o.name)}",
            }
            for o in ans.alternatives
        ],
        "sources": sources,
    }


def _side(ecosystem: Ecosystem, side: MigrationSide) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": side.name,
        "purl": purl_of(ecosystem, side.name),
        "status": side.status,
    }
    if side.report is not None:
        info = side.report.info
        body.update(report_brief(side.report))
        body["description"] = info.description or None
        body["keywords"] = list(info.keywords[:15])
        body["dependencies_count"] = len(info.dependencies)
        body["types"] = info.extra.get("types")
        body["requires_python"] = info.extra.get("requires_python")
        body["homepage"] = info.homepage
        body["repository"] = info.repository
    body["install"] = dict(side.install)
    body["uninstall"] = dict(side.uninstall)
    if side.detail:
        body["detail"] = side.detail
    return body


def migration_wire(ans: MigrationAnswer) -> dict[str, Any]:
    body: dict[str, Any] = {
        "ecosystem": ans.ecosystem.value,
        "from": _side(ans.ecosystem, ans.source),
        "to": _side(ans.ecosystem, ans.target),
        "kind": ans.kind,
        "generated": ans.kind == "generated",
        "notes": list(ans.notes),
    }
    c = ans.curated or {}
    body.update(
        {
            "rationale": c.get("rationale"),
            "steps": c.get("steps", []),
            "before": c.get("before"),
            "after": c.get("after"),
            "breaking_differences": c.get("differences", []),
            "estimated_minutes": c.get("estimated_minutes"),
            "sources": c.get("sources", []),
        }
    )
    if ans.kind == "generated":
        fr, to = ans.source, ans.target
        body["steps"] = [
            f"uninstall: {next(iter(fr.uninstall.values()), 'remove ' + fr.name)}",
            f"install: {next(iter(to.install.values()), 'add ' + to.name)}",
            f"compare the two APIs: /api/compare/{ans.ecosystem.value}/{path_name(fr.name)},{path_name(to.name)}",
        ]
        body["sources"] = [
            f"/api/check/{ans.ecosystem.value}/{path_name(fr.name)}",
            f"/api/check/{ans.ecosystem.value}/{path_name(to.name)}",
        ]
    return body


def change_wire(c: BreakingChange) -> dict[str, Any]:
    return {
        "text": c.text,
        "kind": c.kind,
        "origin": c.origin,
        "source_url": c.source_url,
        "migration_hint": c.hint,
    }


def version_wire(v: VersionBreaking) -> dict[str, Any]:
    return {
        "version": v.version,
        "published_at": _iso(v.published_at),
        "changes": [change_wire(c) for c in v.changes],
        "sources": list(v.sources),
    }


def breaking_wire(ans: BreakingAnswer) -> dict[str, Any]:
    h = ans.harvest
    return {
        "ecosystem": ans.ecosystem.value,
        "package": ans.package,
        "purl": purl_of(ans.ecosystem, ans.package),
        "from_version": ans.from_version,
        "to_version": ans.to_version,
        "status": ans.status,
        "breaking_count": sum(len(v.changes) for v in ans.versions),
        "versions": [version_wire(v) for v in ans.versions],
        "sections_read": ans.sections_read,
        "harvest": {
            "repository": h.repository,
            "status": h.status,
            "detail": h.detail,
            "harvested_at": _iso(h.harvested_at),
        }
        if h
        else None,
        "note": (
            "breaking entries are detected in release notes by wording (BREAKING, removed, dropped "
            "support, renamed) and major version bumps; read the linked notes before upgrading"
        ),
    }


def bug_wire(b: BugReport) -> dict[str, Any]:
    return {
        "number": b.number,
        "title": b.title,
        "state": b.state,
        "severity": b.severity,
        "labels": list(b.labels),
        "versions": list(b.versions),
        "fixed_in": b.fixed_in,
        "url": b.url,
        "created_at": _iso(b.created_at),
        "closed_at": _iso(b.closed_at),
        "comments": b.comments,
        "excerpt": b.excerpt[:300],
    }


def package_bugs_wire(ans: PackageBugs) -> dict[str, Any]:
    s = ans.summary
    return {
        "ecosystem": ans.ecosystem.value,
        "package": ans.package,
        "purl": purl_of(ans.ecosystem, ans.package, ans.version),
        "version": ans.version,
        "status": ans.status,
        "known_issues": {
            "bugs_count": s.bugs_count,
            "bugs_severity": s.bugs_severity,
            "status_breakdown": s.status_breakdown,
            "link": s.link,
            "scope": s.scope,
            "available": s.available,
        },
        "bugs": [
            {**bug_wire(v.stored.bug), "affects_version": v.affects_version} for v in ans.bugs
        ],
        "harvested_at": _iso(ans.harvest.harvested_at) if ans.harvest else None,
    }


def compare_wire(c: Comparison) -> dict[str, Any]:
    return {
        "ecosystem": c.ecosystem.value,
        "packages": [
            {
                "name": r.name,
                "purl": purl_of(c.ecosystem, r.name),
                "status": r.status,
                **(
                    {k: v for k, v in report_brief(r.report).items() if k != "package"}
                    if r.report
                    else {}
                ),
                "caveats": list(r.caveats),
                **({"detail": r.detail} if r.detail else {}),
            }
            for r in c.rows
        ],
        "best_fit": c.best,
        "verdict": c.verdict,
    }


def hit_wire(h: SearchHit) -> dict[str, Any]:
    return {
        "name": h.name,
        "description": h.description,
        "latest_version": h.latest_version,
        "monthly_downloads": h.monthly_downloads,
        "popularity_rank": h.popularity_rank,
        "found_by": list(h.sources),
    }


def search_wire(ans: SearchAnswer) -> dict[str, Any]:
    return {
        "ecosystem": ans.ecosystem.value,
        "query": ans.query,
        "results": [hit_wire(h) for h in ans.hits],
        "_meta": {"sources": sources_wire(ans.sources)},
    }


def trend_wire(t: Trend) -> dict[str, Any]:
    return {
        "ecosystem": t.ecosystem,
        "package": t.package,
        "queries_this_week": t.this_window,
        "queries_previous_week": t.previous_window,
        "distinct_clients": t.clients,
        "growth": t.growth,
    }


def sameas_wire(ans: SameAsAnswer) -> dict[str, Any]:
    return {
        "ecosystem": ans.ecosystem.value,
        "package": ans.package,
        "purl": purl_of(ans.ecosystem, ans.package),
        "repository": ans.repository,
        "same_as": [
            {
                "ecosystem": m.ecosystem.value,
                "package": m.package,
                "purl": purl_of(m.ecosystem, m.package),
                "evidence": m.evidence,
                "detail": m.detail,
            }
            for m in ans.matches
        ],
        "note": ans.note,
    }
