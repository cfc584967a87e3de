"""
`RateLimitLayer`: the ASGI layer that identifies every HTTP request's caller and counts it against
the rate limits — the JSON API, the docs and the MCP endpoint (`/mcp`) alike, so MCP calls count
against the same limits as API calls.

1. The client is the socket peer (`X-Forwarded-For` only from `PKGINTEL_TRUSTED_PROXIES`), kept as
   `ClientIdentity`'s keyed hash — the usage log's function, not a second one.
2. A key presented as `Authorization: Bearer pk_live_…` or `X-API-Key` makes the caller that key
   (401 problem when it is not an active key; other Bearer values, such as the admin token, are
   left to their route); else a live session cookie makes it that account; else it is anonymous.
   `scope["state"]["principal"]` is set to the `Principal` for the inner layers (the usage log).
3. The request counts against its caller limit and its path rules (`domain/rate_limits.py`);
   every limited answer carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, and
   a refusal is a 429 problem with `Retry-After`. Health, status, probes and the live feed are
   neither counted nor refused.

No database access on the request path beyond a cache miss of the key or session lookup
(`accounts/keys.py`, a few seconds per key per process); the count is in memory, or one Redis
round trip per rule when Redis is configured. When the counter store fails, the request is served
without `RateLimit-*` headers (and the failure logged) rather than refused.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pkgintel.api.errors import error_response, problem
from pkgintel.api.http import ClientIdentity
from pkgintel.domain.accounts import SESSION_COOKIE, Principal, anonymous, is_api_key
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.operations.usage import classify_user_agent
from pkgintel.domain.rate_limits import LimitPolicy, LimitRule, exempt
from pkgintel.services.accounts.limits import Verdict
from pkgintel.services.accounts.service import Accounts

log = logging.getLogger(__name__)
_WARN_EVERY_S = 60.0
_PATHS_MAX = 16_384
"""Distinct (path, method) pairs whose path rules are memoised before the memo starts afresh."""


def _headers(scope: Scope) -> dict[bytes, list[bytes]]:
    out: dict[bytes, list[bytes]] = {}
    for name, value in scope.get("headers") or ():
        out.setdefault(name.lower(), []).append(value)
    return out


def presented_key(headers: dict[bytes, list[bytes]]) -> str | None:
    """The API key of the request: `X-API-Key`, or an `Authorization: Bearer` value shaped like
    one of our keys; None when there is neither."""
    explicit = headers.get(b"x-api-key")
    if explicit:
        return explicit[0].decode("latin-1").strip()
    for value in headers.get(b"authorization", ()):
        scheme, _, credential = value.decode("latin-1").partition(" ")
        credential = credential.strip()
        if scheme.lower() == "bearer" and is_api_key(credential):
            return credential
    return None


def session_cookie(headers: dict[bytes, list[bytes]]) -> str | None:
    for value in headers.get(b"cookie", ()):
        text = value.decode("latin-1")
        if SESSION_COOKIE in text:
            found = cookie_parser(text).get(SESSION_COOKIE)
            if found:
                return found
    return None


def limit_headers(verdict: Verdict) -> dict[str, str]:
    return {
        "RateLimit-Limit": str(verdict.limit),
        "RateLimit-Remaining": str(verdict.remaining),
        "RateLimit-Reset": str(verdict.reset_s),
    }


def limit_header_pairs(verdict: Verdict) -> list[tuple[bytes, bytes]]:
    """`limit_headers` as ASGI header pairs (lower-case names), for the hot lane."""
    return [
        (b"ratelimit-limit", str(verdict.limit).encode()),
        (b"ratelimit-remaining", str(verdict.remaining).encode()),
        (b"ratelimit-reset", str(verdict.reset_s).encode()),
    ]


VERDICT_KEY = "rate_verdict"
"""`scope["state"]` key under which a layer before this one leaves the request's verdict when it
counted the request already (the hot lane handing a request on): it is not counted twice."""


def refusal(verdict: Verdict) -> Any:
    """The 429 problem answer of a refused `verdict`."""
    return problem(
        429,
        "Too many requests",
        f"rate limit of {verdict.window} reached; try again in {verdict.reset_s} s",
        kind="rate-limited",
        headers={**limit_headers(verdict), "Retry-After": str(verdict.reset_s)},
        retry_after=verdict.reset_s,
        limit=verdict.window,
        rule=verdict.rule,
    )


class RequestCounter:
    """Counts one request of a principal against its caller limit and its path rules; shared by
    `RateLimitLayer` and the hot lane, so both count alike. A failing counter store gives None
    (served without `RateLimit-*` headers) and one log line a minute."""

    def __init__(self) -> None:
        self._warned = 0.0
        self._policy: LimitPolicy | None = None
        self._path_rules: dict[tuple[str, str], tuple[LimitRule, ...]] = {}

    def _rules_of(self, policy: LimitPolicy, path: str, method: str) -> tuple[LimitRule, ...]:
        """`policy.path_rules`, memoised per path and method (bounded; reset when the policy
        object changes)."""
        if policy is not self._policy:
            self._policy, self._path_rules = policy, {}
        key = (path, method)
        found = self._path_rules.get(key)
        if found is None:
            if len(self._path_rules) >= _PATHS_MAX:
                self._path_rules.clear()
            found = self._path_rules[key] = tuple(policy.path_rules(path, method))
        return found

    async def count(
        self,
        accounts: Accounts,
        principal: Principal,
        user_agent: str | None,
        path: str,
        method: str,
    ) -> Verdict | None:
        policy = accounts.limiter.policy
        caller = policy.caller_rule(principal, classify_user_agent(user_agent))
        rules: list[tuple[LimitRule, str]] = [(caller, _key_of(caller, principal))]
        for rule in self._rules_of(policy, path, method):
            rules.append((rule, principal.client_hash))
        try:
            return await accounts.limiter.hit_all(rules)
        except Exception as exc:  # the counter store (Redis) failed: serve, say so in one log line
            now = time.monotonic()
            if now - self._warned >= _WARN_EVERY_S:
                self._warned = now
                log.warning(
                    "rate limits not counted: the counter store failed (%s: %s)",
                    type(exc).__name__,
                    exc,
                )
            return None


class RateLimitLayer:
    """See the module docstring."""

    def __init__(self, app: ASGIApp, identity: ClientIdentity, counter: RequestCounter) -> None:
        self.app = app
        self._identity = identity
        self._counter = counter

    async def _count(
        self,
        accounts: Accounts,
        principal: Principal,
        headers: dict[bytes, list[bytes]],
        path: str,
        method: str,
    ) -> Verdict | None:
        agent = headers.get(b"user-agent")
        ua = agent[0].decode("latin-1") if agent else None
        return await self._counter.count(accounts, principal, ua, path, method)

    def _client_hash(self, scope: Scope, headers: dict[bytes, list[bytes]]) -> str:
        client = scope.get("client")
        peer = client[0] if client else None
        forwarded = [v.decode("latin-1") for v in headers.get(b"x-forwarded-for", ())]
        return self._identity.hash(self._identity.address_of(peer, forwarded))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        client_hash = self._client_hash(scope, headers)
        state = scope.setdefault("state", {})
        accounts = _accounts(scope)
        path: str = scope["path"]
        if accounts is None or exempt(path):
            state["principal"] = anonymous(client_hash)
            await self.app(scope, receive, send)
            return
        try:
            principal = await accounts.principal(
                client_hash, key=presented_key(headers), session=session_cookie(headers)
            )
        except PkgIntelError as exc:  # an invalid key (401), or the database failed
            state["principal"] = anonymous(client_hash)
            # Counted as the client's anonymous request, so guessing keys is limited too.
            verdict = await self._count(
                accounts, state["principal"], headers, path, scope["method"]
            )
            if verdict is not None and not verdict.allowed:
                await refusal(verdict)(scope, receive, send)
            else:
                await error_response(exc)(scope, receive, send)
            return
        state["principal"] = principal
        if VERDICT_KEY in state:  # counted by the hot lane already
            verdict = state.pop(VERDICT_KEY)
        else:
            verdict = await self._count(accounts, principal, headers, path, scope["method"])
        if verdict is None:
            await self.app(scope, receive, send)
            return
        if not verdict.allowed:
            await refusal(verdict)(scope, receive, send)
            return
        if principal.key_id is not None:
            accounts.keys.note_use(principal.key_id)
        extra = limit_headers(verdict)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                response_headers = MutableHeaders(scope=message)
                for name, value in extra.items():
                    response_headers[name] = value
            await send(message)

        await self.app(scope, receive, with_headers)


def _key_of(rule: LimitRule, principal: Principal) -> str:
    if rule.key == "key" and principal.key_id is not None:
        return f"key:{principal.key_id}"
    return principal.client_hash


def _accounts(scope: Scope) -> Accounts | None:
    app: Any = scope.get("app")
    runtime = getattr(getattr(app, "state", None), "runtime", None)
    accounts = getattr(runtime, "accounts", None)
    return accounts if isinstance(accounts, Accounts) else None
