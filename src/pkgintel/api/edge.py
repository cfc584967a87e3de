"""
Pure ASGI layers that run before routing.

`AccessLog`: the access log, with the client as a keyed hash only.
`FanOutBudget`: a fresh per-request budget of upstream lookups.

`RejectControlPaths`: a decoded path holding a control character answers 422 in FastAPI's
validation shape saying which character and where. Routing cannot be trusted with such paths: a
route pattern's `$` matches before a trailing newline, so `/api/check/npm/lodash%0A` would
otherwise be answered as `lodash`.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pkgintel.api.errors import dump_json
from pkgintel.api.http import ClientIdentity
from pkgintel.transport.guard import FanOut, fan_out

_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f]")
_NAMES: Final = {"\n": " (line feed)", "\r": " (carriage return)", "\t": " (tab)", "\x00": " (NUL)"}


class RejectControlPaths:
    """422 for any HTTP request whose decoded path holds a control character."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path: str = scope["path"]
            found = _CONTROL.search(path)
            if found is not None:
                await _reject(path, found, send)
                return
        await self.app(scope, receive, send)


async def _reject(path: str, found: re.Match[str], send: Send) -> None:
    char = found.group()
    message = (
        f"the path contains the control character U+{ord(char):04X}{_NAMES.get(char, '')} "
        f"at position {found.start()}; package names and other path parts never contain control "
        "characters"
    )
    body = dump_json(
        {"detail": [{"type": "value_error", "loc": ["path"], "msg": message, "input": path}]}
    )
    await send(
        {
            "type": "http.response.start",
            "status": 422,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


access_logger = logging.getLogger("pkgintel.access")


class AccessLog:
    """
    One access-log line per HTTP request on the `pkgintel.access` logger, in place of uvicorn's
    (which writes the raw client address). The client appears only as the keyed hash that
    `ClientIdentity` computes (`client=<32 hex>`), so the log is as private as the database.
    Costs nothing when the logger is not enabled for INFO.
    """

    def __init__(self, app: ASGIApp, identity: ClientIdentity) -> None:
        self.app = app
        self.identity = identity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not access_logger.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 0

        async def send_logged(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_logged)
        finally:
            log_access(scope, self._client(scope), status or 500, started)

    def _client(self, scope: Scope) -> str:
        peer = scope.get("client")
        forwarded = [
            value.decode("latin-1")
            for name, value in scope.get("headers", ())
            if name == b"x-forwarded-for"
        ]
        return self.identity.hash(self.identity.address_of(peer[0] if peer else None, forwarded))


def log_access(scope: Scope, client_hash: str, status: int, started: float) -> None:
    """The access-log line of one answered request (`started`: its `time.perf_counter()`)."""
    access_logger.info(
        'client=%s "%s %s HTTP/%s" %d %.1fms',
        client_hash,
        scope["method"],
        scope["path"].encode("utf-8", "backslashreplace").decode("ascii", "replace"),
        scope.get("http_version", "1.1"),
        status,
        (time.perf_counter() - started) * 1000,
    )


class FanOutBudget:
    """Gives each HTTP request its own `FanOut` budget of upstream lookups (see `upstream_guard`)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = fan_out.set(FanOut(self.limit))
        try:
            await self.app(scope, receive, send)
        finally:
            fan_out.reset(token)
