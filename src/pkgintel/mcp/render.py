"""
Compact text renderings of tool results, for MCP clients that read only the text content. Each takes
the structured content (the HTTP JSON) and returns a few lines, verdict first; the structured content
stays the full answer. Pure functions over dicts; a missing field is skipped, never invented.
"""

from __future__ import annotations

from typing import Any

import orjson


def compact_json(data: dict[str, Any]) -> str:
    """The fallback: the whole answer as compact JSON."""
    return orjson.dumps(data).decode()


def _sources(data: dict[str, Any]) -> str:
    sources = (data.get("_meta") or {}).get("sources") or []
    parts = [f"{s.get('name')}={s.get('status')}" for s in sources]
    return "sources: " + ", ".join(parts) if parts else ""


def _lines(*lines: str | None) -> str:
    return "\n".join(line for line in lines if line)


def _as_of(when: Any) -> str:
    """` as of 2024-10-10` from an ISO time, or nothing."""
    return f" as of {when[:10]}" if isinstance(when, str) and when else ""


def _data_line(what: str, status: Any, as_of: Any, sources: Any) -> str | None:
    """`<what>: stale as of 2024-10-10 (osv:PyPI)` when the data is not complete, else None."""
    if status in (None, "complete"):
        return None
    names = ", ".join(str(s.get("name")) for s in sources or [] if isinstance(s, dict))
    return f"{what}: {status}{_as_of(as_of)}" + (f" ({names})" if names else "")


def _vuln_line(v: dict[str, Any]) -> str:
    if v.get("status") == "unavailable":
        return f"vulnerabilities: not checked ({v.get('reason') or 'no vulnerability data'})"
    counts = ", ".join(
        f"{v.get(k, 0)} {k}" for k in ("critical", "high", "medium", "low") if v.get(k)
    )
    unrated = f", {v['unrated']} unrated" if v.get("unrated") else ""
    stale = f"; data stale{_as_of(v.get('data_as_of'))}" if v.get("stale") else ""
    return (
        f"vulnerabilities ({v.get('status')}): {v.get('count', 0)}"
        + (f" ({counts}{unrated})" if counts or unrated else "")
        + stale
    )


def report(data: dict[str, Any]) -> str:
    rec = data.get("recommendation") or {}
    health = data.get("health") or {}
    version = data.get("requested_version") or data.get("latest_version")
    issues = rec.get("issues") or []
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')} {version}: {rec.get('action')} — "
        f"health {health.get('score')}/100 ({health.get('risk')})",
        rec.get("summary"),
        "issues: " + "; ".join(issues[:5]) if issues else None,
        f"use version: {rec['use_version']}" if rec.get("use_version") else None,
        _vuln_line(data.get("vulnerabilities") or {}),
        f"licence: {data.get('license')} ({data.get('license_risk')})",
        _sources(data),
    )


def health(data: dict[str, Any]) -> str:
    h = data.get("health") or {}
    rec = data.get("recommendation") or {}
    breakdown = ", ".join(f"{k} {v}" for k, v in (h.get("breakdown") or {}).items())
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')} {data.get('version')}: "
        f"health {h.get('score')}/100 ({h.get('risk')}); {rec.get('action')}",
        f"breakdown: {breakdown}" if breakdown else None,
        f"unscored: {', '.join(h['unscored'])}" if h.get("unscored") else None,
        rec.get("summary"),
    )


def latest(data: dict[str, Any]) -> str:
    dep = " (deprecated)" if data.get("deprecated") else ""
    return (
        f"{data.get('ecosystem')}/{data.get('package')} latest: {data.get('latest_version')}"
        f"{dep}, published {data.get('published_at') or 'unknown'}"
    )


def exists(data: dict[str, Any]) -> str:
    word = {True: "exists", False: "does not exist", None: "unknown"}[data.get("exists")]
    suggestions = data.get("did_you_mean") or []
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')}: {word} — {data.get('reason')}",
        "did you mean: " + ", ".join(suggestions) if suggestions else None,
    )


def bulk(data: dict[str, Any]) -> str:
    lines = [
        f"{r.get('ecosystem')}/{r.get('package')}: {r.get('status')} — {r.get('reason')}"
        for r in data.get("results") or []
    ]
    summary = ", ".join(f"{k} {v}" for k, v in (data.get("summary") or {}).items())
    return _lines(
        f"{data.get('count')} checked: {summary}",
        _data_line(
            "malicious-package data",
            data.get("malicious_data"),
            data.get("malicious_data_as_of"),
            data.get("malicious_data_sources"),
        ),
        *lines,
    )


def install(data: dict[str, Any]) -> str:
    commands = data.get("commands") or {}
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')} {data.get('version')}",
        *(f"{tool}: {cmd}" for tool, cmd in commands.items()),
        *(f"note: {n}" for n in data.get("notes") or []),
    )


def pin(data: dict[str, Any]) -> str:
    rejected = data.get("rejected") or []
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')}: safe version "
        f"{data.get('safe_version') or 'none'} (latest {data.get('latest_version')}, "
        f"below {data.get('min_severity')}; data {data.get('status')}"
        f"{_as_of(data.get('data_as_of')) if data.get('status') == 'stale' else ''})",
        data.get("warning"),
        data.get("reason"),
        *(
            f"rejected {r.get('version')}: "
            + ", ".join(f"{a.get('id')} ({a.get('severity')})" for a in r.get("advisories") or [])
            for r in rejected[:5]
        ),
    )


def malicious(data: dict[str, Any]) -> str:
    flag = {True: "REPORTED MALICIOUS", False: "not reported malicious", None: "unknown"}[
        data.get("is_malicious")
    ]
    target = str(data.get("package")) + (f"@{data['version']}" if data.get("version") else "")
    return _lines(
        f"{data.get('ecosystem')}/{target}: {flag}; action {data.get('action')}",
        f"advisory: {data['advisory_id']}" if data.get("advisory_id") else None,
        data.get("reason"),
    )


def typosquat(data: dict[str, Any]) -> str:
    flag = {True: "SUSPECTED TYPOSQUAT", False: "not suspected", None: "unknown"}[
        data.get("is_suspected")
    ]
    targets = [t for t in data.get("targets") or [] if t.get("suspected")]
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')}: {flag} — {data.get('reason')}",
        *(
            f"imitates {t.get('name')} ({t.get('technique')}, edit distance "
            f"{t.get('edit_distance')}): {t.get('why')}"
            for t in targets[:5]
        ),
        (
            f"slopsquat: {data['slopsquat'].get('evidence')}; registered on "
            f"{data['slopsquat'].get('registered_on')}"
        )
        if data.get("slopsquat")
        else None,
    )


def vulns(data: dict[str, Any]) -> str:
    details = data.get("details") or []
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')} {data.get('version')}: {_vuln_line(data)}",
        f"fixed in: {data['fixed_version']}" if data.get("fixed_version") else None,
        *(
            f"{d.get('id')} {d.get('severity')}: {d.get('summary')} (fixed in {', '.join(d.get('fixed_in') or []) or 'none'})"
            for d in details[:10]
        ),
    )


def scan(data: dict[str, Any]) -> str:
    if "summary" not in data or not isinstance(data.get("summary"), dict):
        return compact_json(data)  # an SBOM document
    s = data["summary"]
    flagged = [
        f"{p.get('name')}@{p.get('version')}: {p.get('status')}"
        for p in data.get("packages") or []
        if p.get("status") not in ("ok", None)
    ]
    counts = ", ".join(f"{k} {v}" for k, v in (s.get("by_status") or {}).items())
    return _lines(
        f"{data.get('kind')} ({data.get('ecosystem')}): {s.get('packages')} packages; {counts}",
        _data_line(
            "vulnerability data",
            s.get("vulnerability_data"),
            s.get("vulnerability_data_as_of"),
            s.get("vulnerability_data_sources"),
        ),
        f"suppressed findings: {s['suppressed']} (listed with suppressed: true)"
        if s.get("suppressed")
        else None,
        *(
            f"suppression of {e.get('id')} expired on {e.get('until')}: it counts again"
            for e in s.get("suppressions_expired") or []
        ),
        *flagged[:20],
        f"... and {len(flagged) - 20} more" if len(flagged) > 20 else None,
    )


def resolution(data: dict[str, Any]) -> str:
    solutions = data.get("solutions") or []
    lines: list[str | None] = [f"{data.get('status')}: {data.get('message')}"]
    for s in solutions:
        lines.append(
            f"- {s.get('title')} ({s.get('match')}, confidence {s.get('confidence')}): "
            f"{s.get('cause')}"
        )
        lines.extend(f"  fix: {step}" for step in s.get("fix") or [])
        if s.get("sources"):
            lines.append("  sources: " + ", ".join(s["sources"]))
    if not solutions:
        pattern = (data.get("normalised") or {}).get("pattern")
        lines.append(f"pattern: {pattern}" if pattern else None)
    return _lines(*lines)


def _conflict_line(c: dict[str, Any]) -> str:
    if c.get("origin") == "curated":
        # A known breakage: what breaks and the fix (in `message`), and where it is reported.
        return (
            f"conflict: {c.get('package')}@{c.get('version')} with {c.get('requires')} "
            f"{c.get('found_version')} (curated): {c.get('message')} [{c.get('source')}]"
        )
    return (
        f"conflict: {c.get('package')}@{c.get('version')} needs {c.get('requires')} "
        f"{c.get('constraint')}, found {c.get('found_version')} ({c.get('kind')})"
    )


def compat(data: dict[str, Any]) -> str:
    stack = ", ".join(f"{n}@{v}" for n, v in (data.get("packages") or {}).items())
    runtimes = ", ".join(f"{n} {v}" for n, v in (data.get("runtimes") or {}).items())
    return _lines(
        f"{data.get('ecosystem')}: {stack}" + (f" ({runtimes})" if runtimes else ""),
        str(data.get("verdict")),
        *(_conflict_line(c) for c in data.get("conflicts") or []),
        *(
            f"unavailable: {u.get('package')}@{u.get('version')}: {u.get('message')}"
            for u in data.get("unavailable") or []
        ),
        *(f"warning: {w.get('package')}: {w.get('message')}" for w in data.get("warnings") or []),
        *(
            f"suggest (keep {s.get('keep') or 'none'}): "
            + ", ".join(f"{n}@{v}" for n, v in (s.get("changes") or {}).items())
            for s in (data.get("suggested_versions") or [])[:3]
        ),
    )


# -- package knowledge (issue 18) -----------------------------------------------------------------


def _alternative_row(a: dict[str, Any]) -> str:
    name = str(a.get("name")) + (f" {a['latest_version']}" if a.get("latest_version") else "")
    if a.get("builtin"):
        verdict = "built in, nothing to install"
    elif a.get("health_score") is None:
        verdict = f"not scored ({a.get('status')})"
    else:
        verdict = f"health {a['health_score']}/100, {a.get('action')}"
    return f"- {name}: {verdict} — {a.get('why')}"


def alternatives(data: dict[str, Any]) -> str:
    cur = data.get("current")
    head = (
        f"{data.get('ecosystem')}/{data.get('package')}: "
        + ("needs replacement" if data.get("needs_replacement") else "no replacement needed")
        + (
            f" (health {cur.get('health_score')}/100, {cur.get('action')})"
            if cur
            else " (registry not read now; curated knowledge)"
        )
    )
    return _lines(
        head,
        data.get("reason"),
        *(_alternative_row(a) for a in data.get("alternatives") or []),
        "sources: " + ", ".join(data["sources"]) if data.get("sources") else None,
    )


def migration(data: dict[str, Any]) -> str:
    fr, to = data.get("from") or {}, data.get("to") or {}
    minutes = data.get("estimated_minutes")
    return _lines(
        f"{data.get('ecosystem')}: {fr.get('name')} → {to.get('name')} ({data.get('kind')}"
        + (f", about {minutes} min" if minutes else "")
        + ")",
        data.get("rationale"),
        *(f"{i}. {s}" for i, s in enumerate(data.get("steps") or [], 1)),
        *(f"difference: {d}" for d in (data.get("breaking_differences") or [])[:10]),
        *(f"note: {n}" for n in data.get("notes") or []),
        "sources: " + ", ".join(data["sources"]) if data.get("sources") else None,
    )


def breaking(data: dict[str, Any]) -> str:
    span = ""
    if data.get("from_version") or data.get("to_version"):
        span = f" {data.get('from_version') or '…'} → {data.get('to_version') or '…'}"
    lines = [
        f"{v.get('version')}: {c.get('text')}"
        + (f" (hint: {c['migration_hint']})" if c.get("migration_hint") else "")
        for v in data.get("versions") or []
        for c in v.get("changes") or []
    ]
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')}{span}: {data.get('breaking_count')} "
        f"breaking changes (release notes {data.get('status')})",
        *lines[:30],
        f"... and {len(lines) - 30} more" if len(lines) > 30 else None,
    )


def bugs(data: dict[str, Any]) -> str:
    ki = data.get("known_issues") or {}
    target = str(data.get("package")) + (f"@{data['version']}" if data.get("version") else "")
    head = (
        f"{data.get('ecosystem')}/{target}: {ki.get('bugs_count')} known bugs "
        f"({', '.join(f'{k} {v}' for k, v in (ki.get('status_breakdown') or {}).items()) or 'none'})"
        if ki.get("available")
        else f"{data.get('ecosystem')}/{target}: bugs not checked ({data.get('status')})"
    )
    return _lines(
        head,
        *(
            f"#{b.get('number')} [{b.get('state')}, {b.get('severity')}] {b.get('title')}"
            + (f" (fixed in {b['fixed_in']})" if b.get("fixed_in") else "")
            for b in (data.get("bugs") or [])[:15]
        ),
        f"tracker: {ki['link']}" if ki.get("link") else None,
    )


def _compare_row(p: dict[str, Any]) -> str:
    if p.get("status") != "ok":
        facts = [str(p.get("status")) + (f" ({p['detail']})" if p.get("detail") else "")]
    else:
        facts = [f"health {p.get('health_score')}/100, {p.get('action')}"]
        if p.get("downloads_weekly") is not None:
            facts.append(f"{p['downloads_weekly']:,} weekly downloads")
        if p.get("license"):
            facts.append(f"licence {p['license']}")
    return f"- {p.get('name')}: " + "; ".join(facts + list(p.get("caveats") or []))


def compare(data: dict[str, Any]) -> str:
    rows = [_compare_row(p) for p in data.get("packages") or []]
    return _lines(f"{data.get('ecosystem')}: {data.get('verdict')}", *rows)


def trending(data: dict[str, Any]) -> str:
    window = data.get("window") or {}
    rows = [
        f"- {p.get('ecosystem')}/{p.get('package')}: {p.get('queries_this_week')} queries "
        f"({p.get('queries_previous_week')} the week before), {p.get('distinct_clients')} clients"
        for p in data.get("packages") or []
    ]
    return _lines(
        f"trending {window.get('start')} to {window.get('end')}: "
        + (f"{len(rows)} packages" if rows else "nothing asked yet"),
        *rows,
    )


def trust(data: dict[str, Any]) -> str:
    """Maintainers, Scorecard, quality and provenance, one line each, alerts after."""
    m = data.get("maintainers") or {}
    sc = data.get("scorecard") or {}
    pv = data.get("provenance") or {}
    alerts = [a.get("message") for a in m.get("alerts") or [] if a.get("message")]
    if sc.get("available"):
        scorecard = f"scorecard {sc.get('score')}/10"
    else:
        scorecard = f"scorecard unavailable ({sc.get('reason') or sc.get('status')})"
    if pv.get("available"):
        attested = "attested" if pv.get("attested") else "not attested"
        lost = " — LOST the provenance earlier releases had" if pv.get("lost_provenance") else ""
        provenance = f"provenance of {pv.get('version')}: {attested}{lost}"
    else:
        provenance = f"provenance unavailable ({pv.get('reason')})"
    return _lines(
        f"{data.get('ecosystem')}/{data.get('package')}: maintainers {m.get('count')}, "
        f"bus factor {m.get('bus_factor')}; {scorecard}; {provenance}",
        *(f"alert: {a}" for a in alerts[:5]),
        _sources(data),
    )
