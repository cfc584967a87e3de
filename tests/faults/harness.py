"""
Fault harness: `pkgintel serve --workers 2` on PostgreSQL + Redis, a counting fake registry, a mixed
load of keep-alive clients, and stop/start of the database and of Redis while the load runs. Used by
`tests/faults/test_faults.py` (short) and `bench/bench_faults.py` (the issue's 150 requests/s, 20 s
and 30 s outages).

The servers are controlled through two executables given by the environment (`.ci/run` writes
them): `PKGINTEL_TEST_PG_CTL start|stop` and `PKGINTEL_TEST_REDIS_CTL start|stop`.

What is counted, per phase: answers by status (and whether each 503 carried `Retry-After`),
transport errors (a reset or closed keep-alive connection), the server's log lines other than
access-log lines, and the registry's calls per path. At the end, after a graceful stop: usage rows
stored against answers that should have been recorded.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[2]
PG_CTL = os.environ.get("PKGINTEL_TEST_PG_CTL")
REDIS_CTL = os.environ.get("PKGINTEL_TEST_REDIS_CTL")
PG_URL = os.environ.get("PKGINTEL_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("PKGINTEL_TEST_REDIS_URL")

PYPI = ("django", "requests", "flask", "urllib3", "pyyaml", "fastapi")
"""Packages with recorded PyPI bodies (`registry-fixtures/pypi-live`)."""
NPM = ("express", "axios", "react-dom", "next", "request")
UPSTREAMS = {
    "npm": "/npm",
    "npm_downloads": "/npm-downloads",
    "pypi": "/pypi",
    "pypistats": "/pypistats",
    "pypi_files": "/pypi-files",
    "osv_api": "/osv-api",
    "github_api": "/github",
    "scorecard": "/scorecard",
    "depsdev": "/depsdev",
}


def missing() -> str | None:
    """Why the harness cannot run here (None when it can)."""
    if not (PG_URL and REDIS_URL):
        return "needs PKGINTEL_TEST_DATABASE_URL and PKGINTEL_TEST_REDIS_URL"
    if not (PG_CTL and REDIS_CTL):
        return "needs PKGINTEL_TEST_PG_CTL and PKGINTEL_TEST_REDIS_CTL (start|stop commands; .ci/run sets them)"
    return None


def control(which: str, action: str) -> None:
    """`start` or `stop` the database (`pg`) or Redis (`redis`)."""
    command = PG_CTL if which == "pg" else REDIS_CTL
    assert command
    subprocess.run(  # noqa: S603 - the operator-given control command
        [command, action], check=True, timeout=60, capture_output=True
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_registry(port: int) -> None:
    """Entry point of the registry subprocess: the replay registry plus `GET /_hits`."""
    import uvicorn

    from tests.fake_registry import build
    from tests.shared import SHARED_DATA

    reg = build(SHARED_DATA if SHARED_DATA.is_dir() else None)
    reg.osv_fail_with = None

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/_hits":
            body = json.dumps(Counter(reg.hits)).encode()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": body})
            return
        await reg.app(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


async def _wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while True:
            try:
                if (await client.get(url, timeout=2.0)).status_code < 500:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer within {timeout:g} s")
            await asyncio.sleep(0.2)


@dataclass
class Service:
    """The registry and the service processes, and the service's log file."""

    base: str
    registry: str
    log: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def log_lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    async def hits(self) -> Counter[str]:
        async with httpx.AsyncClient() as client:
            return Counter((await client.get(f"{self.registry}/_hits")).json())


async def _flush_redis() -> None:
    from redis.asyncio import Redis

    assert REDIS_URL
    client = Redis.from_url(REDIS_URL)
    await client.flushdb()
    await client.aclose()


def _reset_database() -> None:
    import asyncio as aio

    from sqlalchemy import text

    from pkgintel.storage.sql import create_engine

    async def reset() -> None:
        assert PG_URL
        engine = create_engine(PG_URL)
        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
        await engine.dispose()

    aio.run(reset())


@contextmanager
def running_service(workdir: Path, *, workers: int = 2) -> Iterator[Service]:
    """Start the registry and `pkgintel serve --workers N` (a fresh database); stop both (SIGTERM,
    so the usage log is flushed) when the block ends."""
    assert PG_URL and REDIS_URL
    _reset_database()
    asyncio.run(_flush_redis())
    reg_port, port = free_port(), free_port()
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    registry = subprocess.Popen(  # noqa: S603 - our own interpreter
        [
            sys.executable,
            "-c",
            f"from tests.faults.harness import serve_registry; serve_registry({reg_port})",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_reg = f"http://127.0.0.1:{reg_port}"
    server_env = {
        **env,
        "PKGINTEL_DATABASE_URL": PG_URL,
        "PKGINTEL_REDIS_URL": REDIS_URL,
        "PKGINTEL_WORKER_EMBEDDED": "false",
        "PKGINTEL_INITIAL_INGEST": "false",
        "PKGINTEL_SHIPPED_POPULARITY": "false",
        "PKGINTEL_IP_HASH_SECRET": "fault-harness",
        "PKGINTEL_USAGE_FLUSH_INTERVAL_S": "1",
        # the load comes from one address; the faults are under test here, not the rate limits
        "PKGINTEL_RATE_LIMIT_ANONYMOUS": "1000000/minute",
        **{f"PKGINTEL_UPSTREAM_{k.upper()}_URL": base_reg + v for k, v in UPSTREAMS.items()},
    }
    log = workdir / "server.log"
    out = log.open("wb")
    server = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "pkgintel", "serve", "--workers", str(workers), "--port", str(port)],
        cwd=workdir,
        env=server_env,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    service = Service(f"http://127.0.0.1:{port}", base_reg, log, [server, registry])
    try:
        asyncio.run(_wait_http(f"{base_reg}/_hits", 30))
        asyncio.run(_wait_http(f"{service.base}/readyz", 180))
        yield service
    finally:
        for proc in service.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in service.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        out.close()


@dataclass
class Tally:
    """What the clients saw in one phase."""

    statuses: Counter[str] = field(default_factory=Counter)
    transport_errors: Counter[str] = field(default_factory=Counter)
    no_retry_after: int = 0
    recordable: int = 0
    """2xx/3xx answers of `/api/` routes: each one is a usage row."""

    @property
    def total(self) -> int:
        return sum(self.statuses.values()) + sum(self.transport_errors.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.total,
            "statuses": dict(sorted(self.statuses.items())),
            "transport_errors": dict(self.transport_errors),
            "503_without_retry_after": self.no_retry_after,
        }


def _requests() -> Iterator[tuple[str, str, str, Any]]:
    """(kind, method, path, json body) in an endless mix: exists, check_bulk, vulns, status."""
    pypi, npm = itertools.cycle(PYPI), itertools.cycle(NPM)
    bulk = {"items": [{"ecosystem": "pypi", "package": p} for p in PYPI[:3]]}
    while True:
        yield "exists", "GET", f"/api/exists/npm/{next(npm)}", None
        yield "vulns", "GET", f"/api/vulns/pypi/{next(pypi)}", None
        yield "check_bulk", "POST", "/api/check_bulk", bulk
        yield "exists", "GET", f"/api/exists/pypi/{next(pypi)}", None
        yield "vulns", "GET", f"/api/vulns/pypi/{next(pypi)}", None
        yield "status", "GET", "/api/status", None


class Load:
    """`rate` requests/s spread over `clients` keep-alive connections, tallied into `phase`."""

    def __init__(
        self,
        base: str,
        registry: str,
        *,
        rate: float,
        clients: int = 24,
        log: Path | None = None,
    ) -> None:
        self.base = base
        self.log = log
        self.registry = registry
        self.hit_marks: list[tuple[str, Counter[str]]] = []
        self.marks: list[tuple[str, int]] = []
        """(phase, server log lines so far) at each phase's start, and ("end", n) at the end."""
        self.rate = rate
        self.clients = clients
        self.phase = "warm"
        self.tallies: dict[str, Tally] = {}
        self._mix = _requests()

    def tally(self, phase: str) -> Tally:
        return self.tallies.setdefault(phase, Tally())

    async def _one(self, client: httpx.AsyncClient, queue: asyncio.Queue[None]) -> None:
        while True:
            await queue.get()
            kind, method, path, body = next(self._mix)
            tally = self.tally(self.phase)
            try:
                resp = await client.request(method, path, json=body)
            except httpx.TransportError as exc:
                tally.transport_errors[exc.__class__.__name__] += 1
                queue.task_done()
                continue
            queue.task_done()
            tally.statuses[f"{kind} {resp.status_code}"] += 1
            if resp.status_code == 503 and "retry-after" not in resp.headers:
                tally.no_retry_after += 1
            if resp.status_code < 400:
                tally.recordable += 1

    def _mark(self, phase: str) -> None:
        self.hit_marks.append((phase, Counter(httpx.get(f"{self.registry}/_hits").json())))
        if self.log is not None:
            self.marks.append((phase, len(self.log.read_text(errors="replace").splitlines())))

    def phase_lines(self) -> dict[str, list[str]]:
        """The server's log lines written during each phase (all of them, access log included)."""
        if self.log is None:
            return {}
        lines = self.log.read_text(errors="replace").splitlines()
        out: dict[str, list[str]] = {}
        for (phase, first), (_, last) in itertools.pairwise(self.marks):
            out.setdefault(phase, []).extend(lines[first:last])
        return out

    def phase_upstream_calls(self) -> dict[str, Counter[str]]:
        """Registry calls per path during each phase."""
        out: dict[str, Counter[str]] = {}
        for (phase, before), (_, after) in itertools.pairwise(self.hit_marks):
            out.setdefault(phase, Counter()).update(after - before)
        return out

    async def run(self, schedule: list[tuple[str, float, Any]]) -> None:
        """Run the load through `schedule`: (phase, seconds, action at its start or None)."""
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=int(self.rate))
        # An idle connection is dropped by the client before uvicorn's 5 s keep-alive timeout
        # (as a load balancer's idle timeout is set below the server's), so a request never races
        # the server closing an idle connection: what is counted as a reset is one.
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1, keepalive_expiry=4.0)
        clients = [
            httpx.AsyncClient(base_url=self.base, limits=limits, timeout=30.0)
            for _ in range(self.clients)
        ]
        workers = [asyncio.create_task(self._one(c, queue)) for c in clients]
        try:
            for phase, seconds, action in schedule:
                self._mark(phase)
                self.phase = phase
                if action is not None:
                    await asyncio.to_thread(action)
                end = time.monotonic() + seconds
                tick = 1.0 / self.rate
                next_at = time.monotonic()
                while time.monotonic() < end:
                    if not queue.full():
                        queue.put_nowait(None)
                    next_at += tick
                    await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            # Every request sent is answered (or fails) before the tally ends.
            await asyncio.wait_for(queue.join(), 30)
            self._mark("end")
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            for c in clients:
                await c.aclose()


def non_access_lines(lines: list[str]) -> list[str]:
    """The log lines other than the access log's (one per request, by design)."""
    return [line for line in lines if "pkgintel.access" not in line and '" 200 ' not in line]


async def usage_rows() -> int:
    """Usage rows stored (the database must be up)."""
    from sqlalchemy import text

    from pkgintel.storage.sql import create_engine

    assert PG_URL
    engine = create_engine(PG_URL)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(text("SELECT count(*) FROM usage_event"))).scalar_one())
    finally:
        await engine.dispose()
