"""Fill the wire shapes (plain dicts, see `packages.py` for their documented models) from service values."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import quote

from pkgintel.application.schemas import people
from pkgintel.application.schemas.artifacts_wire import bundle_wire, scorecard_wire, typescript_wire
from pkgintel.application.schemas.typosquat import typosquat_wire
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.versions import newest_first
from pkgintel.knowledge.compromises import CompromiseMatch, compromises_for
from pkgintel.scoring import HealthScore, Recommendation
from pkgintel.scoring.verdicts import UpgradePlan, effective_severity
from pkgintel.services.advisories.compromises import incident_wire
from pkgintel.services.advisories.vulnerabilities import (
    SEVERITIES,
    MaliciousAnswer,
    VulnerabilityReport,
)
from pkgintel.services.reports.service import RECENT_VERSIONS, PackageReport

POWERED_BY = (
    "pkgintel — registry metadata from the ecosystems' own registries; advisories from OSV (CC-BY-4.0) "
    "where loaded; see /api/status for data freshness"
)
PHILOSOPHY = (
    "Verdict first, every signal with its source and age; 'unavailable' rather than a guess. "
    "Ask for the smallest answer that settles your question."
)


def known_issues_wire(report: PackageReport) -> dict[str, Any]:
    """The report's `known_issues` block (from the bug service when wired in)."""
    ki = report.known_issues
    if ki is None:
        return {
            "bugs_count": 0,
            "bugs_severity": {},
            "status_breakdown": {},
            "link": None,
            "scope": "unavailable: no known-bug database is loaded, so 0 means not checked",
            "available": False,
        }
    return {
        "bugs_count": ki.bugs_count,
        "bugs_severity": dict(ki.bugs_severity),
        "status_breakdown": dict(ki.status_breakdown),
        "link": ki.link,
        "scope": ki.scope,
        "available": ki.available,
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def path_name(name: str) -> str:
    """A package name as it goes into our own paths (`/` percent-encoded)."""
    return quote(name, safe="@")


REGISTRY_FACTS: tuple[str, ...] = (
    "downloads",
    "downloads_window",
    "downloads_unavailable",
    "deprecated_successor",
    "registry_advisories",
    "deprecation_unavailable",
)
"""`PackageInfo.extra` keys shown under `metadata` when an adapter sets them (downloads counted over
another window than a week, why there are none, a deprecation's successor, advisories the registry
itself publishes, why the deprecation status could not be read)."""


def sources_wire(sources: tuple[SourceStatus, ...] | list[SourceStatus]) -> list[dict[str, Any]]:
    return [
        {
            "name": s.name,
            "kind": s.kind,
            "status": s.status.value,
            "fetched_at": _iso(s.fetched_at),
            "detail": s.detail,
            **({"data_as_of": _iso(s.data_as_of)} if s.data_as_of is not None else {}),
        }
        for s in sources
    ]


def cheaper_alternatives(ecosystem: Ecosystem, name: str, endpoint: str) -> list[dict[str, Any]]:
    """Smaller answers that may settle the caller's question, cheapest first; never the current endpoint."""
    p = f"{ecosystem.value}/{path_name(name)}"
    options = [
        (f"/api/exists/{p}", 60, "you only need to know the package exists (database only)"),
        (f"/api/latest/{p}", 50, "you only need the latest version"),
        (f"/api/health/{p}", 200, "you only need the score and the verdict"),
        (f"/api/ai/brief/{p}", 300, "you want the verdict and top issues as text for a prompt"),
        (f"/api/prompt/{p}", 500, "you want a fuller plain-text brief for a prompt"),
    ]
    return [
        {"endpoint": e, "tokens_estimated": t, "use_when": w}
        for e, t, w in options
        if not e.startswith(endpoint)
    ]


def meta_wire(
    *,
    endpoint: str,
    tier: str,
    ecosystem: Ecosystem,
    name: str,
    public_url: str,
    sources: tuple[SourceStatus, ...] | list[SourceStatus],
) -> dict[str, Any]:
    prefix = endpoint.split("{", 1)[0]
    return {
        "endpoint": endpoint,
        "tier": tier,
        "philosophy": PHILOSOPHY,
        "cheaper_alternatives": cheaper_alternatives(ecosystem, name, prefix),
        "docs": f"{public_url}/docs",
        "sources": sources_wire(sources),
    }


def health_wire(h: HealthScore) -> dict[str, Any]:
    return {
        "score": h.score,
        "risk": h.risk,
        "breakdown": dict(h.breakdown),
        "deprecated": h.deprecated,
        "max_score": h.max_score,
        "points": h.raw_score,
        "points_possible": h.points_possible,
        "partial": h.partial,
        "colour": h.colour,
        "unscored": list(h.unscored),
        "insufficient_data": h.insufficient_data,
        "explanations": dict(h.explanations),
    }


def recommendation_wire(r: Recommendation) -> dict[str, Any]:
    return {
        "action": r.action,
        "issues": list(r.issues),
        "use_version": r.use_version,
        "version_hint": r.version_hint,
        "summary": r.summary,
    }


def vulnerabilities_wire(v: VulnerabilityReport) -> dict[str, Any]:
    """A vulnerability report: counts by stated severity (`unrated`: none stated), each detail with
    its `effective_severity` for verdicts, and the data's freshness."""
    out: dict[str, Any] = {"status": v.status, "version": v.version, "count": len(v.details)}
    for sev in SEVERITIES:
        out[sev] = v.count(sev)
    out["unrated"] = v.count(None)
    out["details"] = [
        {
            **d,
            "severity": d.get("severity") or "unknown",
            "effective_severity": effective_severity(d),
        }
        for d in v.details
    ]
    out["reason"] = v.reason
    out["data_as_of"] = _iso(v.data_as_of)
    out["stale"] = v.stale
    return out


def upgrade_wire(plan: UpgradePlan) -> dict[str, Any]:
    """Where to go from the evaluated version: a published, non-yanked release or null, with why."""
    return {
        "to": plan.target,
        "gate": plan.gate,
        "clears": list(plan.clears),
        "remaining": [{"id": i, "effective_severity": sev} for i, sev in plan.remaining],
        "examined": plan.examined,
        "reason": plan.reason,
    }


def historical_compromise_wire(
    mal: MaliciousAnswer, curated: tuple[CompromiseMatch, ...] = ()
) -> dict[str, Any] | None:
    """Malicious reports that name specific versions (a compromised release) and the curated past
    incidents of the package (`knowledge/compromises`, each with its sources), else None."""
    reported = bool(mal.advisories) and not mal.extra.get("all_versions")
    if not reported and not curated:
        return None
    versions = list(mal.extra.get("reported_versions", [])) if reported else []
    for m in curated:
        versions.extend(v for v in m.affected.versions if v not in versions)
    affected = [m.version_affected for m in curated]
    return {
        "matched": True,
        "versions": versions,
        "advisories": [a["id"] for a in mal.advisories] if reported else [],
        "incidents": [incident_wire(m) for m in curated],
        "version_affected": True
        if any(affected)
        else (False if affected and all(a is False for a in affected) else None),
        "hint": "specific versions were reported malicious or are known compromised releases; "
        "other versions are not named by the reports",
    }


def report_wire(report: PackageReport, *, public_url: str) -> dict[str, Any]:
    """The report body except `_meta`, `_cache`, `_response_ms` (added by the route)."""
    info = report.info
    eco = report.ecosystem
    versions = newest_first(eco, [r.version for r in info.releases])
    dates = [r.published_at for r in info.releases if r.published_at is not None]
    hist = report.history
    lic = report.license
    typescript: dict[str, Any] | None = None
    art = report.artifacts
    if art is not None:
        typescript = typescript_wire(art.typescript) if art.typescript else None
    elif eco is Ecosystem.NPM:
        bundled = info.extra.get("types")
        typescript = {
            "bundled_types": bundled is not None,
            "types_entry": bundled,
            "definitely_typed": None
            if info.name.startswith("@types/")
            else f"@types/{info.name.lstrip('@').replace('/', '__')}",
            "note": "definitely_typed names the @types package to look for; its existence is not checked here",
        }
    version_scoped = None
    if report.requested_version is not None:
        release = info.release(report.requested_version)
        latest = report.latest_vulnerabilities
        version_scoped = {
            "version": report.requested_version,
            "is_latest": report.requested_version == info.latest_version,
            "published_at": _iso(release.published_at) if release else None,
            "yanked": bool(release and release.yanked),
            "deprecated": release.deprecated if release else None,
            "vulnerabilities": vulnerabilities_wire(report.vulnerabilities),
            "recommendation": recommendation_wire(report.recommendation),
            "health_score": report.health.score,
            "upgrade": upgrade_wire(report.upgrade),
            "latest": {
                "version": info.latest_version,
                "vulnerabilities": {
                    "status": latest.status,
                    "count": len(latest.details),
                    **{sev: latest.count(sev) for sev in SEVERITIES},
                    "unrated": latest.count(None),
                    "ids": [d["id"] for d in latest.details],
                },
            },
        }
    mal = report.malicious
    return {
        "package": report.package,
        "ecosystem": eco.value,
        "purl": purl_of(eco, report.package, report.evaluated_version),
        "latest_version": info.latest_version,
        "description": info.description or "",
        "license": lic.license,
        "license_risk": lic.license_risk,
        "commercial_use_notes": lic.commercial_use_notes,
        "homepage": info.homepage,
        "repository": info.repository,
        "downloads_weekly": report.snapshot.weekly_downloads,
        "health": health_wire(report.health),
        "vulnerabilities": vulnerabilities_wire(report.vulnerabilities),
        "versions": {
            "latest": info.latest_version,
            "total_count": len(versions),
            "recent": versions[:RECENT_VERSIONS],
        },
        "metadata": {
            "deprecated": report.deprecated,
            "deprecated_message": report.deprecated_message,
            "deprecation_source": report.deprecation_source,
            "maintainers_count": len(info.maintainers),
            "maintainers": [m.name for m in info.maintainers[:20]],
            "first_published": _iso(min(dates)) if dates else None,
            "last_published": _iso(max(dates)) if dates else None,
            "dependencies_count": len(info.dependencies)
            if info.dependencies_version is not None
            else None,
            "dependencies_version": info.dependencies_version,
            "dependencies": [
                {"name": d.name, "requirement": d.requirement, "kind": d.kind, "marker": d.marker}
                for d in info.dependencies
            ],
            "keywords": list(info.keywords[:20]),
            **(
                {"requires_python": info.extra["requires_python"]}
                if "requires_python" in info.extra
                else {}
            ),
            **(
                {"dependencies_unavailable": info.extra["dependencies_unavailable"]}
                if "dependencies_unavailable" in info.extra
                else {}
            ),
            **{
                key: int(info.extra[key]) if key == "downloads" else info.extra[key]
                for key in REGISTRY_FACTS
                if key in info.extra
            },
            **(
                {"deprecated_replacements": list(report.known_deprecation.replacements)}
                if report.known_deprecation is not None and report.known_deprecation.replacements
                else {}
            ),
        },
        "github_stats": people.report_github_stats(report),
        "github_stats_unavailable": people.report_github_stats_unavailable(report),
        "bundle": bundle_wire(art.bundle) if art is not None and art.bundle else None,
        "typescript": typescript,
        "known_issues": known_issues_wire(report),
        "historical_compromise": historical_compromise_wire(
            mal, compromises_for(eco, info.name, report.evaluated_version)
        ),
        "recommendation": recommendation_wire(report.recommendation),
        "upgrade": upgrade_wire(report.upgrade),
        "version_scoped": version_scoped,
        "requested_version": report.requested_version,
        "typosquat": typosquat_wire(report.typosquat),
        "maintainer_trust": people.report_maintainer_trust(report),
        "malicious": {
            # null when no malicious-package data could be consulted: unknown, not "clean".
            "is_malicious": mal.is_malicious,
            "checked": mal.is_malicious is not None,
            "status": mal.status,
            "advisories": list(mal.advisories),
            "reason": mal.reason,
        },
        "scorecard": scorecard_wire(art.scorecard)
        if art is not None and art.scorecard is not None
        else {"available": False, "reason": "OpenSSF Scorecard is not queried by this service"},
        "quality": people.report_quality(report),
        "version_history_summary": {
            "total_versions": hist.total_versions,
            "first_release_age_days": hist.first_release_age_days,
            "last_release_days_ago": hist.last_release_days_ago,
            "avg_days_between_releases": hist.avg_days_between_releases,
            "releases_last_365_days": hist.releases_last_365_days,
            "release_velocity": hist.release_velocity,
        },
        **(
            {"null_reasons": dict(art.null_reasons)} if art is not None and art.null_reasons else {}
        ),
        "_powered_by": POWERED_BY,
    }
