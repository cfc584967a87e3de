"""
The hot lane: `GET /api/exists/{ecosystem}/{package}` of an anonymous caller answered before any
middleware or routing — the call agents make before every install, and the one whose cost is
measured against a bare-ASGI floor (bench/README "The hot path against its floor").

`HotLaneApp.__call__` hands such a request to `HotLane.answer` before Starlette's middleware stack;
the lane does, in one place and with per-request work cut to lookups, what the stack's layers
would do for it:

- the caller is identified as `RateLimitLayer` does (the keyed client hash, memoised per address)
  and counted by the same `RequestCounter`; a refusal is the same 429 problem;
- the body and its ETag come from `application.exists.ExistsBytes` (the route's own answer,
  encoded once per name-index answer); `If-None-Match` gives 304; the headers are the route's
  (`ETag`, `Cache-Control`, `Vary`) plus `RateLimit-*`;
- the call is recorded in the usage log and the access log, as the usage and access layers would.

Anything else goes on to the full stack, which answers it with its documented shapes: another
method or path, a presented key or a session cookie (the principal needs the accounts service),
a control character in the path, a name the ecosystem refuses, any error while answering (the
stack's error containment then answers 503/500), and a body large enough for the compressor to
want. A request handed on after it was counted carries its verdict (`rate_limits.VERDICT_KEY`), so
it is never counted twice.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Final

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from pkgintel.api.edge import access_logger, log_access
from pkgintel.api.http import ClientIdentity
from pkgintel.api.rate_limits import VERDICT_KEY, RequestCounter, limit_header_pairs, refusal
from pkgintel.application.exists import ExistsBytes
from pkgintel.application.packages import EXISTS_CACHE
from pkgintel.domain.accounts import anonymous
from pkgintel.domain.names.rules import MAX_NAME_LENGTH
from pkgintel.domain.operations.usage import CallOutcome
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.rate_limits import exempt
from pkgintel.services.accounts.service import Accounts

PREFIX: Final = "/api/exists/"
SOURCE: Final = "api:/api/exists/{ecosystem}/{package}"
"""The usage log's name of the call (the route's template)."""
COMPRESS_FROM: Final = 500
"""Bodies from this size are handed on when the client accepts compression (the stack's
compressor's `minimum_size`)."""
_ECOSYSTEMS: Final = {e.value: e for e in Ecosystem}
_CREDENTIALS: Final = frozenset({b"authorization", b"x-api-key", b"cookie"})
_CLIENTS_MAX: Final = 65_536
_CACHE_CONTROL: Final = EXISTS_CACHE.encode()
_JSON: Final = b"application/json"
_VARY: Final = b"Accept-Encoding"

log = logging.getLogger(__name__)


class HotLane:
    """See the module docstring."""

    def __init__(self, identity: ClientIdentity, counter: RequestCounter) -> None:
        self._identity = identity
        self._counter = counter
        self._bodies = ExistsBytes()
        self._clients: dict[tuple[str | None, tuple[str, ...]], str] = {}

    def _client_hash(self, peer: str | None, forwarded: tuple[str, ...]) -> str:
        key = (peer, forwarded)
        found = self._clients.get(key)
        if found is None:
            found = self._identity.hash(self._identity.address_of(peer, list(forwarded)))
            if len(self._clients) >= _CLIENTS_MAX:
                self._clients.clear()
            self._clients[key] = found
        return found

    async def answer(self, app: FastAPI, scope: Scope, receive: Receive, send: Send) -> bool:
        """Answer the request when it is the lane's (see the module docstring); False when it is
        to go on to the full stack (then nothing was sent)."""
        path: str = scope["path"]
        eco, _, package = path[len(PREFIX) :].partition("/")
        ecosystem = _ECOSYSTEMS.get(eco)
        if ecosystem is None or not 0 < len(package) <= MAX_NAME_LENGTH or exempt(path):
            return False
        if not package.isprintable():  # control characters: `RejectControlPaths` answers
            return False
        agent: str | None = None
        etags: bytes | None = None
        encodings = b""
        forwarded: tuple[str, ...] = ()
        for name, value in scope["headers"]:
            name = name.lower()
            if name in _CREDENTIALS:
                return False
            if name == b"user-agent":
                agent = value.decode("latin-1")
            elif name == b"if-none-match":
                etags = value
            elif name == b"accept-encoding":
                encodings = value
            elif name == b"x-forwarded-for":
                forwarded = (*forwarded, value.decode("latin-1"))
        runtime: Any = getattr(app.state, "runtime", None)
        accounts = getattr(runtime, "accounts", None)
        if not isinstance(accounts, Accounts):
            return False
        started = time.perf_counter()
        client = scope.get("client")
        client_hash = self._client_hash(client[0] if client else None, forwarded)
        principal = anonymous(client_hash)
        verdict = await self._counter.count(accounts, principal, agent, path, "GET")
        if verdict is not None and not verdict.allowed:
            await refusal(verdict)(scope, receive, send)
            self._log(scope, client_hash, 429, started)
            return True
        try:
            encoded = await self._bodies.get(runtime, ecosystem, package)
        except Exception:  # the route answers it (problem shape, 503 on an outage)
            scope.setdefault("state", {})[VERDICT_KEY] = verdict
            return False
        body = encoded.body
        if len(body) >= COMPRESS_FROM and (b"br" in encodings or b"gzip" in encodings):
            scope.setdefault("state", {})[VERDICT_KEY] = verdict
            return False
        headers = [
            (b"etag", encoded.etag.encode()),
            (b"cache-control", _CACHE_CONTROL),
            (b"vary", _VARY),
        ]
        if verdict is not None:
            headers += limit_header_pairs(verdict)
        status = 304 if etags is not None and _matches(etags, encoded.etag) else 200
        if status == 200:
            headers.append((b"content-length", str(len(body)).encode()))
            headers.append((b"content-type", _JSON))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body if status == 200 else b""})
        usage = runtime.knowledge.usage
        usage.record(
            SOURCE,
            ecosystem=ecosystem.value,
            package=encoded.name,
            user_agent=agent,
            client=client_hash,
            outcome=CallOutcome(
                status=status,
                found=encoded.found if status == 200 else None,
                latency_ms=round((time.perf_counter() - started) * 1000),
            ),
        )
        self._log(scope, client_hash, status, started)
        return True

    @staticmethod
    def _log(scope: Scope, client_hash: str, status: int, started: float) -> None:
        if access_logger.isEnabledFor(logging.INFO):
            log_access(scope, client_hash, status, started)


def _matches(header: bytes, etag: str) -> bool:
    """`If-None-Match` semantics of `api.http.cached_json` (weak comparison, `*`)."""
    wanted = {tag.strip().removeprefix("W/") for tag in header.decode("latin-1").split(",")}
    return "*" in wanted or etag in wanted


class HotLaneApp(FastAPI):
    """The service's FastAPI app with the hot lane in front of its middleware stack."""

    hot_lane: HotLane | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        lane = self.hot_lane
        if (
            lane is not None
            and scope["type"] == "http"
            and scope["method"] == "GET"
            and scope["path"].startswith(PREFIX)
        ):
            scope["app"] = self
            if await lane.answer(self, scope, receive, send):
                return
        await super().__call__(scope, receive, send)
