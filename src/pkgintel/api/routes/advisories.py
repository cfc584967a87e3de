"""Vulnerability endpoints: vulns, pin_safe, malicious, and the live malicious-advisory feed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import NO_STORE, Answer, cached_json
from pkgintel.api.schemas.wire import (
    historical_compromise_wire,
    meta_wire,
    sources_wire,
    upgrade_wire,
    vulnerabilities_wire,
)
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.freshness import feeds_wire, iso
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.versions import validate_version
from pkgintel.knowledge.compromises import compromises_for
from pkgintel.runtime.container import Runtime

router = APIRouter(prefix="/api", tags=["vulnerabilities"])

ADVISORY_CACHE = "public, max-age=3600, stale-while-revalidate=86400"
"""Advisory answers change when an ingestion runs (typically daily): an hour of client caching."""
PING_S = 30.0
MAX_EVENT_ID = 2**63 - 1
"""Event ids are 64-bit database keys."""


@router.get("/vulns/{ecosystem}/{package:path}", summary="Vulnerabilities of the latest version")
async def vulns(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Advisories affecting the latest version, enriched with KEV and EPSS; `status` says how complete."""
    answer = await vulns_answer(runtime, ecosystem, package)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


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


@router.get("/pin_safe/{ecosystem}/{package:path}", summary="Highest version below a severity")
async def pin_safe(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    min_severity: Annotated[
        str,
        Query(
            pattern="^(critical|high|medium|low)$",
            description="Reject versions with an advisory at or above this.",
        ),
    ] = "high",
    constraint: Annotated[
        str | None,
        Query(
            max_length=128,
            description="`^X.Y.Z`, `~X.Y.Z`, `>=X`, an exact version, or a range in the "
            "ecosystem's own syntax (PEP 440 `>=1.0,<2.0`, `~=1.4`; npm `>=4.0.0 <4.17.0`, `1.x || ^2`; "
            "Cargo `>=0.1, <0.2`; RubyGems `~> 1.12.0`; Maven/NuGet `[2.0,3.0)`; Composer `^2.3 || ^1.0`; "
            "Pub `>=7.0.0 <8.0.0`; Hex `~> 1.3.0`; Hackage `^>= 2.1`; conda `>=1.2,<2`, "
            "`6.2.*|6.1.2`, no `^...$` regular expressions).",
        ),
    ] = None,
    limit_checked: Annotated[
        int, Query(ge=1, le=500, description="Versions examined, newest first.")
    ] = 50,
    include_prerelease: Annotated[
        bool, Query(description="Consider alpha/beta/rc/canary/nightly.")
    ] = False,
) -> Response:
    """The highest version (within `constraint`) with no advisory at or above `min_severity`, and why each newer one was rejected."""
    answer = await pin_safe_answer(
        runtime,
        ecosystem,
        package,
        min_severity=min_severity,
        constraint=constraint,
        limit_checked=limit_checked,
        include_prerelease=include_prerelease,
    )
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
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


@router.get("/malicious/{ecosystem}/{package:path}", summary="Malicious-package check")
async def malicious(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """Whether `version` (else the latest release) is reported malicious, by which advisories (`MAL-` reports and advisories that say the package carries malicious code), for which versions."""
    answer = await malicious_answer(runtime, ecosystem, package, version)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


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


@router.get(
    "/live/malicious",
    summary="Live feed of malicious-package advisories (server-sent events)",
    response_class=Response,
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def live_malicious(
    runtime: RuntimeDep,
    last_event_id: Annotated[
        str | None,
        Header(
            alias="Last-Event-ID",
            pattern=r"^[0-9]{1,19}$",
            description="Resume after this event id (decimal, as sent in the `id:` field).",
        ),
    ] = None,
) -> EventSourceResponse:
    """`hello` on connect, `ping` every 30 s, `advisory` (ecosystem, package, vuln_id, severity, summary, published_at) per new malicious report; resume with `Last-Event-ID`."""
    after = int(last_event_id) if last_event_id is not None else None
    if after is not None and after > MAX_EVENT_ID:
        raise InvalidInput("Last-Event-ID", f"event ids are at most {MAX_EVENT_ID}")
    latest = await runtime.feed.latest_id()
    clamped = after is not None and after > latest
    if clamped:
        # An id this service never sent (a reset database, a hand-made header): resume from now
        # rather than wait for ids that may never come.
        after = latest

    async def stream() -> AsyncIterator[ServerSentEvent]:
        yield ServerSentEvent(
            event="hello",
            data=orjson.dumps(
                {
                    "stream": "malicious",
                    "latest_event_id": latest,
                    "resumed_after": after,
                    "resume_clamped": clamped,
                    "ping_s": PING_S,
                }
            ).decode(),
            retry=3000,
        )
        # A new connection gets every event after the `latest_event_id` its hello names: the
        # watcher's own idea of "now" may move past an event stored after the hello went out.
        start = latest if after is None else after
        async for event in runtime.feed.events(start, wait_s=PING_S):
            if event is None:
                yield ServerSentEvent(
                    event="ping", data=orjson.dumps({"t": int(time.time())}).decode()
                )
            else:
                yield ServerSentEvent(
                    event="advisory", id=str(event.id), data=orjson.dumps(event.payload).decode()
                )

    return EventSourceResponse(
        stream(), headers={"Cache-Control": NO_STORE, "X-Accel-Buffering": "no"}
    )


def _ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)
