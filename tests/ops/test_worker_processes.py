"""
Real `pkgintel worker` processes: two never run the same job twice, nor two jobs of one exclusive
kind at once; a worker killed with SIGKILL mid-job leaves its job to be retried (or failed),
visible in `pkgintel jobs list`; `pkgintel cron run` of a running job is refused.

The jobs are `ingest-names` runs over a generated local TSV (no network). Each test runs on
SQLite and, when `PKGINTEL_TEST_DATABASE_URL` is set, on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest

from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.services.operations.ops import Ops
from tests.conftest import PG_URL, reset_postgres

pytestmark = pytest.mark.slow

DBS = [pytest.param("sqlite", id="sqlite")]
if PG_URL:
    DBS.append(pytest.param("postgres", id="postgres", marks=pytest.mark.postgres))


def _names(path: Path, count: int) -> Path:
    lines = ["name\tversion\tdownloads_a_month\tsummary"]
    lines += [f"pkg-{i:07d}\t1.0.{i % 7}\t{count - i}\tgenerated" for i in range(count)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(params=DBS)
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        assert PG_URL
        await reset_postgres(PG_URL)
        return PG_URL
    return f"sqlite+aiosqlite:///{tmp_path / 'jobs.db'}"


def _env(db_url: str, names: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PKGINTEL_") or k == "PKGINTEL_SHARED_DATA"
    }
    env.update(
        {
            "PKGINTEL_DATABASE_URL": db_url,
            "PKGINTEL_NAME_LISTS": json.dumps({"npm": str(names)}),
            "PKGINTEL_INITIAL_INGEST": "false",
            "PKGINTEL_CRON_SCHEDULES": "{}",
            "PKGINTEL_CURATOR_ENABLED": "false",
            "PKGINTEL_JOB_POLL_S": "0.05",
            "PKGINTEL_JOB_HEARTBEAT_S": "0.2",
            "PKGINTEL_LOG_LEVEL": "warning",
            **extra,
        }
    )
    return env


@contextmanager
def _worker(env: dict[str, str], worker_id: str, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = cwd / f"{worker_id}.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(  # noqa: S603 (our own command line)
            [sys.executable, "-m", "pkgintel", "worker", "--id", worker_id, "--concurrency", "2"],
            env=env,
            cwd=cwd,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while f"worker {worker_id} running" not in log.read_text(errors="replace"):
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, "worker did not start"
            time.sleep(0.05)
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@asynccontextmanager
async def _ops(db_url: str, names: Path) -> AsyncIterator[Ops]:
    settings = Settings(
        _env_file=None,
        database_url=db_url,
        name_lists={"npm": str(names)},
        initial_ingest=False,
        cron_schedules={},
    )
    async with build_runtime(settings) as rt:
        assert rt.ops is not None
        yield rt.ops


async def _wait(predicate: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.1)


async def test_two_worker_processes_never_run_the_same_job_twice_nor_overlap_a_group(
    db_url: str, tmp_path: Path
) -> None:
    names = _names(tmp_path / "names.tsv", 3000)
    env = _env(db_url, names)
    async with _ops(db_url, names) as ops:
        with _worker(env, "w1", tmp_path), _worker(env, "w2", tmp_path):
            # Three exclusivity groups: the ingestion group and each retention slug its own.
            kinds = ["ingest-names", "usage-retention", "ingest-names", "contact-retention"] * 6
            ids = [(await ops.queue.enqueue(k)).id for k in kinds]  # type: ignore[union-attr]

            async def all_done() -> bool:
                states = [(await ops.queue.get(i)).status.value for i in ids]
                return all(s == "succeeded" for s in states)

            await _wait(all_done, 120)
        owners = set()
        runs: dict[str, list[tuple[Any, Any]]] = {}
        for job_id in ids:
            job = await ops.queue.get(job_id)
            runs.setdefault(job.kind, []).append((job.started_at, job.finished_at))
            assert job.attempts == 1, job
            starts = [
                e
                for e in await ops.queue.events(job_id)
                if e.data.get("line", "").startswith("started on")
            ]
            assert len(starts) == 1, [e.data for e in starts]
            owners.add(job.worker_id)
        assert owners == {"w1", "w2"}  # both took work, neither took the other's
        # Each kind is exclusive: by the database's clock no two runs of one kind overlapped,
        # although each worker could run two jobs at once.
        for kind, spans in runs.items():
            spans.sort()
            assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), (kind, spans)


async def test_kill_9_mid_job_leaves_it_retried_and_visible(db_url: str, tmp_path: Path) -> None:
    names = _names(tmp_path / "names.tsv", 150_000)
    env = _env(db_url, names, PKGINTEL_JOB_LEASE_S="3")
    async with _ops(db_url, names) as ops:
        job_id = (await ops.queue.enqueue("ingest-names")).id  # type: ignore[union-attr]
        with _worker(env, "doomed", tmp_path) as proc:

            async def running() -> bool:
                return (await ops.queue.get(job_id)).status.value == "running"

            await _wait(running, 60)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        await asyncio.sleep(3.5)  # past the 3 s lease
        listed = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "pkgintel", "jobs", "list", "--json"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        row = next(json.loads(line) for line in listed.stdout.splitlines() if job_id in line)
        assert row["status"] == "queued" and row["attempts"] == 1
        log = [e.data.get("line", "") for e in await ops.queue.events(job_id)]
        assert any("lease of worker doomed expired; queued again" in line for line in log)
        with _worker(env, "rescuer", tmp_path):

            async def done() -> bool:
                return (await ops.queue.get(job_id)).status.value == "succeeded"

            await _wait(done, 120)
        job = await ops.queue.get(job_id)
        assert (job.attempts, job.worker_id) == (2, "rescuer")
        result = job.result or {}
        assert result["outcome"] == "succeeded" and result["failed_feeds"] == []
        [feed] = result["feeds"]
        assert (feed["feed"], feed["status"], feed["records"]) == ("names:npm", "loaded", 150_000)


async def test_lease_expiry_on_the_last_attempt_fails_the_job(db_url: str, tmp_path: Path) -> None:
    from datetime import timedelta

    from pkgintel.domain.operations.ops import JobStatus
    from pkgintel.storage.ops import SqlOpsStore

    names = _names(tmp_path / "names.tsv", 10)
    async with _ops(db_url, names) as ops:
        assert isinstance(ops.store, SqlOpsStore)
        job = await ops.queue.enqueue("ingest-names", max_attempts=1)
        assert job is not None
        claimed = await ops.store.claim(worker_id="ghost", kinds=["ingest-names"], lease_s=1)
        assert claimed is not None and claimed.id == job.id
        ops.store.clock_offset = timedelta(seconds=2)  # the database's clock passes the lease
        moved = await ops.queue.reap()
        assert [(j.id, s.value) for j, s in moved] == [(job.id, "failed")]
        failed = await ops.queue.get(job.id)
        assert failed.status.value == "failed" and "lease expired" in (failed.error or "")
        # A late write of the dead worker is refused.
        assert not await ops.store.finish(job.id, "ghost", 1, status=JobStatus.SUCCEEDED)


async def test_cli_kills_a_queued_job_and_lists_cron(db_url: str, tmp_path: Path) -> None:
    names = _names(tmp_path / "names.tsv", 10)
    env = _env(db_url, names, PKGINTEL_CRON_SCHEDULES='{"warm-cache": "*/5 * * * *"}')
    async with _ops(db_url, names) as ops:
        job = await ops.queue.enqueue("ingest-names")
        assert job is not None

        def cli(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(  # noqa: S603
                [sys.executable, "-m", "pkgintel", *args],
                env={**env, "COLUMNS": "200"},
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )

        killed = await asyncio.to_thread(cli, "jobs", "kill", job.id)
        assert killed.returncode == 0 and f"{job.id}: killed" in killed.stdout
        assert (await ops.queue.get(job.id)).status.value == "killed"
        cron = await asyncio.to_thread(cli, "cron", "list")
        assert cron.returncode == 0
        assert "*/5 * * * *" in cron.stdout and "ingest-advisories" in cron.stdout
        missing = await asyncio.to_thread(cli, "jobs", "kill", "no-such-job")
        assert missing.returncode == 1
        # A manual run of a job that is running is refused; a group mate is queued behind it.
        running = await ops.queue.enqueue("ingest-names")
        assert running is not None
        assert await ops.store.claim(
            worker_id="scheduled", kinds=["ingest-names"], lease_s=60, groups=ops.queue.groups
        )
        again = await asyncio.to_thread(cli, "cron", "run", "ingest-names")
        assert again.returncode == 1
        assert f"ingest-names is already running as job {running.id}" in again.stderr
        mate = await asyncio.to_thread(cli, "cron", "run", "ingest-kev-epss")
        assert mate.returncode == 0, mate.stderr
        assert f"(queued behind job {running.id} (ingest-names))" in mate.stdout
