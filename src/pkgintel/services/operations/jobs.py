"""
The job system: `JobQueue` (enqueue, list, kill, logs) and `Worker` (claims and runs jobs).

Contract:
- A job is claimed by exactly one worker at a time (see `storage/ops.py` for how each database
  guarantees it) and runs under a lease that the worker's heartbeat pushes forward every
  `heartbeat_s`. Leases are timed by the database's clock, never the process's (`storage/ops.py`).
  A worker that dies (kill -9, crash, lost host) stops pushing; when the lease runs out any
  worker's `reap` moves the job back to `queued` while attempts remain, else to `failed`.
- A run is named by its worker and attempt number, and every write it makes (log lines, events,
  progress, heartbeat, its end) carries that token: once its lease lapsed and another attempt took
  the job over, its writes are refused. A handler's `JobContext` write then raises `LeaseLost`,
  which stops the handler (handlers that write their own data call `ctx.ensure_owner()` between
  batches); a worker whose heartbeat finds the job taken cancels its copy. The job's final state
  is the new owner's.
- A kind declared `JobKind(exclusive="<group>")` runs at most once at a time per group across
  every process: a job of a group waits in the queue while another job of that group runs.
- `kill` stops a queued job at once; a running job is flagged and its worker cancels it at the next
  heartbeat (within `heartbeat_s`), then records `killed` and takes the next job.
- Handlers get a `JobContext`: `log()` lines (the job's output, tailed by the cron log endpoint),
  `event()` for mission streams, `progress()`, and `charge()` for cost accounting.
- A handler ends its job `succeeded` by returning its result, `failed` by raising, and `partial`
  (or `failed`, keeping its result) by raising `JobIncomplete`. A job that ends `partial` or
  `failed` is logged at WARNING.
- A queued job is not claimed before its `scheduled_for` (delayed jobs: retries on a backoff).
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import functools
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.operations.ops import TERMINAL_JOB, Job, JobEvent, JobStatus, OpsNotFound
from pkgintel.storage.ops_base import OpsStore
from pkgintel.storage.outage import database

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class JobKilled(Exception):
    """Raised inside a handler's task when the job was killed (the task is cancelled)."""


class LeaseLost(Exception):
    """This run no longer holds its job (its lease lapsed and another attempt took it over): its
    writes are refused and it must stop."""

    def __init__(self, job_id: str, owner: tuple[str, int]) -> None:
        super().__init__(
            f"job {job_id}: attempt {owner[1]} on {owner[0]} lost its lease to another run"
        )
        self.job_id = job_id
        self.owner = owner


class JobIncomplete(PkgIntelError):
    """A run that ended but did not do all its work: the job ends `partial` when some of it was
    done (`partial=True`), else `failed`; `result` is stored either way and `message` is the
    job's error."""

    reason = "incomplete"

    def __init__(self, message: str, result: dict[str, Any], *, partial: bool) -> None:
        super().__init__(message)
        self.result = result
        self.partial = partial


class JobContext:
    """What a running handler may do: write its log and events, report progress, charge cost.

    With an `owner` (the run's worker id and attempt, set by the worker), every write applies
    only while that run holds the job and raises `LeaseLost` otherwise."""

    def __init__(
        self, store: OpsStore, job: Job, clock: Clock, *, owner: tuple[str, int] | None = None
    ) -> None:
        self._store = store
        self.job = job
        self._clock = clock
        self.owner = owner

    async def log(self, message: str, *, level: int = logging.INFO) -> None:
        """Append a line to the job's output and the process log (at `level`)."""
        await self.event("log", {"line": message})
        logger.log(level, "job %s (%s): %s", self.job.id, self.job.kind, message)

    async def event(self, kind: str, data: dict[str, Any]) -> int:
        event_id = await self._store.append_event(
            self.job.id, kind, data, now=self._clock(), owner=self.owner
        )
        if event_id is None:
            assert self.owner is not None  # only a fenced write is refused
            raise LeaseLost(self.job.id, self.owner)
        return event_id

    async def progress(self, step: str, done: int, total: int) -> None:
        await self.event("progress", {"step": step, "done": done, "total": total})

    async def charge(self, *, tokens: int = 0, requests: int = 0) -> None:
        """Record spent cost (whoever spent it: it was spent)."""
        await self._store.add_cost(self.job.id, tokens=tokens, requests=requests)

    async def still_owner(self) -> bool:
        """Whether this run still holds its job (always True without an owner)."""
        if self.owner is None:
            return True
        return await self._store.holds(self.job.id, *self.owner)

    async def ensure_owner(self) -> None:
        """Raise `LeaseLost` unless this run still holds its job: call it before writing data a
        job's new owner would write too (between batches, before recording an outcome)."""
        if not await self.still_owner():
            assert self.owner is not None
            raise LeaseLost(self.job.id, self.owner)


_WARN = frozenset({JobStatus.PARTIAL, JobStatus.FAILED})

Handler = Callable[[JobContext], Coroutine[Any, Any, dict[str, Any] | None]]
EndHook = Callable[[Job, JobStatus, str | None], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class JobKind:
    """A runnable kind of job: its handler and an optional hook called when a run ends
    (also when the reaper fails or kills it). `exclusive` names its exclusivity group: at most
    one job of the group runs at a time across every process (None: no limit)."""

    run: Handler
    on_end: EndHook | None = None
    max_attempts: int | None = None
    exclusive: str | None = None


class JobQueue:
    """Enqueue, read and kill jobs; shared by the API, the CLI and the workers."""

    def __init__(
        self,
        store: OpsStore,
        kinds: Mapping[str, JobKind],
        *,
        clock: Clock = utcnow,
        max_attempts: int = 3,
    ) -> None:
        self.store = store
        self.kinds = kinds
        self._clock = clock
        self._max_attempts = max_attempts

    def now(self) -> datetime:
        """The process's clock: enqueue times, cron occurrences, event times."""
        return self._clock()

    async def db_now(self) -> datetime:
        """The database's clock: leases, due times, retention."""
        return await self.store.db_now()

    @property
    def groups(self) -> dict[str, str]:
        """Exclusive kinds → their exclusivity group."""
        return {k: spec.exclusive for k, spec in self.kinds.items() if spec.exclusive}

    async def blocker(self, job: Job) -> Job | None:
        """The running job that keeps queued `job` waiting: one of its exclusivity group; None
        when its kind is not exclusive or its group is free."""
        group = self.groups.get(job.kind)
        if group is None:
            return None
        for kind in sorted(k for k, g in self.groups.items() if g == group):
            for other in await self.store.list_jobs(status=JobStatus.RUNNING.value, kind=kind):
                if other.id != job.id:
                    return other
        return None

    async def active(self, kind: str) -> Job | None:
        """A job of `kind` that is running, or queued and due (it will run next); None."""
        running = await self.store.list_jobs(status=JobStatus.RUNNING.value, kind=kind, limit=1)
        if running:
            return running[0]
        now = await self.db_now()
        queued = await self.store.list_jobs(status=JobStatus.QUEUED.value, kind=kind, limit=100)
        due = [j for j in queued if j.scheduled_for is None or j.scheduled_for <= now]
        return min(due, key=lambda j: (j.created_at, j.id)) if due else None

    async def prune(self, retention_days: float) -> tuple[int, int]:
        """Delete finished jobs older than `retention_days` with their events (see
        `storage/ops.py` for what is kept); returns (jobs, events) removed."""
        return await self.store.prune_jobs(older_than=timedelta(days=retention_days))

    async def enqueue(
        self,
        kind: str,
        payload: dict[str, Any] | None = None,
        *,
        job_id: str | None = None,
        dedupe_key: str | None = None,
        scheduled_for: datetime | None = None,
        max_attempts: int | None = None,
    ) -> Job | None:
        """Queue a job of a registered `kind`; None when `dedupe_key` was queued before."""
        spec = self.kinds.get(kind)
        if spec is None:
            raise OpsNotFound("job kind", kind)
        job_id = job_id or str(uuid.uuid4())
        attempts = max_attempts or spec.max_attempts or self._max_attempts
        created = await self.store.enqueue(
            job_id=job_id,
            kind=kind,
            payload=payload or {},
            max_attempts=attempts,
            now=self._clock(),
            dedupe_key=dedupe_key,
            scheduled_for=scheduled_for,
        )
        if not created:
            return None
        await self.store.append_event(
            job_id, "log", {"line": f"queued ({kind})"}, now=self._clock()
        )
        return await self.store.get_job(job_id)

    async def get(self, job_id: str) -> Job:
        found = await self.store.get_job(job_id)
        if found is None:
            raise OpsNotFound("job", job_id)
        return found

    async def list(
        self, *, status: str | None = None, kind: str | None = None, limit: int = 50
    ) -> builtins.list[Job]:
        return await self.store.list_jobs(status=status, kind=kind, limit=limit)

    async def kill(self, job_id: str) -> Job:
        """Kill a queued job now, or ask its worker to stop a running one. Idempotent."""
        job = await self.store.request_kill(job_id)
        if job is None:
            raise OpsNotFound("job", job_id)
        if job.status is JobStatus.KILLED and job.worker_id is None:
            await self._ended(job, JobStatus.KILLED, "killed before it started")
        return job

    async def log_tail(self, job_id: str, lines: int) -> builtins.list[JobEvent]:
        return await self.store.last_events(job_id, kind="log", limit=lines)

    async def events(
        self, job_id: str, *, after: int = 0, limit: int = 500
    ) -> builtins.list[JobEvent]:
        return await self.store.events(job_id, after=after, limit=limit)

    async def reap(self, alive: Sequence[str] = ()) -> builtins.list[tuple[Job, JobStatus]]:
        """Settle jobs whose worker stopped answering; see the module docstring. `alive`: ids of
        jobs the caller runs itself (never reaped by their own worker)."""
        moved = await self.store.expire_leases(alive=alive)
        for job, status in moved:
            line = (
                f"lease of worker {job.worker_id or '?'} expired; queued again "
                f"(attempt {job.attempts} of {job.max_attempts} used)"
                if status is JobStatus.QUEUED
                else f"lease expired; {status.value}: {job.error or ''}".rstrip(": ")
            )
            logger.warning("job %s (%s): %s", job.id, job.kind, line)
            await self.store.append_event(job.id, "log", {"line": line}, now=self._clock())
            if status in TERMINAL_JOB:
                await self._ended(job, status, job.error)
        return moved

    async def _ended(self, job: Job, status: JobStatus, error: str | None) -> None:
        spec = self.kinds.get(job.kind)
        if spec is not None and spec.on_end is not None:
            try:
                await spec.on_end(job, status, error)
            except Exception:
                logger.exception("end hook of job %s failed", job.id)

    async def counts(self) -> dict[str, int]:
        return await self.store.job_counts()


def default_worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


Tick = Callable[[], Awaitable[Any]]


class Worker:
    """
    Claims and runs jobs until `stop` is set: up to `concurrency` at once, polling every `poll_s`.
    Each loop also runs the reaper and the periodic `ticks` (the cron scheduler, the curator).
    """

    def __init__(
        self,
        queue: JobQueue,
        *,
        worker_id: str | None = None,
        kinds: Sequence[str] | None = None,
        concurrency: int = 1,
        poll_s: float = 1.0,
        heartbeat_s: float = 1.0,
        lease_s: float = 30.0,
        ticks: Sequence[Tick] = (),
    ) -> None:
        self.queue = queue
        self.worker_id = worker_id or default_worker_id()
        self.kinds = list(kinds) if kinds is not None else list(queue.kinds)
        self.concurrency = max(1, concurrency)
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self.lease_s = lease_s
        self.ticks = list(ticks)
        self.running: dict[str, asyncio.Task[None]] = {}
        self.wake = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
        """The worker loop. On `stop` (or cancellation), running jobs are cancelled and handed
        back: queued again while attempts remain, else failed."""
        logger.info("worker %s started (kinds: %s)", self.worker_id, ", ".join(self.kinds))
        try:
            while not stop.is_set():
                await self._housekeeping()
                try:
                    while len(self.running) < self.concurrency and await self.run_next():
                        pass
                except Exception as exc:  # the worker outlives a database outage
                    if database.classify(exc) is None:
                        logger.exception("claiming a job failed")
                self.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(_first(stop, self.wake), self.poll_s)
        finally:
            for task in list(self.running.values()):
                task.cancel()
            if self.running:
                await asyncio.gather(*self.running.values(), return_exceptions=True)
            logger.info("worker %s stopped", self.worker_id)

    async def _reap(self) -> None:
        await self.queue.reap(alive=list(self.running))

    async def _housekeeping(self) -> None:
        for step in (self._reap, *self.ticks):
            try:
                await step()
            except Exception as exc:
                if database.classify(exc) is not None:
                    continue  # said once per outage by the outage tracker
                if isinstance(exc, PkgIntelError):
                    logger.warning("worker housekeeping: %s", exc.message)
                else:
                    logger.exception("worker housekeeping failed")

    async def _claim(self) -> Job | None:
        return await self.queue.store.claim(
            worker_id=self.worker_id,
            kinds=self.kinds,
            lease_s=self.lease_s,
            groups=self.queue.groups,
        )

    async def run_next(self) -> bool:
        """Claim one job and start it in the background; False when nothing can start."""
        job = await self._claim()
        if job is None:
            return False
        task = asyncio.create_task(self._execute(job), name=f"job-{job.id}")
        self.running[job.id] = task
        task.add_done_callback(functools.partial(self._done, job.id))
        return True

    def _done(self, job_id: str, task: object = None) -> None:
        if self.running.get(job_id) is task:  # not a later attempt of the same job
            self.running.pop(job_id, None)
        self.wake.set()

    async def run_one(self) -> Job | None:
        """Claim one job and run it to its end in the foreground (CLI `jobs run`, tests)."""
        job = await self._claim()
        if job is None:
            return None
        await self._execute(job)
        return await self.queue.store.get_job(job.id)

    async def _execute(self, job: Job) -> None:
        try:
            await self._run(job)
        except LeaseLost as exc:
            logger.warning(
                "job %s (%s): attempt %d on %s lost its lease to another run; this copy stopped "
                "and wrote nothing more",
                job.id,
                job.kind,
                exc.owner[1],
                exc.owner[0],
            )

    async def _run(self, job: Job) -> None:
        store = self.queue.store
        spec = self.queue.kinds[job.kind]
        ctx = JobContext(store, job, self.queue.now, owner=(self.worker_id, job.attempts))
        await ctx.log(f"started on {self.worker_id} (attempt {job.attempts} of {job.max_attempts})")
        work: asyncio.Task[dict[str, Any] | None] = asyncio.create_task(spec.run(ctx))
        beat = asyncio.create_task(self._heartbeat(job, work))
        status, result, error = JobStatus.SUCCEEDED, None, None
        try:
            result = await work
        except asyncio.CancelledError:
            if beat.done() and beat.result() == "killed":
                status, error = JobStatus.KILLED, "killed"
            elif beat.done() and beat.result() == "lost":
                raise LeaseLost(job.id, (self.worker_id, job.attempts)) from None
            else:  # the worker itself is stopping
                work.cancel()
                await self._stopping(job, ctx)
                raise
        except LeaseLost:
            raise
        except JobIncomplete as exc:
            status = JobStatus.PARTIAL if exc.partial else JobStatus.FAILED
            result, error = exc.result, exc.message
        except PkgIntelError as exc:
            status, error = JobStatus.FAILED, exc.message
        except Exception as exc:
            logger.exception("job %s (%s) failed", job.id, job.kind)
            status, error = JobStatus.FAILED, f"{exc.__class__.__name__}: {exc}"[:2000]
        finally:
            if not beat.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(beat)
        await ctx.log(
            f"{status.value}" + (f": {error}" if error else ""),
            level=logging.WARNING if status in _WARN else logging.INFO,
        )
        if await store.finish(
            job.id, self.worker_id, job.attempts, status=status, result=result, error=error
        ):
            await self.queue._ended(job, status, error)
        else:
            raise LeaseLost(job.id, (self.worker_id, job.attempts))

    async def _stopping(self, job: Job, ctx: JobContext) -> None:
        """Hand a job back when this worker stops: queued again while attempts remain, else
        failed. Errors here are left to the lease expiry."""
        store = self.queue.store
        try:
            if job.attempts < job.max_attempts:
                await ctx.log(f"worker {self.worker_id} stopping; queued again")
                await store.release(job.id, self.worker_id, job.attempts)
                return
            error = f"worker {self.worker_id} stopped during the last attempt"
            await ctx.log(error)
            if await store.finish(
                job.id, self.worker_id, job.attempts, status=JobStatus.FAILED, error=error
            ):
                await self.queue._ended(job, JobStatus.FAILED, error)
        except LeaseLost:
            return
        except Exception:
            logger.warning("could not hand back job %s; its lease will expire", job.id)

    async def _heartbeat(self, job: Job, work: asyncio.Task[Any]) -> str:
        """Push the lease forward every `heartbeat_s` until `work` ends (never cancelled mid-write:
        it wakes as soon as `work` is done); cancel `work` on a kill request or a lost lease."""
        while True:
            await asyncio.wait({work}, timeout=self.heartbeat_s)
            if work.done():
                return "done"
            try:
                ours, kill = await self.queue.store.heartbeat(
                    job.id, self.worker_id, job.attempts, lease_s=self.lease_s
                )
            except Exception as exc:
                if database.classify(exc) is None:
                    logger.warning("heartbeat of job %s failed; retrying", job.id, exc_info=True)
                continue
            if not ours or kill:
                work.cancel()
                return "killed" if ours else "lost"


async def _first(*events: asyncio.Event) -> None:
    waits = [asyncio.create_task(e.wait()) for e in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
