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
from pkgintel.api.http import NO_STORE, cached_json
from pkgintel.api.schemas.wire import (
    historical_compromise_wire,
    meta_wire,
    sources_wire,
    vulnerabilities_wire,
)
from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.names import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import validate_version
from pkgintel.services.runtime import Runtime

router = APIRouter(prefix="/api", tags=["vulnerabilities"])

ADVISORY_CACHE = "public, max-age=3600, stale-while-revalidate=86400"
"""Advisory answers change when an ingestion runs (typically daily): an hour of client caching."""
MAINSTREAM_WEEKLY_DOWNLOADS = 100_000
PING_S = 30.0
MAX_EVENT_ID = 2**63 - 1
"""Event ids are 64-bit database keys."""


@router.get("/vulns/{ecosystem}/{package:path}", summary="Vulnerabilities of the latest version")
async def vulns(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Advisories affecting the latest version, enriched with KEV and EPSS; `status` says how complete."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    snapshot = await runtime.packages.get_snapshot(ecosystem, name)
    info = snapshot.info
    report = await runtime.advisories.for_version(ecosystem, info.name, info.latest_version)
    body: dict[str, Any] = {
        "package": info.name,
        "ecosystem": ecosystem.value,
        "version": info.latest_version,
        **vulnerabilities_wire(report),
        "kev_count": report.kev_count,
        "max_epss": report.max_epss,
        "fixed_version": report.fixed_version,
        "_meta": meta_wire(
            endpoint="/api/vulns/{ecosystem}/{package}",
            tier="vulnerabilities",
            ecosystem=ecosystem,
            name=info.name,
            public_url=runtime.public_url,
            sources=(*snapshot.sources, *report.sources),
        ),
    }
    return cached_json(
        request,
        body,
        cache_control=ADVISORY_CACHE,
        volatile={"_cache": snapshot.cache_status, "_response_ms": _ms(started)},
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
        Query(max_length=128, description="`^X.Y.Z`, `~X.Y.Z`, `>=X` or an exact version."),
    ] = None,
    limit_checked: Annotated[
        int, Query(ge=1, le=500, description="Versions examined, newest first.")
    ] = 50,
    include_prerelease: Annotated[
        bool, Query(description="Consider alpha/beta/rc/canary/nightly.")
    ] = False,
) -> Response:
    """The highest version (within `constraint`) with no advisory at or above `min_severity`, and why each newer one was rejected."""
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
        "safe_version": answer.safe_version,
        "latest_version": answer.latest_version,
        "is_latest": answer.safe_version == answer.latest_version,
        "status": answer.status,
        "reason": answer.reason,
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
    return cached_json(
        request, body, cache_control=ADVISORY_CACHE, volatile={"_response_ms": _ms(started)}
    )


async def _weekly_downloads(runtime: Runtime, ecosystem: Ecosystem, name: str) -> int | None:
    try:
        return (await runtime.packages.get_snapshot(ecosystem, name)).weekly_downloads
    except PkgIntelError:
        return None  # removed from the registry (usual for malware) or registry down


@router.get("/malicious/{ecosystem}/{package:path}", summary="Malicious-package check")
async def malicious(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """Whether the package (or `version`) is reported malicious, by which `MAL-` advisories, for which versions."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    if version is not None:
        version = validate_version(ecosystem, version)
    answer = await runtime.advisories.malicious(ecosystem, name, version)
    weekly = await _weekly_downloads(runtime, ecosystem, name) if answer.is_malicious else None
    reported = answer.extra.get("reported_versions", [])
    all_versions = bool(answer.extra.get("all_versions"))
    if answer.is_malicious is None:
        action = "insufficient_data"
    elif not answer.is_malicious:
        action = "avoid_reported_versions" if answer.advisories else "none"
    elif weekly is not None and weekly > MAINSTREAM_WEEKLY_DOWNLOADS:
        action = "review_advisory"
    else:
        action = "do_not_use"
    historical = historical_compromise_wire(answer)
    body = {
        "package": name,
        "ecosystem": ecosystem.value,
        "version": version,
        "is_malicious": answer.is_malicious,
        "status": answer.status,
        "reason": answer.reason,
        "advisory_id": answer.advisories[0]["id"] if answer.advisories else None,
        "advisories": list(answer.advisories),
        "all_versions": all_versions,
        "reported_versions": reported,
        "historical_compromise": historical,
        "downloads_weekly": weekly,
        "likely_false_positive": action == "review_advisory",
        "action": action,
        "_meta": {
            "endpoint": "/api/malicious/{ecosystem}/{package}",
            "sources": sources_wire(answer.sources),
        },
    }
    return cached_json(
        request, body, cache_control=ADVISORY_CACHE, volatile={"_response_ms": _ms(started)}
    )


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
        async for event in runtime.feed.events(after, wait_s=PING_S):
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
