"""
The event loop never freezes: while one ~5 MB lockfile is scanned, a sampler measures how late the
loop wakes it (loop lag) and `/api/exists` keeps answering (p99 ≤ 50 ms). Before matching and
summarising moved off the loop (in slices and threads), one such scan blocked it for 0.55-0.81 s.
"""

from __future__ import annotations

import asyncio
import gc
import json
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.accounts.limits import RateLimiter
from tests.osv_records import ingest_records, record

MAX_LAG_S = 0.25
"""Measured 28-37 ms here (70 ms before the audit shared its source statuses and planned only
vulnerable packages, in slices; 1.1 s before that); the bound leaves room for a loaded CI machine."""
EXISTS_P99_S = 0.05


def _big_lockfile(target_bytes: int) -> str:
    packages: dict[str, dict[str, object]] = {"": {"name": "big-app", "version": "1.0.0"}}
    i = 0
    while True:
        name = f"dep-{i:06d}"
        packages[f"node_modules/{name}"] = {
            "version": f"1.{i % 50}.{i % 7}",
            "resolved": f"https://registry.npmjs.org/{name}/-/{name}-1.{i % 50}.{i % 7}.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
            "license": "MIT",
        }
        i += 1
        if i % 1000 == 0 and len(json.dumps(packages)) > target_bytes:
            break
    return json.dumps({"name": "big-app", "lockfileVersion": 3, "packages": packages})


@pytest.mark.slow
@pytest.mark.usefixtures("frozen_heap")
async def test_loop_keeps_answering_during_a_5mb_scan(
    settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    if settings.database_url.startswith("postgresql"):
        pytest.skip("timing is measured once, on the default backend")
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "npm",
        [
            record(f"GHSA-lag-{i}", "npm", f"dep-{i:06d}", events=[{"introduced": "0"}])
            for i in range(0, 30000, 97)
        ],
    )
    await runtime.names.ingest(
        Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "lodash", "lodash")], source="test"
    )
    lockfile = _big_lockfile(4_600_000)
    body = json.dumps({"lockfile": lockfile, "filename": "package-lock.json"}).encode()
    assert len(body) > 4_500_000
    app = create_app(settings, runtime=runtime)
    # The prober asks every 10 ms for the whole scan: more than the anonymous limit allows.
    assert runtime.accounts is not None
    policy = runtime.accounts.limiter.policy
    runtime.accounts.limiter = RateLimiter(
        replace(policy, anonymous=replace(policy.anonymous, limit="100000/minute"))
    )
    # As `pkgintel serve` does once started: what lives as long as the process leaves the
    # collector's reach (here also the test runner's own heap).
    gc.collect()
    gc.freeze()
    lags: list[float] = []
    latencies: list[float] = []
    done = asyncio.Event()

    async def sampler() -> None:
        while not done.is_set():
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            lags.append(time.perf_counter() - before - 0.005)

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t", timeout=120
    ) as client:
        await client.get("/api/exists/npm/lodash")  # warm

        async def prober() -> None:
            while not done.is_set():
                started = time.perf_counter()
                resp = await client.get("/api/exists/npm/lodash")
                latencies.append(time.perf_counter() - started)
                assert resp.status_code == 200
                await asyncio.sleep(0.01)

        async def scan() -> httpx.Response:
            try:
                return await client.post(
                    "/api/scan", content=body, headers={"content-type": "application/json"}
                )
            finally:
                done.set()

        tasks = [asyncio.create_task(sampler()), asyncio.create_task(prober())]
        resp = await scan()
        await asyncio.gather(*tasks)
    gc.unfreeze()
    assert resp.status_code == 200, resp.text[:500]
    summary = resp.json()["summary"]
    assert summary["packages"] > 15000 and summary["vulnerable_packages"] > 100
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(
        f"scan of {len(body):,} bytes: max loop lag {max(lags) * 1000:.1f} ms over {len(lags)} "
        f"samples; /api/exists p99 {p99 * 1000:.1f} ms over {len(latencies)} requests"
    )
    assert max(lags) < MAX_LAG_S
    assert p99 <= EXISTS_P99_S
