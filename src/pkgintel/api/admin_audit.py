"""`AdminAuditMiddleware`: one audit row per answered `/api/admin/*` request (raw ASGI, so event
streams pass through unbuffered). Requests to a closed admin surface (404) are not recorded."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

PREFIX = "/api/admin/"


class AdminAuditMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        status = 0

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, capture)
        finally:
            await self._record(scope, status)

    async def _record(self, scope: Scope, status: int) -> None:
        actor = (scope.get("state") or {}).get("admin_actor")
        if actor is None:
            return
        app: Any = scope.get("app")
        ops = getattr(getattr(app, "state", None), "runtime", None)
        ops = getattr(ops, "ops", None)
        if ops is None:
            return
        query = scope.get("query_string", b"").decode("latin-1")
        path = scope["path"] + (f"?{query}" if query else "")
        try:
            await ops.store.audit(
                actor=actor,
                method=scope["method"],
                path=path,
                status=status,
                detail=None,
                now=datetime.now(UTC),
            )
        except Exception:  # the audit must never turn an answer into an error
            logger.exception("writing the admin audit log failed")
