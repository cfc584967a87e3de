"""
The account pages' own logic, with the accounts capability of issue 30 stood in for by a fake that
answers in its documented shapes (`application/accounts.py` there): `/dashboard` sends a browser
without a session to `/login`, shows keys, usage and limits; a created key is shown on that answer
only; revoking goes back to the dashboard; every form is CSRF-checked. The real flow through the
outbox is the browser test's, once accounts exist.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from pkgintel.domain.errors import InvalidInput
from pkgintel.web.pages import accounts as account_pages
from pkgintel.web.pages.accounts import SESSION_COOKIE

LIVE_SESSION = "live-session-cookie"


@dataclass
class FakePrincipal:
    account_id: int | None
    key_id: int | None
    kind: str


class FakeAccounts:
    def __init__(self) -> None:
        self.keys: list[dict[str, Any]] = []
        self.links: list[str] = []

    async def principal(self, client_hash: str, *, key: str | None, session: str | None) -> Any:
        if session == LIVE_SESSION:
            return FakePrincipal(7, None, "session")
        return FakePrincipal(None, None, "anonymous")


def _fake_answers(store: FakeAccounts) -> SimpleNamespace:
    async def magic_link_request_answer(accounts: FakeAccounts, email: str) -> dict[str, Any]:
        if "@" not in email:
            raise InvalidInput("email", "not an email address")
        accounts.links.append(email)
        return {
            "status": "accepted",
            "detail": "If this address can receive mail, a link is on its way.",
            "expires_in_s": 900,
        }

    async def me_answer(accounts: FakeAccounts, principal: Any) -> dict[str, Any]:
        return {
            "account": {
                "id": 7,
                "email": "dev@example.org",
                "created_at": None,
                "last_login_at": None,
            },
            "auth": {"kind": principal.kind, "key_id": None},
            "limits": {
                "yours": "60 per minute",
                "api_key": "600 per minute",
                "shared_across_workers": True,
            },
        }

    async def keys_answer(accounts: FakeAccounts, principal: Any) -> dict[str, Any]:
        return {
            "keys": list(accounts.keys),
            "active": sum(k["status"] == "active" for k in accounts.keys),
        }

    async def usage_answer(accounts: FakeAccounts, principal: Any, now: Any) -> dict[str, Any]:
        return {
            "account_id": 7,
            "since": "2026-10-28T00:00:00Z",
            "days": 30,
            "keys": [],
            "limits": {},
            "calls": [{"day": "2026-11-26", "endpoint": "/api/check", "calls": 4}],
            "total": 4,
        }

    async def create_key_answer(
        accounts: FakeAccounts, principal: Any, name: str | None
    ) -> dict[str, Any]:
        key = {
            "id": len(accounts.keys) + 1,
            "name": name or "key",
            "prefix": "pk_live_ab",
            "status": "active",
            "created_at": "2026-11-27T00:00:00Z",
            "revoked_at": None,
            "last_used_at": None,
            "month": None,
            "month_count": 0,
        }
        accounts.keys.append(key)
        return {
            **key,
            "key": "pk_live_abSECRETVALUE",
            "note": "This is the only time the key is shown.",
        }

    async def revoke_key_answer(
        accounts: FakeAccounts, principal: Any, key_id: int
    ) -> dict[str, Any]:
        accounts.keys[key_id - 1]["status"] = "revoked"
        return {"id": key_id, "status": "revoked"}

    async def logout_answer(accounts: FakeAccounts, cookie: str | None) -> dict[str, Any]:
        return {"status": "signed-out"}

    return SimpleNamespace(
        **{
            f.__name__: f
            for f in (
                magic_link_request_answer,
                me_answer,
                keys_answer,
                usage_answer,
                create_key_answer,
                revoke_key_answer,
                logout_answer,
            )
        }
    )


@pytest.fixture
async def site(
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[httpx.AsyncClient, FakeAccounts]]:
    store = FakeAccounts()
    monkeypatch.setattr(account_pages, "accounts_answers", _fake_answers(store))
    app = FastAPI()
    app.state.runtime = SimpleNamespace(accounts=store)
    app.state.identity = SimpleNamespace(key=lambda request: "client")
    app.include_router(account_pages.router)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        yield c, store


def _token(page: httpx.Response) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found
    return found.group(1)


async def test_dashboard_without_a_session_sends_to_login(
    site: tuple[httpx.AsyncClient, FakeAccounts],
) -> None:
    client, _ = site
    r = await client.get("/dashboard")
    assert r.status_code == 303 and r.headers["location"] == "/login"


async def test_login_form_requests_a_link(site: tuple[httpx.AsyncClient, FakeAccounts]) -> None:
    client, store = site
    token = _token(await client.get("/login"))
    refused = await client.post("/login", data={"email": "dev@example.org"})
    assert refused.status_code == 403 and store.links == []
    sent = await client.post("/login", data={"email": "dev@example.org", "csrf_token": token})
    assert sent.status_code == 202 and 'id="link-sent"' in sent.text
    assert store.links == ["dev@example.org"]
    bad = await client.post("/login", data={"email": "nope", "csrf_token": token})
    assert bad.status_code == 422


async def test_keys_created_once_shown_then_revoked(
    site: tuple[httpx.AsyncClient, FakeAccounts],
) -> None:
    client, store = site
    client.cookies.set(SESSION_COOKIE, LIVE_SESSION)
    page = await client.get("/dashboard")
    assert page.status_code == 200 and "dev@example.org" in page.text
    assert page.headers["cache-control"] == "no-store"
    assert '<svg class="chart"' in page.text and "4 calls" in page.text
    token = _token(page)
    created = await client.post("/dashboard/keys", data={"name": "ci", "csrf_token": token})
    assert created.status_code == 201 and "pk_live_abSECRETVALUE" in created.text
    again = await client.get("/dashboard")
    assert "pk_live_abSECRETVALUE" not in again.text and 'class="key-status">active' in again.text
    assert (await client.post("/dashboard/keys/1/revoke", data={"x": "1"})).status_code == 403
    revoked = await client.post("/dashboard/keys/1/revoke", data={"csrf_token": token})
    assert revoked.status_code == 303 and revoked.headers["location"] == "/dashboard"
    assert store.keys[0]["status"] == "revoked"
    out = await client.post("/logout", data={"csrf_token": token})
    assert out.status_code == 303 and SESSION_COOKIE in out.headers["set-cookie"]
