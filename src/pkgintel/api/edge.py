"""
Pure ASGI guards that run before routing (cheap: one regex search over the decoded path).

`RejectControlPaths`: a decoded path holding a control character answers 422 in FastAPI's
validation shape saying which character and where. Routing cannot be trusted with such paths: a
route pattern's `$` matches before a trailing newline, so `/api/check/npm/lodash%0A` would
otherwise be answered as `lodash`.
"""

from __future__ import annotations

import re
from typing import Final

from starlette.types import ASGIApp, Receive, Scope, Send

from pkgintel.api.errors import dump_json

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
