"""
`ContainErrors`: the last stop of an exception on its way out of the app, so that none reaches the
server.

Starlette's outermost middleware answers an unhandled exception with the app's 500 handler and then
raises it again, for the server to log; uvicorn logs it as `Exception in ASGI application` with its
traceback and, since the answer has started, closes the socket, so the client's next request on
that keep-alive connection is reset. This middleware answers instead and returns normally:

- an error that says the database cannot be reached (`storage.outage.is_outage`) answers `503`
  problem+json with `Retry-After`, counted by the process's outage tracker (one WARNING per
  outage, no traceback);
- any other error is logged once with its traceback and answers `500` problem+json;
- when the answer had already started, nothing can be sent: the error is logged and the exception
  goes on (the server then closes that connection, the only honest end of a half-sent answer).
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pkgintel.api.errors import error_response, problem
from pkgintel.storage.outage import database

logger = logging.getLogger(__name__)


class ContainErrors:
    """See the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, send_tracked)
        except Exception as exc:
            if started:
                logger.exception("error after the answer to %s started", scope.get("path"))
                raise
            unavailable = database.classify(exc)
            if unavailable is not None:
                response = error_response(unavailable)
            else:
                logger.exception("unhandled error on %s", scope.get("path"))
                response = problem(
                    500, "Internal error", "an unexpected error occurred", kind="internal"
                )
            await response(scope, receive, send)
