"""
Plain-text briefs for LLMs, rendered from a `PackageReport` (verdict first).

`render_prompt` is the `/api/prompt` text (about 500 tokens at most); `render_brief` is the compact
`/api/ai/brief` text (about 300 tokens at most). Both state the data's sources and their state so an
agent can tell "no known vulnerabilities" from "not checked".
"""

from __future__ import annotations

from pkgintel.domain.freshness import freshness
from pkgintel.services.reports.service import PackageReport

_VERDICT = {
    "safe_to_use": "SAFE TO USE",
    "update_required": "UPDATE REQUIRED",
    "use_with_caution": "USE WITH CAUTION",
    "find_alternative": "FIND AN ALTERNATIVE",
    "do_not_use": "DO NOT USE",
    "legacy_but_working": "LEGACY BUT WORKING",
    "insufficient_data": "INSUFFICIENT DATA",
}


def _vuln_line(report: PackageReport) -> str:
    """Counts for the evaluated version, unrated included, and the age of the newest record; on
    stale data `vulnerability data stale, as of <date> (<feeds>)` instead."""
    vulns = report.vulnerabilities
    if vulns.status == "unavailable":
        return f"Vulnerabilities: NOT CHECKED ({vulns.reason or 'no data'})."
    counts = (
        ", ".join(f"{vulns.count(s)} {s}" for s in ("critical", "high", "medium", "low"))
        + f", {vulns.count(None)} unrated (treated as medium)"
    )
    notes = []
    if vulns.status == "partial":
        notes.append("partial data")
    stale = freshness([vulns.status], vulns.sources).note() if vulns.stale else None
    if stale is not None:
        notes.append(f"{stale}: recent advisories may be missing")
    elif vulns.data_as_of is not None:
        notes.append(f"newest advisory record {vulns.data_as_of:%Y-%m-%d}")
    tail = f" ({'; '.join(notes)})" if notes else ""
    return f"Vulnerabilities in {vulns.version}: {len(vulns.details)} known ({counts}){tail}."


def _ids(report: PackageReport, limit: int) -> list[str]:
    vulns = report.vulnerabilities
    out = []
    for d in vulns.details[:limit]:
        fixed = d.get("fixed_in") or []
        fix = f", fixed in {fixed[0]}" if fixed else ", no fix"
        out.append(
            f"- {d.get('id')} [{d.get('severity') or 'unknown'}{fix}]: {(d.get('summary') or '')[:100]}"
        )
    return out


def _header(report: PackageReport) -> str:
    rec = report.recommendation
    target = f"{report.info.name}@{report.evaluated_version}"
    return f"{_VERDICT.get(rec.action, rec.action.upper())}: {report.ecosystem.value} {target}. {rec.summary}"


def _sources_line(report: PackageReport) -> str:
    parts = []
    for s in report.sources:
        when = f" {s.fetched_at:%Y-%m-%d %H:%M}Z" if s.fetched_at else ""
        data = f" (data as of {s.data_as_of:%Y-%m-%d})" if s.data_as_of else ""
        parts.append(f"{s.name} {s.status.value}{when}{data}")
    return "Sources: " + "; ".join(parts) + "."


def _instead_lines(report: PackageReport) -> list[str]:
    """What to use instead of a package the curated knowledge records as deprecated."""
    known = report.known_deprecation
    if known is None or not known.replacements:
        return []
    return [f"Use instead: {', '.join(known.replacements[:4])} (source: {known.url})."]


def render_prompt(report: PackageReport) -> str:
    """The ~500-token brief: verdict, score, issues, versions, vulnerabilities, licence, install, sources."""
    info = report.info
    rec = report.recommendation
    h = report.health
    hist = report.history
    lines = [_header(report), ""]
    lines.append(
        f"Health: {h.score}/100 (risk {h.risk}) — maintenance {h.breakdown['maintenance']}/25, "
        f"security {h.breakdown['security']}/25, popularity {h.breakdown['popularity']}/20, "
        f"maturity {h.breakdown['maturity']}/15, community {h.breakdown['community']}/15."
    )
    if h.unscored:
        lines.append(f"Not scored (no data): {', '.join(h.unscored)}.")
    lines.append(
        f"Use version: {rec.use_version}"
        + (f" ({rec.version_hint})" if rec.version_hint else "")
        + "."
    )
    if rec.issues:
        lines.append("Issues:")
        lines.extend(f"- {issue}" for issue in rec.issues[:6])
    lines.append(_vuln_line(report))
    lines.extend(_ids(report, 5))
    if report.malicious.is_malicious:
        lines.append("MALICIOUS: reported as a malicious package.")
    slop = report.typosquat.slopsquat
    if slop is not None and slop.registered:
        lines.append(
            f"SLOPSQUAT: {slop.evidence}; registered (first release "
            f"{slop.registered_on.isoformat() if slop.registered_on else 'unknown'})."
        )
    elif report.typosquat.is_suspected:
        targets = ", ".join(t for t, _ in report.typosquat.targets[:3])
        lines.append(f"Possible typosquat of: {targets}. Check the name.")
    if report.deprecated:
        source = report.deprecation_source or {}
        said = f" (source: {source['url']})" if "url" in source else ""
        lines.append(f"Deprecated: {report.deprecated_message or 'yes'}{said}.")
        lines.extend(_instead_lines(report))
    last = (
        f"{hist.last_release_days_ago} days ago"
        if hist.last_release_days_ago is not None
        else "unknown"
    )
    lines.append(
        f"Latest: {info.latest_version}; {hist.total_versions} versions; last release {last}; "
        f"velocity {hist.release_velocity}."
    )
    downloads = report.snapshot.weekly_downloads
    other = info.extra.get("downloads")
    lines.append(
        f"Weekly downloads: {downloads:,}."
        if downloads is not None
        else f"Weekly downloads: not given; {int(other):,} over {info.extra['downloads_window']}."
        if other is not None and other.isdigit() and "downloads_window" in info.extra
        else "Weekly downloads: unknown."
    )
    lic = report.license
    lines.append(
        f"License: {lic.license or 'unknown'} ({lic.license_risk}). {lic.commercial_use_notes}"
    )
    deps = info.dependencies
    runtime = [d.name for d in deps if d.kind == "runtime"]
    if info.dependencies_version is None:
        # The registry did not say (e.g. PyPI metadata without requires_dist): not "0".
        lines.append("Dependencies: unknown (the registry does not list them).")
    else:
        lines.append(
            f"Dependencies ({info.dependencies_version}): {len(runtime)} runtime"
            + (f": {', '.join(runtime[:12])}" if runtime else "")
            + "."
        )
    if info.description:
        lines.append(f"About: {info.description[:200]}")
    if info.repository:
        lines.append(f"Repository: {info.repository}")
    lines.append(_sources_line(report))
    return "\n".join(lines) + "\n"


def render_brief(report: PackageReport) -> str:
    """The ~300-token compact brief."""
    h = report.health
    rec = report.recommendation
    lines = [_header(report)]
    lines.append(
        f"Score {h.score}/100, risk {h.risk}"
        + (f"; not scored: {', '.join(h.unscored)}" if h.unscored else "")
        + "."
    )
    lines.append(
        f"Use: {rec.use_version}" + (f" — {rec.version_hint}" if rec.version_hint else "") + "."
    )
    lines.extend(f"- {issue}" for issue in rec.issues[:3])
    lines.extend(_instead_lines(report))
    lines.append(_vuln_line(report))
    lines.extend(_ids(report, 3))
    lic = report.license
    lines.append(f"License {lic.license or 'unknown'} ({lic.license_risk}).")
    lines.append(_sources_line(report))
    return "\n".join(lines) + "\n"
