"""Advisory answers: vulnerabilities, pin_safe, malicious (shared by every door)."""

from __future__ import annotations

import time
from typing import Any

from pkgintel.application.answer import Answer
from pkgintel.application.schemas.wire import (
    historical_compromise_wire,
    meta_wire,
    sources_wire,
    upgrade_wire,
    vulnerabilities_wire,
)
from pkgintel.domain.freshness import feeds_wire, iso
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.versions import validate_version
from pkgintel.knowledge.compromises import compromises_for
from pkgintel.runtime.container import Runtime

ADVISORY_CACHE = "public, max-age=3600, stale-while-revalidate=86400"
"""Advisory answers change when an ingestion runs (typically daily): an hour of client caching."""


async def vulns_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/vulns` answer (shared with the MCP tool `get_vulnerabilities`)."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    latest = await runtime.vulns.latest(ecosystem, name)
    report = latest.report
    shown = latest.info.name if latest.info is not None else name
    plan = latest.upgrade
    body: dict[str, Any] = {
        "package": shown,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, shown, latest.version),
        **vulnerabilities_wire(report),
        "version": latest.version,
        "version_source": latest.version_source,
        "kev_count": report.kev_count,
        "max_epss": report.max_epss,
        "fixed_version": plan.target if plan is not None else None,
        "upgrade": upgrade_wire(plan) if plan is not None else None,
        "_meta": meta_wire(
            endpoint="/api/vulns/{ecosystem}/{package}",
            tier="vulnerabilities",
            ecosystem=ecosystem,
            name=shown,
            public_url=runtime.public_url,
            sources=latest.sources,
        ),
    }
    return Answer(
        body,
        ADVISORY_CACHE,
        {"_cache": latest.cache_status, "_response_ms": _ms(started)},
    )


async def pin_safe_answer(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    *,
    min_severity: str,
    constraint: str | None,
    limit_checked: int,
    include_prerelease: bool,
) -> Answer:
    """The `/api/pin_safe` answer (shared with the MCP tool `pin_safe`)."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    answer = await runtime.pins.pin_safe(
        ecosystem,
        name,
        min_severity=min_severity,
        constraint=constraint,
        include_prerelease=include_prerelease,
        limit_checked=limit_checked,
    )
    body = {
        "package": answer.package,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, answer.package),
        "safe_version": answer.safe_version,
        "latest_version": answer.latest_version,
        "is_latest": answer.safe_version == answer.latest_version,
        "status": answer.status,
        "reason": answer.reason,
        "data_as_of": iso(answer.data_as_of),
        "data_sources": feeds_wire(answer.stale_sources),
        "warning": answer.warning,
        "min_severity": answer.min_severity,
        "constraint": answer.constraint,
        "include_prerelease": answer.include_prerelease,
        "limit_checked": answer.limit_checked,
        "checked": answer.checked,
        "candidates": answer.candidates,
        "skipped": answer.skipped,
        "rejected": list(answer.rejected),
        "_meta": {
            "endpoint": "/api/pin_safe/{ecosystem}/{package}",
            "sources": sources_wire(answer.sources),
        },
    }
    return Answer(body, ADVISORY_CACHE, {"_response_ms": _ms(started)})


async def malicious_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None
) -> Answer:
    """The `/api/malicious` answer (shared with the MCP tool `check_malicious`)."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    if version is not None:
        version = validate_version(ecosystem, version)
    check = await runtime.malicious.check(ecosystem, name, version)
    answer, verdict = check.answer, check.verdict
    if verdict.status == "unknown":
        is_malicious, action = None, "insufficient_data"
    elif verdict.status == "malicious":
        is_malicious = True
        action = "review_advisory" if verdict.review_advisory else "do_not_use"
    elif verdict.status == "historical_incident":
        is_malicious, action = False, "avoid_reported_versions"
    else:
        is_malicious, action = False, "none"
    body = {
        "package": name,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, name, verdict.judged_version),
        "version": version,
        "judged_version": verdict.judged_version,
        "is_malicious": is_malicious,
        "verdict": verdict.status,
        "verdict_reason": verdict.reason,
        "status": answer.status,
        "reason": answer.reason,
        "advisory_id": answer.advisories[0]["id"] if answer.advisories else None,
        "advisories": list(answer.advisories),
        "all_versions": bool(answer.extra.get("all_versions")),
        "reported_versions": answer.extra.get("reported_versions", []),
        "historical_compromise": historical_compromise_wire(
            answer, compromises_for(ecosystem, name, verdict.judged_version)
        ),
        "latest_version": check.latest_version,
        "latest_version_source": check.latest_source,
        "downloads_weekly": check.weekly_downloads,
        "likely_false_positive": action == "review_advisory",
        "action": action,
        "_meta": {
            "endpoint": "/api/malicious/{ecosystem}/{package}",
            "sources": sources_wire(answer.sources),
        },
    }
    return Answer(body, ADVISORY_CACHE, {"_response_ms": _ms(started)})


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
