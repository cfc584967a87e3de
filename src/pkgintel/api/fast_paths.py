"""
`FastExists`: `GET /api/exists/{ecosystem}/{package}` answered without FastAPI's routing and
dependency resolution, which cost more than the answer itself (the cheapest, most frequent call
agents make). It calls the same `exists_body` as the route and answers through the same
`cached_json` (ETag, 304, Cache-Control), so the two cannot disagree; anything it does not handle
plainly (another method, an unknown ecosystem, a name the ecosystem refuses, a domain error) goes
on to the FastAPI route, which gives the documented 422/problem answer.
"""

from __future__ import annotations

import time
from typing import Final

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from pkgintel.api.http import cached_json
from pkgintel.api.usage import record_call
from pkgintel.application.packages import EXISTS_CACHE, exists_body
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names.rules import MAX_NAME_LENGTH
from pkgintel.domain.packages import Ecosystem

PREFIX: Final = "/api/exists/"
TEMPLATE: Final = "/api/exists/{ecosystem}/{package}"
"""The route's template, as the usage log names the call."""
_ECOSYSTEMS: Final = {e.value: e for e in Ecosystem}


class FastExists:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            path: str = scope["path"]
            if path.startswith(PREFIX):
                eco, _, package = path[len(PREFIX) :].partition("/")
                ecosystem = _ECOSYSTEMS.get(eco)
                if ecosystem is not None and 0 < len(package) <= MAX_NAME_LENGTH:
                    started = time.perf_counter()
                    try:
                        body = await exists_body(scope["app"].state.runtime, ecosystem, package)
                    except PkgIntelError:
                        pass  # the route answers it, with its documented error shape
                    else:
                        response = cached_json(Request(scope), body, cache_control=EXISTS_CACHE)
                        await response(scope, receive, send)
                        record_call(
                            scope,
                            TEMPLATE,
                            ecosystem,
                            package,
                            status=response.status_code,
                            found=body["exists"] if response.status_code == 200 else None,
                            started=started,
                        )
                        return
        await self.app(scope, receive, send)
