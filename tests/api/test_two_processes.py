"""
Scale-out for real: two service processes on one PostgreSQL and one Redis. An advisory ingested by a
third process reaches an SSE subscriber of the second; a package fetched through the first is a cache
hit on the second (shared Redis cache); a name list loaded by the CLI is visible to both at once.
Runs where CI runs it (PKGINTEL_TEST_DATABASE_URL and PKGINTEL_TEST_REDIS_URL set).
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious
from tests.shared import SHARED_DATA, requires_shared

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow, requires_shared]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{url}: process exited with {proc.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    pytest.fail(f"{url} did not answer")


@pytest.fixture
def services(
    settings: Settings, runtime: Runtime, tmp_path: Path
) -> Iterator[tuple[str, str, dict]]:
    if not settings.database_url.startswith("postgresql") or not settings.redis_url:
        pytest.skip(
            "needs PostgreSQL and Redis (PKGINTEL_TEST_DATABASE_URL, PKGINTEL_TEST_REDIS_URL)"
        )
    reg_port = _free_port()
    registry = f"http://127.0.0.1:{reg_port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    env.update(
        {
            "PKGINTEL_DATABASE_URL": settings.database_url,
            "PKGINTEL_REDIS_URL": settings.redis_url,
            "PKGINTEL_UPSTREAM_NPM_URL": f"{registry}/npm",
            "PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL": f"{registry}/npm-downloads",
            "PKGINTEL_OSV_API_FALLBACK": "false",
            "PKGINTEL_MIGRATE_ON_START": "false",
            "PKGINTEL_LOG_LEVEL": "warning",
        }
    )
    procs = [
        subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [
                sys.executable,
                "-m",
                "tests.fake_registry",
                "--port",
                str(reg_port),
                "--shared",
                str(SHARED_DATA),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    bases = []
    try:
        _wait(registry + "/npm/lodash", procs[0])
        for _ in range(2):
            port = _free_port()
            proc = subprocess.Popen(  # noqa: S603
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "pkgintel.app:app_from_env",
                    "--factory",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--log-level",
                    "warning",
                ],
                cwd=ROOT,
                env=env,
            )
            procs.append(proc)
            base = f"http://127.0.0.1:{port}"
            _wait(base + "/api/health", proc)
            bases.append(base)
        yield bases[0], bases[1], env
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(15)


async def test_two_processes_share_events_cache_and_names(
    services: tuple[str, str, dict], runtime: Runtime, tmp_path: Path
) -> None:
    first, second, env = services
    async with httpx.AsyncClient(timeout=15) as client:
        # Shared cache: fetched through the first, a hit on the second.
        one = await client.get(f"{first}/api/check/npm/lodash")
        assert one.status_code == 200, one.text[:300]
        assert one.json()["_cache"] == "miss"
        two = await client.get(f"{second}/api/check/npm/lodash")
        assert two.json()["_cache"] == "hit"

        # Names loaded by the CLI: both processes see them within a few seconds.
        names = tmp_path / "names.tsv.gz"
        with gzip.open(names, "wt") as fh:
            fh.write("name\tversion\tdownloads\nscale-out-demo\t1.0.0\t10\n")
        await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                "-m",
                "pkgintel",
                "ingest",
                "names",
                "--ecosystem",
                "npm",
                "--from",
                str(names),
            ],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
        )
        for base in (first, second):
            for _ in range(50):
                answer = (await client.get(f"{base}/api/exists/npm/scale-out-demo")).json()
                if answer["exists"]:
                    break
                await asyncio.sleep(0.1)
            assert answer["exists"] is True, (base, answer)

        # Live feed: a subscriber of the second process gets an advisory ingested elsewhere
        # (the first ingestion of a feed is its baseline and announces nothing).
        baseline = [malicious("MAL-2099-899", "npm", "scale-out-base")]
        await ingest_records(runtime, tmp_path / "osv1", "osv-malicious", "npm", baseline)
        async with client.stream("GET", f"{second}/api/live/malicious") as response:
            lines = response.aiter_lines()
            async for line in lines:
                if line.startswith("event: hello"):
                    break
            started = time.monotonic()
            await ingest_records(
                runtime,
                tmp_path / "osv2",
                "osv-malicious",
                "npm",
                [*baseline, malicious("MAL-2099-900", "npm", "scale-out-bad")],
            )

            async def next_advisory() -> dict:
                async for line in lines:
                    if line.startswith("data:") and "vuln_id" in line:
                        return json.loads(line.removeprefix("data:").strip())
                raise AssertionError("stream ended")

            event = await asyncio.wait_for(next_advisory(), timeout=10)
        assert event["vuln_id"] == "MAL-2099-900"
        assert time.monotonic() - started < 5
