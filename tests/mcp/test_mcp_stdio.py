"""
`pkgintel mcp` as a stdio server in a subprocess, driven by the official SDK client. The upstream
registry is the replay registry on a loopback socket (the subprocess cannot share our transport).
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from mcp import Client, StdioServerParameters

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.mcp.tools import TOOLS
from pkgintel.runtime.bootstrap import build_runtime
from tests.bodies import RECORDINGS
from tests.fake_registry import build

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def upstream() -> Iterator[str]:
    """The replay registry served by uvicorn in a thread on a free loopback port."""
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            build(None, extra=RECORDINGS).app, host="127.0.0.1", port=port, log_level="error"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def test_stdio_server_lists_and_answers_like_http(upstream: str, tmp_path: Path) -> None:
    env = {
        "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'stdio.db'}",
        "PKGINTEL_UPSTREAM_NPM_URL": f"{upstream}/npm",
        "PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL": f"{upstream}/npm-downloads",
        "PKGINTEL_UPSTREAM_PYPI_URL": f"{upstream}/pypi",
        "PKGINTEL_UPSTREAM_PYPISTATS_URL": f"{upstream}/pypistats",
        "PKGINTEL_OSV_API_FALLBACK": "false",
        "PKGINTEL_LOG_LEVEL": "warning",
    }
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "pkgintel", "mcp"], env=env, cwd=tmp_path
    )
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
        assert [t.name for t in tools] == [t.name for t in TOOLS]
        assert all(t.output_schema for t in tools)
        result = await client.call_tool(
            "get_latest_version", {"ecosystem": "npm", "package": "tiny-lib"}
        )
        missing = await client.call_tool(
            "package_exists", {"ecosystem": "npm", "package": "tiny-lib"}
        )
    assert not result.is_error, result.content
    settings = Settings(
        _env_file=None,
        database_url=env["PKGINTEL_DATABASE_URL"],
        upstream_npm_url=env["PKGINTEL_UPSTREAM_NPM_URL"],
        upstream_npm_downloads_url=env["PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL"],
        osv_api_fallback=False,
    )
    async with build_runtime(settings) as runtime:
        app = create_app(settings, runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000"
        ) as http:
            latest = (await http.get("/api/latest/npm/tiny-lib")).json()
            exists = (await http.get("/api/exists/npm/tiny-lib")).json()
    volatile = ("_cache", "_meta")  # _meta: each source's age ticks, and the HTTP call reads a copy
    got = {k: v for k, v in (result.structured_content or {}).items() if k not in volatile}
    assert got == {k: v for k, v in latest.items() if k not in volatile}
    assert {s["name"] for s in result.structured_content["_meta"]["sources"]} == {  # type: ignore[index]
        s["name"] for s in latest["_meta"]["sources"]
    }
    assert got["latest_version"] == "2.0.0"
    # The live report recorded the name as seen, in the same database the stdio server used.
    assert missing.structured_content == exists
