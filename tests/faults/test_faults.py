"""
Infrastructure faults under load, on real servers (issue 34): `pkgintel serve --workers 2` on
PostgreSQL + Redis with a mixed load on keep-alive connections; PostgreSQL is stopped and started,
then Redis. Asserted: no 500 and no reset connection, 503 with `Retry-After` for what needs the
database while it is away and 200 for `exists`, a few log lines (not one per request), upstream
calls per package bounded while Redis is away, no usage row lost. And an OSV ingestion whose
database stops mid-way reruns to the same content as a clean run.

Runs only where it can stop and start the servers: `PKGINTEL_TEST_PG_CTL` / `PKGINTEL_TEST_REDIS_CTL`
(commands taking `start` or `stop`, which `.ci/run` writes) beside the test database and Redis URLs.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.faults import harness
from tests.shared import requires_shared, shared_path

pytestmark = [
    pytest.mark.skipif(harness.missing() is not None, reason=str(harness.missing())),
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.faults,
]

RATE = 40.0


def test_database_and_redis_outages_under_load(tmp_path: Path) -> None:
    with harness.running_service(tmp_path) as service:
        load = harness.Load(service.base, service.registry, rate=RATE, log=service.log)
        asyncio.run(
            load.run(
                [
                    ("warm", 5.0, None),
                    ("pg-down", 6.0, lambda: harness.control("pg", "stop")),
                    ("pg-back", 5.0, lambda: harness.control("pg", "start")),
                    ("redis-down", 6.0, lambda: harness.control("redis", "stop")),
                    ("redis-back", 4.0, lambda: harness.control("redis", "start")),
                ]
            )
        )
        lines = load.phase_lines()
        calls = load.phase_upstream_calls()
    report = {phase: t.as_dict() for phase, t in load.tallies.items()}
    for phase, tally in load.tallies.items():
        assert not tally.transport_errors, (phase, report)
        assert not [k for k in tally.statuses if k.endswith(" 500")], (phase, report)
        assert tally.no_retry_after == 0, (phase, report)
    down = load.tally("pg-down").statuses
    assert down["vulns 503"] + down["check_bulk 503"] > 0, report
    # Answers that need no database keep working: exists of a name already answered (memory).
    assert down["exists 200"] > down["exists 503"], report
    assert not [k for k in load.tally("redis-down").statuses if not k.endswith(" 200")], report
    # Log volume: a few lines per outage and worker, never one per request.
    other = [line for phase in lines.values() for line in harness.non_access_lines(phase)]
    assert len(other) < 100, other[:20]
    assert not [line for line in other if "Traceback" in line], other[:20]
    # While Redis is away, each package is fetched at most once per worker (2 workers).
    assert max(calls.get("redis-down", {}).values(), default=0) <= 2, calls.get("redis-down")
    # No usage row lost: every answer that counts as a call is stored (after a graceful stop).
    recorded = sum(t.recordable for t in load.tallies.values())
    assert asyncio.run(harness.usage_rows()) == recorded


@requires_shared
def test_ingestion_whose_database_stops_mid_way_reruns_cleanly(tmp_path: Path) -> None:
    """`pkgintel ingest osv` on PostgreSQL; the database stops after some batches are committed;
    the run ends (non-zero, no hang); once the database is back a rerun completes, and the result
    is what one clean run gives."""
    assert harness.PG_URL
    harness._reset_database()
    export = shared_path("osv-malicious", "npm", "all.zip").parent.parent
    env = {
        **os.environ,
        "PKGINTEL_DATABASE_URL": harness.PG_URL,
        "PYTHONPATH": f"{harness.ROOT / 'src'}{os.pathsep}{harness.ROOT}",
    }
    command = [sys.executable, "-m", "pkgintel", "ingest", "osv", "--ecosystem", "npm"]
    command += ["--from", str(export)]
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 240
        while proc.poll() is None and time.monotonic() < deadline:
            if (asyncio.run(_records()) or 0) > 0:
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the ingestion finished before the database could be stopped"
        harness.control("pg", "stop")
        try:
            _, err = proc.communicate(timeout=120)
        finally:
            harness.control("pg", "start")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode not in (0, None), "an interrupted ingestion must not say it succeeded"
    assert b"Traceback" not in err, err[-2000:]
    left = asyncio.run(_records())
    rerun = subprocess.run(  # noqa: S603 - our own interpreter and module
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert rerun.returncode == 0, rerun.stderr[-2000:]
    total = asyncio.run(_records())
    added = int(re.search(r"added ([\d,]+)", rerun.stdout).group(1).replace(",", ""))  # type: ignore[union-attr]
    assert left is not None and 0 < left < total and added == total - left, rerun.stdout
    completed = asyncio.run(
        _scalar("SELECT count(*) FROM source_run WHERE completed_at IS NOT NULL")
    )
    assert completed == 1


async def _scalar(sql: str) -> int | None:
    from sqlalchemy import text

    from pkgintel.storage.sql import create_engine

    assert harness.PG_URL
    engine = create_engine(harness.PG_URL)
    try:
        async with engine.connect() as conn:
            return int((await conn.execute(text(sql))).scalar_one())
    except Exception:  # no table yet (migrations under way)
        return None
    finally:
        await engine.dispose()


async def _records() -> int | None:
    return await _scalar("SELECT count(*) FROM advisory_record")
