"""`pkgintel doctor` from the shell and `GET /api/admin/doctor`: the table and its exit codes, a bad
setting reported as a finding, and the same JSON through both doors. Upstreams are a MockTransport
(patched into `bootstrap.open_doctor` and given to the server's runtime): no test touches the network."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from typer.testing import CliRunner

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.entry import app
from pkgintel.runtime import bootstrap
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.services.operations.doctor import Doctor
from tests.services.operations.test_doctor import load_fresh_data

TOKEN = "doctor-admin-token"


def refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("Name or service not known", request=request)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh install's environment: its own SQLite file, two OSV ecosystems, one name list."""
    for key in list(os.environ):
        if key.startswith("PKGINTEL_"):
            monkeypatch.delenv(key)
    values = {
        "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'pkgintel.db'}",
        "PKGINTEL_OSV_ECOSYSTEMS": '["PyPI", "npm"]',
        "PKGINTEL_NAME_LISTS": '{"pypi": "https://mirror.test/simple/"}',
        "PKGINTEL_ADMIN_TOKEN": TOKEN,
        "PKGINTEL_IP_HASH_SECRET": "test-secret",
        "COLUMNS": "250",
    }
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    return values


@pytest.fixture
def upstreams(monkeypatch: pytest.MonkeyPatch) -> list[Callable[[httpx.Request], Any]]:
    """The upstream behaviour of the CLI's doctor (default: every host refuses)."""
    handler: list[Callable[[httpx.Request], Any]] = [refuse]
    original = bootstrap.open_doctor

    @asynccontextmanager
    async def mocked(settings: Settings, **kwargs: Any) -> AsyncIterator[Doctor]:
        kwargs["transport"] = httpx.MockTransport(lambda request: handler[0](request))
        async with original(settings, **kwargs) as doctor:
            yield doctor

    monkeypatch.setattr(bootstrap, "open_doctor", mocked)
    return handler


def _migrate() -> None:
    assert CliRunner().invoke(app, ["migrate"]).exit_code == 0


def test_fresh_install_table_names_the_unreachable_upstreams_and_the_missing_data(
    env: dict[str, str], upstreams: list[Any]
) -> None:
    _migrate()
    done = CliRunner().invoke(app, ["doctor"])
    assert done.exit_code == 1, done.output
    out = done.output
    for text in (
        "PKGINTEL_UPSTREAM_PYPI_URL",
        "PKGINTEL_UPSTREAM_CRATES_URL",
        "PKGINTEL_NAME_LISTS[pypi]",  # printed as is, not read as markup
        "unreachable",
        "advisories PyPI",
        "none loaded",
        "pkgintel ingest all",
        "names pypi",
        "what to do",
    ):
        assert text in out, text
    assert out.rstrip().splitlines()[-1].startswith("unhealthy:")


def test_healthy_answers_exit_0(env: dict[str, str], upstreams: list[Any]) -> None:
    """Every upstream answering, data loaded (through the real ingestion commands' store)."""
    _migrate()
    upstreams[0] = lambda request: httpx.Response(200)
    asyncio.run(load_fresh_data(Settings(), datetime.now(UTC)))
    done = CliRunner().invoke(app, ["doctor", "--format", "json"])
    body = orjson.loads(done.output)
    assert [c for c in body["checks"] if c["status"] in ("warn", "fail")] == []
    assert done.exit_code == 0 and body["healthy"] is True


def test_a_bad_setting_is_a_finding_with_an_example_and_nothing_else_runs(
    env: dict[str, str], upstreams: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def record(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200)

    upstreams[0] = record
    monkeypatch.setenv("PKGINTEL_TRUSTED_PROXIES", "[1, 2")
    done = CliRunner().invoke(app, ["doctor", "--format", "json"])
    assert done.exit_code == 1
    (bad,) = [c for c in orjson.loads(done.output)["checks"] if c["status"] == "fail"]
    assert bad["check"] == "PKGINTEL_TRUSTED_PROXIES" and "not valid JSON" in bad["detail"]
    monkeypatch.delenv("PKGINTEL_TRUSTED_PROXIES")
    monkeypatch.setenv("PKGINTEL_UPSTREAM_TIMEOUT_S", "-3")
    done = CliRunner().invoke(app, ["doctor", "--format", "json"])
    assert done.exit_code == 1
    checks = orjson.loads(done.output)["checks"]
    (bad,) = [c for c in checks if c["status"] == "fail"]
    assert bad["check"] == "PKGINTEL_UPSTREAM_TIMEOUT_S"
    assert asked == []  # no other check runs on settings that do not load
    assert [c["area"] for c in checks] == ["configuration", "configuration"]
    assert "greater than 0" in bad["detail"]
    assert "PKGINTEL_UPSTREAM_TIMEOUT_S=10.0" in bad["fix"]


def test_bad_format_is_usage_exit_2(env: dict[str, str], upstreams: list[Any]) -> None:
    assert CliRunner().invoke(app, ["doctor", "--format", "xml"]).exit_code == 2


def _comparable(body: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    """What must be the same through both doors (details hold ages and times, which move)."""
    return [(c["area"], c["check"], c["status"], c["fix"]) for c in body["checks"]]


async def test_admin_route_answers_the_cli_json_with_the_token(
    env: dict[str, str], upstreams: list[Any]
) -> None:
    settings = Settings()
    transport = httpx.MockTransport(refuse)
    async with build_runtime(settings, transport=transport) as runtime:  # migrates, like serve
        api = create_app(settings, runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=api), base_url="http://test"
        ) as client:
            resp = await client.get(
                "/api/admin/doctor", headers={"Authorization": f"Bearer {TOKEN}"}
            )
            assert (await client.get("/api/admin/doctor")).status_code == 401
    assert resp.status_code == 200
    assert resp.headers["cache-control"] == "no-store"
    route = resp.json()
    done = await asyncio.to_thread(CliRunner().invoke, app, ["doctor", "--format", "json"])
    cli = orjson.loads(done.output)
    assert route["healthy"] is False and cli["healthy"] is False
    assert set(route) == set(cli) == {"healthy", "checked_at", "version", "counts", "checks"}
    assert _comparable(route) == _comparable(cli)
    assert route["counts"] == cli["counts"]


async def test_admin_route_is_404_when_the_admin_api_is_closed(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PKGINTEL_ADMIN_TOKEN")
    settings = Settings()
    async with build_runtime(settings, transport=httpx.MockTransport(refuse)) as runtime:
        api = create_app(settings, runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=api), base_url="http://test"
        ) as client:
            resp = await client.get(
                "/api/admin/doctor", headers={"Authorization": f"Bearer {TOKEN}"}
            )
    assert resp.status_code == 404
    assert resp.json() == {"detail": "Not Found"}
