"""
The admin console through ASGI: closed exactly like the admin API (a plain 404 without an admin
token configured), 401 without the token, 403 with a wrong one, CSRF on every form, and actions
written to the admin audit log.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.web.charts import usage_bars_svg
from pkgintel.web.pages.accounts import accounts_available
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry

TOKEN = "web-admin-token"


@pytest.fixture
async def console(settings: Settings, registry: ReplayRegistry) -> AsyncIterator[httpx.AsyncClient]:
    opened = settings.model_copy(update={"admin_token": TOKEN, "initial_ingest": False})
    async with build_runtime(
        opened, transport=httpx.ASGITransport(app=registry.app), clock=lambda: NOW
    ) as rt:
        app = create_app(opened, runtime=rt)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as c:
            c.runtime = rt  # type: ignore[attr-defined]
            yield c


def _token(page: httpx.Response) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found
    return found.group(1)


async def test_closed_without_an_admin_token_like_a_path_that_does_not_exist(
    client: httpx.AsyncClient,
) -> None:
    api = await client.get("/api/admin/cron/list")
    assert api.status_code == 404
    for method, path in [
        ("GET", "/admin"),
        ("POST", "/admin/login"),
        ("POST", "/admin/cron/x/run"),
    ]:
        r = await client.request(method, path)
        assert r.status_code == 404 and r.content == api.content, path
        assert r.headers["content-type"] == api.headers["content-type"]


async def test_token_form_then_console_then_an_audited_action(console: httpx.AsyncClient) -> None:
    asked = await console.get("/admin")
    assert asked.status_code == 401 and 'name="token"' in asked.text
    token = _token(asked)
    no_csrf = await console.post("/admin/login", data={"token": TOKEN})
    assert no_csrf.status_code == 403 and no_csrf.json()["type"].endswith("csrf-rejected")
    wrong = await console.post("/admin/login", data={"token": "guess", "csrf_token": token})
    assert wrong.status_code == 403 and "Forbidden" in wrong.text
    assert "pkgintel_admin" not in wrong.headers.get("set-cookie", "")
    ok = await console.post("/admin/login", data={"token": TOKEN, "csrf_token": token})
    assert ok.status_code == 303 and ok.headers["location"] == "/admin"
    cookie = ok.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/admin" in cookie
    page = await console.get("/admin")
    assert page.status_code == 200
    assert 'id="cron"' in page.text and 'id="curator"' in page.text
    slug = re.search(r'action="/admin/cron/([a-z0-9-]+)/run"', page.text)
    assert slug, "the cron jobs are listed with a run button"
    refused = await console.post(f"/admin/cron/{slug.group(1)}/run", data={"x": "1"})
    assert refused.status_code == 403
    ran = await console.post(f"/admin/cron/{slug.group(1)}/run", data={"csrf_token": token})
    assert ran.status_code == 303
    runtime: Runtime = console.runtime  # type: ignore[attr-defined]
    assert runtime.ops is not None
    log = await runtime.ops.store.audit_log(10)
    assert any(e["path"] == f"/admin/cron/{slug.group(1)}/run" for e in log), log
    console.cookies.set("pkgintel_admin", "stolen-guess", path="/admin")
    assert (await console.get("/admin")).status_code == 403


async def test_the_api_and_the_console_share_one_credential_check(
    console: httpx.AsyncClient,
) -> None:
    assert (await console.get("/api/admin/cron/list")).status_code == 401
    bad = await console.get("/api/admin/cron/list", headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 403
    good = await console.get("/api/admin/cron/list", headers={"Authorization": f"Bearer {TOKEN}"})
    assert good.status_code == 200


async def test_account_pages_exist_only_with_accounts(client: httpx.AsyncClient) -> None:
    runtime_has_accounts = accounts_available(client._transport.app.state.runtime)  # type: ignore[attr-defined]
    for path in ("/login", "/dashboard"):
        r = await client.get(path)
        assert (r.status_code != 404) is runtime_has_accounts, path


def test_usage_chart_sums_calls_per_day() -> None:
    svg = usage_bars_svg(
        [
            {"day": "2026-11-01", "endpoint": "/api/check", "calls": 3},
            {"day": "2026-11-01", "endpoint": "/api/scan", "calls": 2},
            {"day": "2026-11-02", "endpoint": "/api/check", "calls": 1},
        ]
    )
    assert svg is not None and svg.count("<rect") == 2
    assert "2026-11-01: 5 calls" in svg and "6 calls over 2 days" in svg
    assert usage_bars_svg([]) is None
