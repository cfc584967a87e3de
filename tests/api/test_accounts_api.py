"""
Accounts through the JSON API: magic-link sign-in (request → outbox → verify → me → keys → logout,
each step once only), the legacy GET verify, the session cookie, API keys (create, use, list,
revoke, 401 once revoked), the account's usage, and no raw token, key or address in any table.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from pkgintel.config import Settings
from pkgintel.domain.accounts import SESSION_COOKIE, digest
from pkgintel.runtime.container import Runtime
from pkgintel.services.accounts.service import Accounts, build_accounts
from pkgintel.storage.tables import metadata, usage_event

EMAIL = "Dev.One@Example.ORG"
ADDRESS = "Dev.One@example.org"
_TOKEN = re.compile(r"\?token=([A-Za-z0-9_-]+)")


def accounts_of(runtime: Runtime) -> Accounts:
    assert runtime.accounts is not None
    return runtime.accounts


async def read_link(runtime: Runtime) -> str:
    """The token of the newest sign-in mail in the outbox (the mail is taken out)."""
    mails = await accounts_of(runtime).store.take_mail(
        keep=False, prune_before=datetime(2000, 1, 1, tzinfo=UTC)
    )
    assert mails, "no mail in the outbox"
    assert mails[-1].recipient == ADDRESS
    found = _TOKEN.search(mails[-1].body)
    assert found is not None
    return found.group(1)


async def sign_in(client: httpx.AsyncClient, runtime: Runtime) -> str:
    resp = await client.post("/api/auth/magic-link/request", json={"email": EMAIL})
    assert resp.status_code == 202, resp.text
    token = await read_link(runtime)
    resp = await client.post("/api/auth/magic-link/verify", json={"token": token})
    assert resp.status_code == 200, resp.text
    cookie = resp.cookies.get(SESSION_COOKIE)
    assert cookie
    return cookie


async def dump_tables(runtime: Runtime) -> str:
    """Every row of every table as text."""
    engine = accounts_of(runtime).store._engine
    out = []
    async with engine.connect() as conn:
        for table in metadata.sorted_tables:
            for row in (await conn.execute(select(table))).all():
                out.append(f"{table.name}: {tuple(row)!r}")
    return "\n".join(out)


async def test_the_whole_flow_works_and_each_step_only_once(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    resp = await client.post("/api/auth/magic-link/request", json={"email": EMAIL})
    assert resp.status_code == 202 and resp.json()["expires_in_s"] == 900
    token = await read_link(runtime)

    verified = await client.post("/api/auth/magic-link/verify", json={"token": token})
    assert verified.status_code == 200, verified.text
    assert verified.json()["account"]["email"] == ADDRESS
    cookie = verified.cookies[SESSION_COOKIE]
    set_cookie = verified.headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=lax" in set_cookie
    assert "max-age=2592000" in set_cookie and "secure" not in set_cookie  # served over http
    # The link works once.
    again = await client.post("/api/auth/magic-link/verify", json={"token": token})
    assert again.status_code == 400
    assert again.headers["content-type"] == "application/problem+json"
    client.cookies.clear()

    session = {"Cookie": f"{SESSION_COOKIE}={cookie}"}
    me = await client.get("/api/auth/me", headers=session)
    assert me.status_code == 200, me.text
    assert me.json()["account"]["email"] == ADDRESS and me.json()["auth"]["kind"] == "session"

    created = await client.post("/api/auth/keys", json={"name": "ci"}, headers=session)
    assert created.status_code == 201, created.text
    key, key_id = created.json()["key"], created.json()["id"]
    assert re.fullmatch(r"pk_live_[0-9A-Za-z]{43}", key)
    assert created.json()["prefix"] == key[:14]

    by_bearer = await client.get("/api/auth/me", headers={"Authorization": f"Bearer {key}"})
    assert by_bearer.status_code == 200 and by_bearer.json()["auth"]["key_id"] == key_id
    by_header = await client.get("/api/contact/types", headers={"X-API-Key": key})
    assert by_header.status_code == 200 and by_header.headers["ratelimit-limit"] == "1000"
    # A key cannot make or revoke keys.
    refused = await client.post("/api/auth/keys", json={}, headers={"X-API-Key": key})
    assert refused.status_code == 403

    listed = (await client.get("/api/auth/keys", headers=session)).json()
    assert [k["id"] for k in listed["keys"]] == [key_id] and "key" not in listed["keys"][0]
    assert listed["keys"][0]["month_count"] == 3 and listed["keys"][0]["last_used_at"]

    revoked = await client.delete(f"/api/auth/keys/{key_id}", headers=session)
    assert revoked.status_code == 200 and revoked.json()["status"] == "revoked"
    assert (await client.delete(f"/api/auth/keys/{key_id}", headers=session)).status_code == 404
    after = await client.get("/api/contact/types", headers={"X-API-Key": key})
    assert after.status_code == 401
    assert after.json()["type"].endswith("/invalid-api-key")

    out = await client.post("/api/auth/logout", headers=session)
    assert out.status_code == 200 and out.json()["status"] == "signed-out"
    assert (await client.post("/api/auth/logout", headers=session)).status_code == 401
    assert (await client.get("/api/auth/me", headers=session)).status_code == 401

    # Nothing secret at rest: no token, cookie, key or client address in any row.
    rows = await dump_tables(runtime)
    for secret in (token, cookie, key, "127.0.0.1"):
        assert secret not in rows
    assert digest(key) in rows and digest(token) in rows and digest(cookie) in rows


async def test_a_link_request_answers_the_same_for_known_and_unknown_addresses(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await sign_in(client, runtime)
    client.cookies.clear()
    known = await client.post("/api/auth/magic-link", json={"email": EMAIL})
    unknown = await client.post("/api/auth/magic-link", json={"email": "nobody@example.net"})
    assert known.status_code == unknown.status_code == 202
    assert known.content == unknown.content
    bad = await client.post("/api/auth/magic-link/request", json={"email": "not an address"})
    assert bad.status_code == 422 and "email" in bad.text
    extra = await client.post("/api/auth/magic-link/request", json={"email": EMAIL, "x": 1})
    assert extra.status_code == 422


async def test_the_sixth_link_for_one_address_within_an_hour_is_429(
    client: httpx.AsyncClient,
) -> None:
    for _ in range(5):
        resp = await client.post("/api/auth/magic-link/request", json={"email": EMAIL})
        assert resp.status_code == 202
    resp = await client.post("/api/auth/magic-link/request", json={"email": EMAIL})
    assert resp.status_code == 429
    assert int(resp.headers["retry-after"]) > 0
    assert resp.headers["content-type"] == "application/problem+json"
    # Another address from the same client is still served (its client limit is 10 per hour).
    other = await client.post("/api/auth/magic-link/request", json={"email": "b@example.org"})
    assert other.status_code == 202


async def test_legacy_verify_sets_a_secure_cookie_over_https_and_redirects(
    settings: Settings, runtime: Runtime, client: httpx.AsyncClient
) -> None:
    await client.post("/api/auth/magic-link/request", json={"email": EMAIL})
    token = await read_link(runtime)
    transport = client._transport  # the same app
    async with httpx.AsyncClient(transport=transport, base_url="https://test") as secure:
        resp = await secure.get("/api/auth/verify", params={"token": token})
        assert resp.status_code == 303 and resp.headers["location"] == "/dashboard"
        set_cookie = resp.headers["set-cookie"].lower()
        assert "secure" in set_cookie and "httponly" in set_cookie
        again = await secure.get("/api/auth/verify", params={"token": token})
        assert again.status_code == 400
        missing = await secure.get("/api/auth/verify")
        assert missing.status_code == 422


async def test_an_expired_link_fails(settings: Settings, runtime: Runtime) -> None:
    engine = accounts_of(runtime).store._engine
    now = [datetime(2026, 11, 22, 12, 0, tzinfo=UTC)]
    accounts = build_accounts(settings, engine, lambda: now[0])
    try:
        await accounts.links.request(EMAIL)
        [mail] = await accounts.store.take_mail(keep=False, prune_before=now[0] - timedelta(1))
        found = _TOKEN.search(mail.body)
        assert found is not None
        now[0] += timedelta(minutes=15, seconds=1)
        with pytest.raises(Exception, match="unknown, used already or expired"):
            await accounts.links.verify(found.group(1))
    finally:
        await accounts.close()


async def test_another_accounts_key_is_404_and_bad_ids_are_422(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    cookie = await sign_in(client, runtime)
    client.cookies.clear()
    key_id = (
        await client.post("/api/auth/keys", headers={"Cookie": f"{SESSION_COOKIE}={cookie}"})
    ).json()["id"]
    await client.post("/api/auth/magic-link/request", json={"email": "other@example.org"})
    mails = await accounts_of(runtime).store.take_mail(
        keep=False, prune_before=datetime(2000, 1, 1, tzinfo=UTC)
    )
    found = _TOKEN.search(mails[-1].body)
    assert found is not None
    other = await client.post("/api/auth/magic-link/verify", json={"token": found.group(1)})
    client.cookies.clear()
    theirs = {"Cookie": f"{SESSION_COOKIE}={other.cookies[SESSION_COOKIE]}"}
    assert (await client.delete(f"/api/auth/keys/{key_id}", headers=theirs)).status_code == 404
    assert (await client.delete("/api/auth/keys/abc", headers=theirs)).status_code == 422
    assert (await client.get("/api/auth/keys", headers=theirs)).json()["keys"] == []
    assert (await client.get("/api/auth/keys")).status_code == 401


async def test_usage_lists_keys_and_says_when_calls_are_not_recorded(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    cookie = await sign_in(client, runtime)
    client.cookies.clear()
    key = (
        await client.post("/api/auth/keys", headers={"Cookie": f"{SESSION_COOKIE}={cookie}"})
    ).json()["key"]
    for _ in range(2):
        await client.get("/api/contact/types", headers={"X-API-Key": key})
    body = (await client.get("/api/auth/usage", headers={"X-API-Key": key})).json()
    assert body["keys"][0]["month_count"] == 3  # two calls and this one
    assert body["limits"]["yours"] == "1000 per 1 minute"
    if "account_id" in usage_event.c:
        assert body["calls"] is not None
    else:
        assert body["calls"] is None and "does not record accounts" in body["calls_unavailable"]


def test_the_outbox_command_prints_and_removes_the_mail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from pkgintel.cli.main import app
    from pkgintel.runtime.bootstrap import prepare_database
    from pkgintel.storage.accounts import SqlAccountStore

    url = f"sqlite+aiosqlite:///{tmp_path / 'outbox.db'}"

    async def queue() -> None:
        engine, _ = await prepare_database(Settings(_env_file=None, database_url=url))
        now = datetime.now(UTC)
        await SqlAccountStore(engine).add_mail(
            "a@example.org", "Subject line", "the body", now, now - timedelta(minutes=15)
        )
        await engine.dispose()

    asyncio.run(queue())
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", url)
    done = CliRunner().invoke(app, ["outbox", "--json"])
    assert done.exit_code == 0, done.output
    assert '"to":"a@example.org"' in done.output and "the body" in done.output
    again = CliRunner().invoke(app, ["outbox", "--json"])
    assert again.exit_code == 0 and "a@example.org" not in again.output
