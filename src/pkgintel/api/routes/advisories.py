"""Vulnerability endpoints: vulns, pin_safe, malicious, and the live malicious-advisory feed."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated

import orjson
from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import cached_json
from pkgintel.application.advisories import (
    malicious_answer,
    pin_safe_answer,
    vulns_answer,
)
from pkgintel.application.answer import NO_STORE
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import (
    DEFAULT_MIN_SEVERITY,
    DEFAULT_VERSIONS_CHECKED,
    MAX_CONSTRAINT_CHARS,
    MAX_VERSIONS_CHECKED,
    SEVERITY_PATTERN,
)
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["vulnerabilities"])

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


@router.get("/pin_safe/{ecosystem}/{package:path}", summary="Highest version below a severity")
async def pin_safe(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    min_severity: Annotated[
        str,
        Query(
            pattern=SEVERITY_PATTERN,
            description="Reject versions with an advisory at or above this.",
        ),
    ] = DEFAULT_MIN_SEVERITY,
    constraint: Annotated[
        str | None,
        Query(
            max_length=MAX_CONSTRAINT_CHARS,
            description="`^X.Y.Z`, `~X.Y.Z`, `>=X`, an exact version, or a range in the "
            "ecosystem's own syntax (PEP 440 `>=1.0,<2.0`, `~=1.4`; npm `>=4.0.0 <4.17.0`, `1.x || ^2`; "
            "Cargo `>=0.1, <0.2`; RubyGems `~> 1.12.0`; Maven/NuGet `[2.0,3.0)`; Composer `^2.3 || ^1.0`; "
            "Pub `>=7.0.0 <8.0.0`; Hex `~> 1.3.0`; Hackage `^>= 2.1`; conda `>=1.2,<2`, "
            "`6.2.*|6.1.2`, no `^...$` regular expressions).",
        ),
    ] = None,
    limit_checked: Annotated[
        int, Query(ge=1, le=MAX_VERSIONS_CHECKED, description="Versions examined, newest first.")
    ] = DEFAULT_VERSIONS_CHECKED,
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
