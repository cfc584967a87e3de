"""
The answers of the account endpoints (`/api/auth/*`), door-neutral: each takes the `Accounts`
capability and the caller's `Principal` (or the credential it needs) and returns the JSON body,
raising the `AccountProblem` that says why it cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pkgintel.domain.accounts import (
    MAGIC_LINK_LIFETIME,
    Account,
    ApiKey,
    NotAuthenticated,
    Principal,
    SessionRequired,
)
from pkgintel.services.accounts.service import Accounts

LINK_SENT = {
    "status": "accepted",
    "detail": "If this address can receive mail, a sign-in link is on its way. It works once, "
    f"within {int(MAGIC_LINK_LIFETIME.total_seconds() // 60)} minutes.",
    "expires_in_s": int(MAGIC_LINK_LIFETIME.total_seconds()),
}
"""The one answer to every link request, whether or not the address has an account."""
USAGE_DAYS = 30


def _at(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment is not None else None


def account_wire(account: Account) -> dict[str, Any]:
    return {
        "id": account.id,
        "email": account.email,
        "created_at": _at(account.created_at),
        "last_login_at": _at(account.last_login_at),
    }


def key_wire(key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.id,
        "name": key.name,
        "prefix": key.prefix,
        "status": "revoked" if key.revoked_at else "active",
        "created_at": _at(key.created_at),
        "revoked_at": _at(key.revoked_at),
        "last_used_at": _at(key.last_used_at),
        "month": key.month,
        "month_count": key.month_count,
    }


def limits_wire(accounts: Accounts, principal: Principal) -> dict[str, Any]:
    """The caller limits, and which one applies to this caller (a key's, or per client)."""
    policy = accounts.limiter.policy
    return {
        "yours": accounts.limiter.describe(
            policy.key if principal.kind == "key" else policy.anonymous
        ),
        "anonymous": accounts.limiter.describe(policy.anonymous),
        "ai_agent": accounts.limiter.describe(policy.ai_agent),
        "api_key": accounts.limiter.describe(policy.key),
        "gdpr": accounts.limiter.describe(policy.named("gdpr")),
        "shared_across_workers": accounts.limiter.shared,
    }


def require_account(principal: Principal) -> int:
    """The caller's account id; `NotAuthenticated` for anonymous callers."""
    if principal.account_id is None:
        raise NotAuthenticated("sign in (session cookie) or present an API key")
    return principal.account_id


def require_session(principal: Principal) -> int:
    """The caller's account id when signed in with a session; keys cannot manage keys."""
    account_id = require_account(principal)
    if principal.kind != "session":
        raise SessionRequired("creating and revoking keys needs a signed-in session, not a key")
    return account_id


async def magic_link_request_answer(accounts: Accounts, email: str) -> dict[str, Any]:
    """Send a sign-in link; the same answer for every address."""
    await accounts.links.request(email)
    return dict(LINK_SENT)


@dataclass(frozen=True, slots=True)
class SignIn:
    """A verified link: the answer body, and the session cookie value the door sets."""

    body: dict[str, Any]
    cookie: str
    expires_at: datetime


async def magic_link_verify_answer(accounts: Accounts, token: str) -> SignIn:
    account, cookie, expires = await accounts.links.verify(token)
    body = {
        "status": "signed-in",
        "account": account_wire(account),
        "session": {"expires_at": _at(expires)},
    }
    return SignIn(body, cookie, expires)


async def me_answer(accounts: Accounts, principal: Principal) -> dict[str, Any]:
    account_id = require_account(principal)
    account = await accounts.store.account(account_id)
    if account is None:
        raise NotAuthenticated("the account no longer exists")
    return {
        "account": account_wire(account),
        "auth": {"kind": principal.kind, "key_id": principal.key_id},
        "limits": limits_wire(accounts, principal),
    }


async def logout_answer(accounts: Accounts, cookie: str | None) -> dict[str, Any]:
    """Revoke the session of `cookie`; `NotAuthenticated` when it is not a live session."""
    live = await accounts.sessions.resolve(cookie) if cookie else None
    if live is None or not await accounts.sessions.revoke(live[0]):
        raise NotAuthenticated("no signed-in session to end")
    return {"status": "signed-out"}


async def usage_answer(accounts: Accounts, principal: Principal, now: datetime) -> dict[str, Any]:
    """The account's calls per day and endpoint (the usage log), its keys' use, its limits."""
    account_id = require_account(principal)
    since = (now - timedelta(days=USAGE_DAYS)).replace(hour=0, minute=0, second=0, microsecond=0)
    calls = await accounts.store.calls_by_day(account_id, since)
    keys = await accounts.keys.listing(account_id)
    body: dict[str, Any] = {
        "account_id": account_id,
        "since": _at(since),
        "days": USAGE_DAYS,
        "keys": [
            {
                k: v
                for k, v in key_wire(key).items()
                if k in ("id", "name", "prefix", "status", "last_used_at", "month", "month_count")
            }
            for key in keys
        ],
        "limits": limits_wire(accounts, principal),
    }
    if calls is None:
        body["calls"] = None
        body["calls_unavailable"] = (
            "this installation's usage log does not record accounts yet; the keys' monthly "
            "counts above are complete"
        )
    else:
        body["calls"] = [
            {"day": day.isoformat(), "endpoint": endpoint, "calls": count}
            for day, endpoint, count in calls
        ]
        body["total"] = sum(count for _, _, count in calls)
    return body


async def keys_answer(accounts: Accounts, principal: Principal) -> dict[str, Any]:
    account_id = require_account(principal)
    keys = await accounts.keys.listing(account_id)
    return {"keys": [key_wire(k) for k in keys], "active": sum(1 for k in keys if not k.revoked_at)}


async def create_key_answer(
    accounts: Accounts, principal: Principal, name: str | None
) -> dict[str, Any]:
    account_id = require_session(principal)
    stored, key = await accounts.keys.create(account_id, name)
    return {
        **key_wire(stored),
        "key": key,
        "note": "This is the only time the key is shown: store it now. Present it as "
        "`Authorization: Bearer <key>` or `X-API-Key: <key>`.",
    }


async def revoke_key_answer(
    accounts: Accounts, principal: Principal, key_id: int
) -> dict[str, Any]:
    account_id = require_session(principal)
    await accounts.keys.revoke(account_id, key_id)
    return {"id": key_id, "status": "revoked"}


def manifest_limits(accounts: Accounts | None) -> dict[str, Any]:
    """The `rate_limits` entry of the discovery manifests: the limits this instance enforces."""
    if accounts is None:
        return {"enforced": False, "note": "this installation enforces no rate limit"}
    limiter = accounts.limiter
    policy = limiter.policy
    return {
        "enforced": True,
        "anonymous": limiter.describe(policy.anonymous),
        "ai_agent": limiter.describe(policy.ai_agent),
        "api_key": limiter.describe(policy.key),
        "gdpr": limiter.describe(policy.named("gdpr")),
        "headers": ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"],
        "rejection": "429 application/problem+json with Retry-After",
        "unlimited": ["/api/health", "/api/status", "/livez", "/readyz", "/api/live/*"],
        "shared_across_workers": limiter.shared,
    }


MANIFEST_AUTH = {
    "type": "optional",
    "schemes": ["bearer", "x-api-key"],
    "note": "No key is needed. An API key (`Authorization: Bearer pk_live_…` or `X-API-Key`) "
    "raises the rate limit; keys are made at /api/auth/keys after signing in by magic link.",
}
