"""
ASGI middleware that records each API call in the usage log (`services/operations/usage.py`): the route
template as source tag (`api:/api/check/{ecosystem}/{package}`), the ecosystem and package path
parameters, the User-Agent, the caller's keyed hash, and the outcome (`CallOutcome`): status,
whether the package named was found, latency, cache status, account and key id. Recording is an
in-memory append; the write happens later in a batch, off the request path.

Every status is recorded (a 404 for a name that does not exist feeds the hallucination corpus).
`found` is False for a `package-not-found` problem and for an `exists: false` answer; the cache
status is read from the answer's `"_cache"` key. Both are found by scanning the body as it is sent
(never buffering it).
"""

from __future__ import annotations

import time
from typing import Any, Final

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pkgintel.domain.accounts import principal_of
from pkgintel.domain.operations.usage import CallOutcome

EXISTS_TEMPLATE: Final = "/api/exists/{ecosystem}/{package}"
_NOT_FOUND_MARK: Final = b'/package-not-found"'
_ABSENT_MARK: Final = b'"exists":false'
_PRESENT_MARK: Final = b'"exists":true'
_CACHE_MARK: Final = b'"_cache":"'
_CACHE_VALUE_MAX: Final = 16
_CARRY: Final = len(_CACHE_MARK) + _CACHE_VALUE_MAX + 1


class _BodyScan:
    """Marks found in a response body sent in chunks (a tail is carried across chunk borders)."""

    def __init__(self) -> None:
        self.tail = b""
        self.not_found = False
        self.absent = False
        self.present = False
        self.cache: str | None = None

    def feed(self, chunk: bytes) -> None:
        data = self.tail + chunk
        if _NOT_FOUND_MARK in data:
            self.not_found = True
        if _ABSENT_MARK in data:
            self.absent = True
        if _PRESENT_MARK in data:
            self.present = True
        if self.cache is None:
            at = data.find(_CACHE_MARK)
            if at >= 0:
                value = data[at + len(_CACHE_MARK) : at + len(_CACHE_MARK) + _CACHE_VALUE_MAX]
                end = value.find(b'"')
                if end > 0:
                    self.cache = value[:end].decode("ascii", "replace")
        self.tail = data[-_CARRY:]


class UsageMiddleware:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = []
        scan = _BodyScan()

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            elif message["type"] == "http.response.body":
                scan.feed(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, remember)
        if status:
            self._record(scope, status[0], scan, started)

    @staticmethod
    def _record(scope: Scope, status: int, scan: _BodyScan, started: float) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None)
        if not isinstance(template, str) or not template.startswith("/api/"):
            return
        params = scope.get("path_params") or {}
        found: bool | None = None
        if status == 404 and scan.not_found:
            found = False
        elif template.replace(":path", "") == EXISTS_TEMPLATE and status == 200:
            found = False if scan.absent else True if scan.present else None
        record_call(
            scope,
            template,
            params.get("ecosystem"),
            params.get("package"),
            status=status,
            found=found,
            started=started,
            cache=scan.cache,
        )


def record_call(
    scope: Scope,
    template: str,
    ecosystem: Any,
    package: str | None,
    *,
    status: int | None = None,
    found: bool | None = None,
    started: float | None = None,
    cache: str | None = None,
) -> None:
    """Record one call of route `template` in the usage log (no-op without one); shared by the
    middleware and the fast paths that answer before routing. `started` is the
    `time.perf_counter()` reading at the call's start (for its latency)."""
    app: Any = scope.get("app")
    runtime = getattr(getattr(app, "state", None), "runtime", None)
    knowledge = getattr(runtime, "knowledge", None)
    identity = getattr(getattr(app, "state", None), "identity", None)
    if knowledge is None or identity is None:
        return
    request = Request(scope)
    principal = principal_of(scope)
    knowledge.usage.record(
        f"api:{template.replace(':path', '')}",
        ecosystem=getattr(ecosystem, "value", ecosystem) if ecosystem is not None else None,
        package=package,
        user_agent=request.headers.get("user-agent"),
        client=identity.key(request),
        outcome=CallOutcome(
            status=status,
            found=found,
            latency_ms=None if started is None else round((time.perf_counter() - started) * 1000),
            cache=cache,
            account_id=principal.account_id if principal else None,
            key_id=principal.key_id if principal else None,
        ),
    )
