"""The last fuzzing findings: an ecosystem without compatibility rules is a 422 naming the supported
ones (never 501), at every door; and a long `GET /api/error?code=` is the app's own declared 422,
never the server's bare 400 for a request head too large to read (checked over a real socket)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import uvicorn

from pkgintel.api.routes.errors import MAX_QUERY_CHARS
from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from tests.mcp.test_mcp_arguments import connect


@pytest.mark.parametrize("ecosystem", ["jsr", "nuget", "hex"])
async def test_compat_for_an_ecosystem_without_rules_is_422(
    client: httpx.AsyncClient, ecosystem: str
) -> None:
    post = await client.post(
        "/api/compat", json={"ecosystem": ecosystem, "packages": {"a": "1.0.0", "b": "2.0.0"}}
    )
    get = await client.get(
        "/api/compat", params={"stack": "a@1.0.0,b@2.0.0", "ecosystem": ecosystem}
    )
    for resp in (post, get):
        assert resp.status_code == 422, resp.text
        [error] = resp.json()["detail"]
        assert error["loc"][-1] == "ecosystem"
        assert "npm, pypi, rubygems, composer, maven, cargo only" in error["msg"]
        assert ecosystem in error["msg"]


async def test_compat_tool_says_the_same(settings: Settings, runtime: Runtime) -> None:
    async with connect(settings, runtime) as mcp:
        result = await mcp.call_tool(
            "check_compatibility", {"packages": {"a": "1.0.0", "b": "2.0.0"}, "ecosystem": "jsr"}
        )
    assert result.is_error
    problem = result.structured_content or {}
    assert problem["status"] == 422 and problem["field"] == "ecosystem"
    assert "npm, pypi, rubygems, composer, maven, cargo only" in problem["detail"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    """The app behind uvicorn's default HTTP parser on a loopback socket (what a fuzzer meets)."""
    settings = Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'served.db'}",
        initial_ingest=False,
        worker_embedded=False,
        upstream_osv_api_url="http://127.0.0.1:9/osv",
    )
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.mark.slow
def test_longest_error_query_is_answered_and_longer_is_the_apps_422(served: str) -> None:
    widest = "😀" * MAX_QUERY_CHARS  # 12 bytes per character once percent-encoded
    with httpx.Client(base_url=served, timeout=30) as http:
        ok = http.get(f"/api/error?q={quote(widest)}&code={quote(widest)}&limit=1")
        assert ok.status_code == 200, ok.text[:300]
        too_long = http.get(f"/api/error?code={quote(widest + '😀')}")
        assert too_long.status_code == 422, too_long.text[:300]
        assert too_long.json()["detail"][0]["loc"] == ["query", "code"]
