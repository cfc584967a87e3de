"""
`BrowserRoot`: one URL, two answers. A browser's `GET /` (its `Accept` prefers HTML, see
`domain.negotiation.prefers_html`) is served the home page; every other client (`Accept:
application/json`, `*/*`, no header) keeps the JSON root exactly as before. Both answers say `Vary:
Accept`, so no cache hands one to the other.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pkgintel.domain.negotiation import prefers_html
from pkgintel.web.pages.home import HOME_PATH


class BrowserRoot:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("path") != "/"
            or scope.get("method") not in ("GET", "HEAD")
        ):
            await self.app(scope, receive, send)
            return
        if prefers_html(Headers(scope=scope).get("accept")):
            scope = {**scope, "path": HOME_PATH, "raw_path": HOME_PATH.encode()}

        async def vary(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.add_vary_header("Accept")
            await send(message)

        await self.app(scope, receive, vary)
