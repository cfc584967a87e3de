"""
A real pkgintel server for browser tests: uvicorn on a free local port, in a thread with its own
event loop, on a temporary SQLite database, every upstream answered by the replay registry of
recorded bodies (through the runtime's HTTP transport: nothing reaches the network). The seeded
data (`tests.web.seeding`) is in place before the first page is served, and `run()` executes a
coroutine on the server's loop (to publish an advisory while a page is open).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx
import uvicorn

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.worker_host import load_shipped
from tests.bodies import RECORDINGS
from tests.fake_registry import build
from tests.shared import SHARED_DATA
from tests.web.seeding import MaliciousFeed, seed_advisories, seed_history

T = TypeVar("T")

ADMIN_TOKEN = "browser-test-admin-token"
RECORDED = {
    "upstream_npm_url": "npm",
    "upstream_npm_downloads_url": "npm-downloads",
    "upstream_pypi_url": "pypi",
    "upstream_pypistats_url": "pypistats",
    "upstream_pypi_files_url": "pypi-files",
    "upstream_osv_api_url": "osv-api",
    "upstream_github_api_url": "github",
    "upstream_scorecard_url": "scorecard",
    "upstream_depsdev_url": "depsdev",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_settings(folder: Path) -> Settings:
    """Settings of the test server: every upstream at the replay registry (those without recorded
    bodies under a prefix that answers 404), the admin surface open with a known token."""
    upstreams = {
        name: f"http://registry.test/unrecorded/{name}"
        for name in Settings.model_fields
        if name.startswith("upstream_") and name.endswith("_url")
    }
    upstreams.update({name: f"http://registry.test/{p}" for name, p in RECORDED.items()})
    return Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{folder / 'web.db'}",
        ip_hash_secret="browser-test-secret",
        admin_token=ADMIN_TOKEN,
        feed_poll_s=0.2,
        **upstreams,
    )


class LiveServer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.runtime: Runtime | None = None
        self.feed: MaliciousFeed | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="web-test-server", daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by start()
            self._failure = exc

    async def _main(self) -> None:
        registry = build(SHARED_DATA if SHARED_DATA.is_dir() else None, extra=RECORDINGS)
        registry.osv_fail_with = 503
        settings = server_settings(self.folder)
        transport = httpx.ASGITransport(app=registry.app)
        async with build_runtime(settings, transport=transport) as runtime:
            self.runtime = runtime
            self._loop = asyncio.get_running_loop()
            await load_shipped(runtime, popularity=False)
            self.feed = await seed_advisories(runtime, self.folder / "feeds")
            await seed_history(runtime, Ecosystem.PYPI, "requests")
            app = create_app(settings, runtime=runtime)
            config = uvicorn.Config(
                app,
                host="127.0.0.1",
                port=self.port,
                log_level="warning",
                access_log=False,
                timeout_graceful_shutdown=2,
            )
            self._server = uvicorn.Server(config)
            await self._server.serve()

    def start(self, timeout: float = 60) -> None:
        self._thread.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._failure is not None:
                raise RuntimeError("the test server failed to start") from self._failure
            if self._server is not None and self._server.started:
                return
            time.sleep(0.05)
        raise RuntimeError(f"the test server did not start within {timeout} s")

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30) -> T:
        """Run `coro` on the server's event loop (where its runtime lives) and return its result."""
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        self._thread.join(30)
