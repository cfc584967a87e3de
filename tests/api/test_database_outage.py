"""
A database that cannot be reached, as callers see it: `503` problem+json with `Retry-After` at the
HTTP and MCP doors (never a 500, never an exception out of the app — uvicorn would log a traceback
per request and reset the keep-alive connection), one WARNING per outage and one INFO when the
database is back; `/readyz` says 503 meanwhile, `/livez` and `/api/health` keep their 200.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from pkgintel.storage.outage import database


class Stopped:
    """Refuses every new connection of an engine, as a stopped PostgreSQL does."""

    def __init__(self) -> None:
        self.down = False

    def __call__(self, *_args: Any) -> None:
        if self.down:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")


@pytest.fixture
async def stopped(runtime: Runtime) -> Iterator[Stopped]:
    engine = runtime.status.database.engine  # type: ignore[attr-defined]
    stop = Stopped()
    event.listen(engine.sync_engine, "do_connect", stop)
    yield stop
    stop.down = False
    event.remove(engine.sync_engine, "do_connect", stop)
    database.recovered()


async def _stop(runtime: Runtime, stop: Stopped) -> None:
    stop.down = True
    # Pooled connections die with the server: the next use must open a new one.
    await runtime.status.database.engine.dispose()  # type: ignore[attr-defined]


async def test_requests_needing_the_database_answer_503_with_retry_after(
    settings: Settings,
    runtime: Runtime,
    stopped: Stopped,
    caplog: pytest.LogCaptureFixture,
) -> None:
    app = create_app(settings, runtime=runtime)
    # raise_app_exceptions: an exception leaving the app (as uvicorn would see it) fails the test.
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        assert (await client.get("/api/history/npm/tiny-lib")).status_code == 200
        await _stop(runtime, stopped)
        caplog.clear()
        caplog.set_level(logging.INFO)
        for _ in range(30):
            for path in ("/api/history/npm/tiny-lib", "/api/vulns/npm/tiny-lib", "/api/status"):
                resp = await client.get(path)
                assert resp.status_code == 503, (path, resp.status_code, resp.text)
                assert resp.headers["content-type"] == "application/problem+json"
                assert int(resp.headers["retry-after"]) >= 1
                body = resp.json()
                assert body["type"].endswith("/database-unavailable") and body["retry_after"] >= 1
        ready = await client.get("/readyz")
        assert ready.status_code == 503 and "database" in ready.json()["detail"]
        assert ready.headers["retry-after"]
        assert (await client.get("/livez")).status_code == 200
        health = await client.get("/api/health")
        assert health.status_code == 200 and health.json()["ready"] is False
        stopped.down = False
        assert (await client.get("/api/history/npm/tiny-lib")).status_code == 200
        assert (await client.get("/readyz")).status_code == 200
    ours = [
        r for r in caplog.records if r.name.startswith("pkgintel") and r.name != "pkgintel.access"
    ]
    assert not [r for r in ours if r.exc_info], "no traceback per request"
    outage_lines = [
        (r.levelname, r.getMessage()) for r in ours if r.name == "pkgintel.storage.outage"
    ]
    assert [level for level, _ in outage_lines] == ["WARNING", "INFO"], outage_lines
    assert len(ours) < 20, [r.getMessage() for r in ours]


async def test_mcp_tool_answers_the_503_problem(
    settings: Settings, runtime: Runtime, stopped: Stopped
) -> None:
    from tests.mcp.test_mcp_arguments import connect

    async with connect(settings, runtime) as client:
        await _stop(runtime, stopped)
        result = await client.call_tool(
            "get_vulnerabilities", {"ecosystem": "npm", "package": "tiny-lib"}
        )
    assert result.is_error
    problem = result.structured_content
    assert problem is not None, result.content
    assert problem["status"] == 503 and problem["type"].endswith("/database-unavailable")
