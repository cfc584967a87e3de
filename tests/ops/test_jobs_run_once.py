"""
Jobs that run once (issue 28, item 11): a kind declared exclusive runs at most once at a time per
group across workers; a manual cron run of a running job is refused (409) and a group mate waits
behind it; leases are timed by the database's clock, not a process's; a run whose lease lapsed
cannot write after another took the job over (a stalled worker, a database blip); finished jobs are
pruned after `PKGINTEL_JOB_RETENTION_DAYS`, never a queued or running one. On SQLite and, when
`PKGINTEL_TEST_DATABASE_URL` is set, PostgreSQL (the `ops_runtime` fixture).
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from pkgintel.domain.operations.ops import Job, JobStatus, Mission, MissionStatus
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.jobs import JobContext, JobKind, JobQueue, LeaseLost, Worker
from pkgintel.storage.ops import SqlOpsStore
from tests.ops.conftest import wait_for


def _store(runtime: Runtime) -> SqlOpsStore:
    assert runtime.ops is not None and isinstance(runtime.ops.store, SqlOpsStore)
    return runtime.ops.store


@dataclass
class Tally:
    """How many jobs of each group run at this moment, and the most ever seen at once."""

    now: Counter[str] = field(default_factory=Counter)
    most: Counter[str] = field(default_factory=Counter)

    def kind(self, group: str, seconds: float = 0.15) -> JobKind:
        async def run(ctx: JobContext) -> dict[str, Any]:
            self.now[group] += 1
            self.most[group] = max(self.most[group], self.now[group])
            try:
                await asyncio.sleep(seconds)
            finally:
                self.now[group] -= 1
            return {"group": group}

        return JobKind(run=run, exclusive=None if group == "free" else group)


async def test_two_workers_never_run_two_jobs_of_one_exclusive_group_at_once(
    ops_runtime: Runtime,
) -> None:
    store = _store(ops_runtime)
    tally = Tally()
    # "ingest-a" and "ingest-b" share the group "ingestion"; "free" is not exclusive.
    kinds = {
        "ingest-a": tally.kind("ingestion"),
        "ingest-b": tally.kind("ingestion"),
        "free": tally.kind("free"),
    }
    queue = JobQueue(store, kinds)
    assert queue.groups == {"ingest-a": "ingestion", "ingest-b": "ingestion"}
    ids = []
    for kind in ("ingest-a", "ingest-b", "free", "ingest-a", "free", "ingest-b", "free"):
        job = await queue.enqueue(kind)
        assert job is not None
        ids.append(job.id)
    workers = [
        Worker(queue, worker_id=w, concurrency=3, heartbeat_s=0.1, poll_s=0.02, lease_s=30)
        for w in ("w1", "w2")
    ]
    stop = asyncio.Event()
    loops = [asyncio.create_task(w.run(stop)) for w in workers]

    async def all_done() -> bool:
        jobs = [await queue.get(i) for i in ids]
        return all(j.status is JobStatus.SUCCEEDED for j in jobs)

    try:
        await wait_for(all_done, 30)
    finally:
        stop.set()
        await asyncio.gather(*loops)
    assert tally.most["ingestion"] == 1  # never two of the group at once
    assert tally.most["free"] > 1  # the others are not held back
    # The database agrees: the group's runs (timed by its clock) never overlap.
    runs = sorted(
        (j.started_at, j.finished_at)
        for j in [await queue.get(i) for i in ids]
        if j.kind.startswith("ingest-")
    )
    assert all(
        a[1] is not None and b[0] is not None and a[1] <= b[0] for a, b in itertools.pairwise(runs)
    )


async def test_concurrent_claims_take_one_job_of_a_group(ops_runtime: Runtime) -> None:
    """Four claims at the same moment (each on its own connection: on PostgreSQL each `NOT EXISTS`
    sees its own snapshot) over three queued jobs of one group: exactly one runs."""
    store = _store(ops_runtime)
    tally = Tally()
    queue = JobQueue(store, {"snap": tally.kind("snapshots"), "free": tally.kind("free")})
    for _ in range(3):
        await queue.enqueue("snap")
    await queue.enqueue("free")
    claimed = await asyncio.gather(
        *(
            store.claim(worker_id=f"w{i}", kinds=["snap"], lease_s=30, groups=queue.groups)
            for i in range(4)
        )
    )
    assert sum(1 for c in claimed if c is not None) == 1
    running = await store.list_jobs(status="running")
    assert [(j.kind, j.attempts) for j in running] == [("snap", 1)]
    # A job of another kind is still claimed while the group is busy.
    other = await store.claim(
        worker_id="w9", kinds=["snap", "free"], lease_s=30, groups=queue.groups
    )
    assert other is not None and other.kind == "free"


async def test_a_manual_cron_run_of_a_running_job_is_409_and_a_group_mate_waits(
    ops_runtime: Runtime, admin: httpx.AsyncClient
) -> None:
    assert ops_runtime.ops is not None
    ops = ops_runtime.ops
    store = _store(ops_runtime)
    scheduled = await ops.queue.enqueue("ingest-names", {"trigger": "schedule"})
    assert scheduled is not None
    running = await store.claim(
        worker_id="scheduler", kinds=["ingest-names"], lease_s=60, groups=ops.queue.groups
    )
    assert running is not None and running.id == scheduled.id
    again = await admin.post("/api/admin/cron/run/ingest-names")
    assert again.status_code == 409, again.text
    problem = again.json()
    assert problem["type"].endswith("/already-running") and problem["job_id"] == scheduled.id
    assert f"ingest-names is already running as job {scheduled.id}" == problem["detail"]
    assert len(await ops.queue.list(kind="ingest-names")) == 1  # no copy queued
    # Another ingestion kind writes the same tables: it is queued behind the running one.
    mate = await admin.post("/api/admin/cron/run/ingest-advisories")
    assert mate.status_code == 202, mate.text
    body = mate.json()
    assert body["waiting_for"] == {"job_id": scheduled.id, "kind": "ingest-names"}
    assert body["status"] == "queued"
    kinds = ["ingest-names", "ingest-advisories"]
    assert (
        await store.claim(worker_id="w2", kinds=kinds, lease_s=30, groups=ops.queue.groups)
    ) is None
    # The queued manual run is "next": asking again is refused as well.
    twice = await admin.post("/api/admin/cron/run/ingest-advisories")
    assert twice.status_code == 409 and twice.json()["job_status"] == "queued"
    assert await store.finish(scheduled.id, "scheduler", 1, status=JobStatus.SUCCEEDED)
    after = await store.claim(worker_id="w2", kinds=kinds, lease_s=30, groups=ops.queue.groups)
    assert after is not None and after.id == body["job_id"]
    # The 409 is declared in the description.
    spec = (await admin.get("/openapi.json")).json()
    assert "409" in spec["paths"]["/api/admin/cron/run/{slug}"]["post"]["responses"]


async def test_a_skewed_process_clock_does_not_reap_a_live_lease(ops_runtime: Runtime) -> None:
    store = _store(ops_runtime)

    async def hold(ctx: JobContext) -> dict[str, Any]:
        await asyncio.sleep(60)
        return {}

    kinds = {"hold": JobKind(run=hold)}
    queue = JobQueue(store, kinds)
    skewed = JobQueue(store, kinds, clock=lambda: datetime.now(UTC) + timedelta(hours=1))
    job = await queue.enqueue("hold")
    assert job is not None
    claimed = await store.claim(worker_id="w1", kinds=["hold"], lease_s=30)
    assert claimed is not None and claimed.lease_until is not None
    db_now = await store.db_now()
    assert abs((claimed.lease_until - db_now).total_seconds() - 30) < 5
    # A process whose clock runs an hour ahead reaps nothing: the lease is the database's.
    assert await skewed.reap() == []
    assert (await skewed.get(job.id)).status is JobStatus.RUNNING
    # A skewed clock does not stretch a lease either: a worker an hour ahead takes 30 s.
    second = await skewed.enqueue("hold")
    assert second is not None
    other = await Worker(skewed, worker_id="w2", lease_s=30)._claim()
    assert other is not None and other.lease_until is not None
    assert abs((other.lease_until - await store.db_now()).total_seconds() - 30) < 5
    # When the database's clock passes the lease, any reaper moves it.
    store.clock_offset = timedelta(seconds=31)
    moved = await queue.reap()
    assert sorted((j.id, s) for j, s in moved) == sorted(
        [(job.id, JobStatus.QUEUED), (second.id, JobStatus.QUEUED)]
    )


class Blip:
    """A store whose heartbeats fail while `down` (a database blip); everything else passes."""

    def __init__(self, store: SqlOpsStore) -> None:
        self._store = store
        self.down = False

    async def heartbeat(self, *args: Any, **kwargs: Any) -> tuple[bool, bool]:
        if self.down:
            raise ConnectionError("database unreachable")
        return await self._store.heartbeat(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@dataclass
class Slow:
    """Attempt 1 waits for `go`, then writes a late log line; later attempts return at once."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)
    ended: list[str] = field(default_factory=list)

    async def run(self, ctx: JobContext) -> dict[str, Any]:
        if ctx.job.attempts > 1:
            await ctx.log(f"attempt {ctx.job.attempts} did the work")
            return {"run": ctx.job.attempts}
        self.started.set()
        try:
            await self.go.wait()
            await ctx.log("late line of attempt 1")
            await ctx.progress("late", 1, 1)
        except asyncio.CancelledError:
            self.ended.append("cancelled")
            raise
        except LeaseLost:
            self.ended.append("lease lost")
            raise
        self.ended.append("wrote")
        return {"run": 1}


async def _takeover(store: SqlOpsStore, queue: JobQueue, job: Job, taker: str) -> Job:
    """The first run's lease lapses by the database's clock; `taker` reaps it and runs it."""
    store.clock_offset += timedelta(seconds=10)
    moved = await queue.reap()
    assert [(j.id, s) for j, s in moved] == [(job.id, JobStatus.QUEUED)]
    done = await Worker(queue, worker_id=taker, heartbeat_s=0.1, lease_s=30).run_one()
    assert done is not None and done.id == job.id
    return done


def _assert_second_run_won(job: Job, events: list[str], taker: str) -> None:
    assert (job.status, job.attempts, job.worker_id) == (JobStatus.SUCCEEDED, 2, taker)
    assert job.result == {"run": 2}
    assert "late line of attempt 1" not in events
    assert events.count("succeeded") == 1
    assert events[-1] == "succeeded"


async def test_a_stalled_run_cannot_write_after_another_took_over(ops_runtime: Runtime) -> None:
    """The first worker stalls past its lease (no heartbeat); another — or the same worker, as a
    new attempt — takes the job over and finishes it; the first then wakes and tries to write."""
    store = _store(ops_runtime)
    for taker in ("w2", "w1"):
        slow = Slow()
        queue = JobQueue(store, {"slow": JobKind(run=slow.run, exclusive="slow")})
        job = await queue.enqueue("slow")
        assert job is not None
        stalled = Worker(queue, worker_id="w1", heartbeat_s=3600, lease_s=5)
        assert await stalled.run_next()
        await asyncio.wait_for(slow.started.wait(), 10)
        done = await _takeover(store, queue, job, taker)
        assert done.status is JobStatus.SUCCEEDED
        slow.go.set()  # the stalled run wakes up
        await asyncio.wait_for(asyncio.gather(*stalled.running.values()), 10)
        assert slow.ended == ["lease lost"]
        final = await queue.get(job.id)
        events = [e.data.get("line", "") for e in await queue.events(job.id)]
        _assert_second_run_won(final, events, taker)
        # Every write of the first run is refused: heartbeat, end, hand-back, events.
        assert await store.heartbeat(job.id, "w1", 1, lease_s=30) == (False, False)
        assert not await store.finish(job.id, "w1", 1, status=JobStatus.FAILED, error="late")
        assert not await store.release(job.id, "w1", 1)
        assert (
            await store.append_event(
                job.id, "log", {"line": "x"}, now=datetime.now(UTC), owner=("w1", 1)
            )
            is None
        )
        assert not await store.holds(job.id, "w1", 1)
        assert await queue.get(job.id) == final


async def test_a_database_blip_cancels_the_run_that_lost_its_job(ops_runtime: Runtime) -> None:
    """The first worker's heartbeats fail (a database blip) until its lease lapses and another
    worker takes the job over; its next heartbeat finds the job gone and cancels its copy."""
    store = _store(ops_runtime)
    blip = Blip(store)
    slow = Slow()
    kinds = {"slow": JobKind(run=slow.run)}
    queue = JobQueue(store, kinds)
    job = await queue.enqueue("slow")
    assert job is not None
    first = Worker(JobQueue(blip, kinds), worker_id="w1", heartbeat_s=0.05, lease_s=5)  # type: ignore[arg-type]
    assert await first.run_next()
    await asyncio.wait_for(slow.started.wait(), 10)
    blip.down = True
    done = await _takeover(store, queue, job, "w2")
    assert done.status is JobStatus.SUCCEEDED
    blip.down = False
    await asyncio.wait_for(asyncio.gather(*first.running.values()), 10)
    assert slow.ended == ["cancelled"]
    final = await queue.get(job.id)
    _assert_second_run_won(
        final, [e.data.get("line", "") for e in await queue.events(job.id)], "w2"
    )


async def test_finished_jobs_are_pruned_after_the_retention(ops_runtime: Runtime) -> None:
    assert ops_runtime.ops is not None
    ops = ops_runtime.ops
    store = _store(ops_runtime)

    async def noop(ctx: JobContext) -> dict[str, Any]:
        await ctx.log("did it")
        return {}

    queue = JobQueue(store, {"k": JobKind(run=noop), "mission": JobKind(run=noop)})
    worker = Worker(queue, worker_id="w", heartbeat_s=0.1, lease_s=30)
    old = []
    for _ in range(2):
        job = await queue.enqueue("k")
        assert job is not None
        assert (await worker.run_one()) is not None
        old.append(job.id)
    newest = await queue.enqueue("k")
    assert newest is not None
    await queue.kill(newest.id)  # killed: finished too, and the newest of its kind
    missions = []
    for _ in range(2):  # a mission's job keeps its cost and its events keep the mission's stream
        now = datetime.now(UTC)
        job = await queue.enqueue("mission")
        assert job is not None
        await store.insert_mission(Mission(job.id, "scout", {}, MissionStatus.SUCCEEDED, now, now))
        assert (await worker.run_one()) is not None
        missions.append(job.id)
    waiting = await queue.enqueue("k")
    held = await queue.enqueue("k")
    assert waiting is not None and held is not None
    # Forty days pass by the database's clock.
    store.clock_offset = timedelta(days=40)
    assert await store.claim(worker_id="busy", kinds=["k"], lease_s=3600) is not None
    assert await queue.prune(50) == (0, 0)  # nothing is 50 days old
    # The `job-retention` cron task (default 30 days) through a worker of the real queue.
    retention = await ops.cron.run("job-retention")
    done = await Worker(ops.queue, kinds=["job-retention"], lease_s=30).run_one()
    assert done is not None and done.id == retention.id
    assert done.status is JobStatus.SUCCEEDED, done.error
    assert done.result is not None and done.result["removed"] == 2
    assert done.result["events"] >= 2 * 3  # queued, started, did it, succeeded
    for job_id in old:
        assert await store.get_job(job_id) is None
        assert await store.events(job_id) == []
    kept = {j.id: j.status for j in await store.list_jobs(limit=100)}
    assert kept[newest.id] is JobStatus.KILLED
    assert sorted(s.value for i, s in kept.items() if i in (waiting.id, held.id)) == [
        "queued",
        "running",
    ]
    for job_id in missions:
        assert kept[job_id] is JobStatus.SUCCEEDED
        assert await store.events(job_id) != []
    assert kept[retention.id] is JobStatus.SUCCEEDED
