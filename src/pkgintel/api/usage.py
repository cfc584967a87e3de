"""
ASGI middleware that records each answered API call in the usage log (`services/operations/usage.py`): the route
template as source tag (`api:/api/check/{ecosystem}/{package}`), the ecosystem and package path
parameters, the User-Agent and the caller's keyed hash. Recording is an in-memory append; the write
happens later in a batch, off the request path. Failed calls (status ≥ 400) are not recorded.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class UsageMiddleware:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status: list[int] = []

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        await self.app(scope, receive, remember)
        if status and status[0] < 400:
            self._record(scope)

    @staticmethod
    def _record(scope: Scope) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None)
        if not isinstance(template, str) or not template.startswith("/api/"):
            return
        params = scope.get("path_params") or {}
        record_call(scope, template, params.get("ecosystem"), params.get("package"))


def record_call(scope: Scope, template: str, ecosystem: Any, package: str | None) -> None:
    """Record one answered call of route `template` in the usage log (no-op without one); shared
    by the middleware and the fast paths that answer before routing."""
    app: Any = scope.get("app")
    runtime = getattr(getattr(app, "state", None), "runtime", None)
    knowledge = getattr(runtime, "knowledge", None)
    identity = getattr(getattr(app, "state", None), "identity", None)
    if knowledge is None or identity is None:
        return
    request = Request(scope)
    knowledge.usage.record(
        f"api:{template.replace(':path', '')}",
        ecosystem=getattr(ecosystem, "value", ecosystem) if ecosystem is not None else None,
        package=package,
        user_agent=request.headers.get("user-agent"),
        client=identity.key(request),
    )
