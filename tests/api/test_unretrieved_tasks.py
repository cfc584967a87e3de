"""No task's exception goes unretrieved: when an upstream fails beside another (the downloads host
beside the registry, one lookup of many), the failure is answered as unavailable and at most logged
as one WARNING line, never by asyncio's `Task exception was never retrieved` traceback."""

from __future__ import annotations

import asyncio
import gc
import gzip
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fake_registry import ReplayRegistry

REACT = Path(__file__).resolve().parents[1] / "recordings" / "npm" / "react.json.gz"


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    registry.add("https://registry.npmjs.org/react", gzip.decompress(REACT.read_bytes()))
    # The downloads hosts fail a little after the registries answered: a downloads lookup started
    # beside a registry fetch that ends first (a missing version) fails with nobody waiting for it.
    registry.fail_prefixes["/pypistats"] = 429
    registry.fail_prefixes["/npm-downloads"] = 429
    registry.slow_prefixes["/pypistats"] = 0.1
    registry.slow_prefixes["/npm-downloads"] = 0.1
    return registry


async def _collect(seen: list[dict[str, Any]]) -> None:
    await asyncio.sleep(0.3)  # the downloads lookups end
    for _ in range(3):
        gc.collect()
        await asyncio.sleep(0)


def _record(seen: list[dict[str, Any]]) -> None:
    asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: seen.append(ctx))


def _asyncio_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "asyncio"]


def _upstream_failures_are_one_line_each(caplog: pytest.LogCaptureFixture) -> None:
    """Every upstream failure is one WARNING line (`pkgintel.transport.upstream`), without a traceback."""
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in warnings if r.exc_info or r.stack_info] == []
    failed = [r.getMessage() for r in warnings if r.name == "pkgintel.transport.upstream"]
    assert all(re.match(r"upstream failed: (GET|POST) http\S+: \S", m) for m in failed), failed
    assert all("\n" not in r.getMessage() for r in warnings)


async def test_compat_with_failing_downloads_leaves_no_unretrieved_task(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[dict[str, Any]] = []
    _record(seen)
    caplog.set_level(logging.WARNING)
    # Versions PyPI does not have: each registry fetch ends (version not found) while the
    # downloads lookup started beside it is still running, then fails.
    resp = await client.post(
        "/api/compat",
        json={"packages": {"flask": "99.0.0", "werkzeug": "98.0"}, "ecosystem": "pypi"},
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["compatible"] is None
    # No ecosystem given: the service asks both npm and PyPI whether every version exists.
    resp = await client.get("/api/compat", params={"packages": "react@18.2.0,left-pad@1.3.0"})
    assert resp.status_code in (200, 422), resp.text
    await _collect(seen)
    assert [c.get("message") for c in seen] == []
    assert _asyncio_errors(caplog) == []
    _upstream_failures_are_one_line_each(caplog)


async def test_report_with_failing_downloads_leaves_no_unretrieved_task(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[dict[str, Any]] = []
    _record(seen)
    caplog.set_level(logging.WARNING)
    for path in (
        "/api/check/pypi/flask?version=97.1",
        "/api/check/pypi/no-such-project-x",
        "/api/check/npm/react?version=99.0.0",
        "/api/check/npm/react",
    ):
        resp = await client.get(path)
        assert resp.status_code in (200, 404), resp.text
    await _collect(seen)
    assert [c.get("message") for c in seen] == []
    assert _asyncio_errors(caplog) == []
    _upstream_failures_are_one_line_each(caplog)
    if "downloads" in caplog.text:  # the report waited for them: they failed, once each
        assert "api.npmjs.org answered 429" in caplog.text


async def test_an_upstream_failure_is_one_warning_line(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    resp = await client.get("/api/latest/npm/react")
    assert resp.status_code == 200, resp.text
    weekly = [
        r
        for r in caplog.records
        if r.levelno >= logging.WARNING and "/npm-downloads/downloads/point/" in r.getMessage()
    ]
    assert [(r.name, r.levelname, r.exc_info) for r in weekly] == [
        ("pkgintel.transport.upstream", "WARNING", None)
    ]
    assert weekly[0].getMessage().endswith("api.npmjs.org answered 429")
