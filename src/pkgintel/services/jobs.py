"""
The job system: `JobQueue` (enqueue, list, kill, logs) and `Worker` (claims and runs jobs).

Contract:
- A job is claimed by exactly one worker at a time (see `storage/ops.py` for how each database
  guarantees it) and runs under a lease that the worker's heartbeat pushes forward every
  `heartbeat_s`. A worker that dies (kill -9, crash, lost host) stops pushing; when the lease runs
  out any worker's `reap` moves the job back to `queued` while attempts remain, else to `failed`.
  A job is therefore never lost and never run by two workers at once: a worker whose heartbeat
  finds the job no longer its own cancels its copy, and its late writes are refused.
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
from pkgintel.domain.ops import TERMINAL_JOB, Job, JobEvent, JobStatus, OpsNotFound
from pkgintel.storage.ops_base import OpsStore

logger = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utcnow() -> datetime:
    return datetime.now(UTC)


class JobKilled(Exception):
    """Raised inside a handler's task when the job was killed (the task is cancelled)."""


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
    """What a running handler may do: write its log and events, report progress, charge cost."""

    def __init__(self, store: OpsStore, job: Job, clock: Clock) -> None:
        self._store = store
        self.job = job
        self._clock = clock

    async def log(self, message: str, *, level: int = logging.INFO) -> None:
        """Append a line to the job's output and the process log (at `level`)."""
        logger.log(level, "job %s (%s): %s", self.job.id, self.job.kind, message)
        await self._store.append_event(self.job.id, "log", {"line": message}, now=self._clock())

    async def event(self, kind: str, data: dict[str, Any]) -> int:
        return await self._store.append_event(self.job.id, kind, data, now=self._clock())

    async def progress(self, step: str, done: int, total: int) -> None:
        await self.event("progress", {"step": step, "done": done, "total": total})

    async def charge(self, *, tokens: int = 0, requests: int = 0) -> None:
        await self._store.add_cost(self.job.id, tokens=tokens, requests=requests)


_WARN = frozenset({JobStatus.PARTIAL, JobStatus.FAILED})

Handler = Callable[[JobContext], Coroutine[Any, Any, dict[str, Any] | None]]
EndHook = Callable[[Job, JobStatus, str | None], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class JobKind:
    """A runnable kind of job: its handler and an optional hook called when a run ends
    (also when the reaper fails or kills it)."""

    run: Handler
    on_end: EndHook | None = None
    max_attempts: int | None = None


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
        return self._clock()

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
        job = await self.store.request_kill(job_id, now=self._clock())
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
        moved = await self.store.expire_leases(now=self._clock(), alive=alive)
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

    def _lease(self) -> datetime:
        return self.queue.now() + timedelta(seconds=self.lease_s)

    async def run(self, stop: asyncio.Event) -> None:
        """The worker loop. On `stop` (or cancellation), running jobs are cancelled and handed
        back: queued again while attempts remain, else failed."""
        logger.info("worker %s started (kinds: %s)", self.worker_id, ", ".join(self.kinds))
        try:
            while not stop.is_set():
                await self._housekeeping()
                while len(self.running) < self.concurrency and await self.run_next():
                    pass
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
            except PkgIntelError as exc:
                logger.warning("worker housekeeping: %s", exc.message)
            except Exception:
                logger.exception("worker housekeeping failed")

    async def run_next(self) -> bool:
        """Claim one job and start it in the background; False when nothing is queued."""
        job = await self.queue.store.claim(
            worker_id=self.worker_id,
            kinds=self.kinds,
            now=self.queue.now(),
            lease_until=self._lease(),
        )
        if job is None:
            return False
        task = asyncio.create_task(self._execute(job), name=f"job-{job.id}")
        self.running[job.id] = task
        task.add_done_callback(functools.partial(self._done, job.id))
        return True

    def _done(self, job_id: str, _task: object = None) -> None:
        self.running.pop(job_id, None)
        self.wake.set()

    async def run_one(self) -> Job | None:
        """Claim one job and run it to its end in the foreground (CLI `jobs run`, tests)."""
        job = await self.queue.store.claim(
            worker_id=self.worker_id,
            kinds=self.kinds,
            now=self.queue.now(),
            lease_until=self._lease(),
        )
        if job is None:
            return None
        await self._execute(job)
        return await self.queue.store.get_job(job.id)

    async def _execute(self, job: Job) -> None:
        store = self.queue.store
        spec = self.queue.kinds[job.kind]
        ctx = JobContext(store, job, self.queue.now)
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
                await ctx.log("lease lost to another worker; this copy stopped")
                return
            else:  # the worker itself is stopping
                work.cancel()
                await self._stopping(job, ctx)
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
            job.id, self.worker_id, status=status, now=self.queue.now(), result=result, error=error
        ):
            await self.queue._ended(job, status, error)

    async def _stopping(self, job: Job, ctx: JobContext) -> None:
        """Hand a job back when this worker stops: queued again while attempts remain, else
        failed. Errors here are left to the lease expiry."""
        try:
            if job.attempts < job.max_attempts:
                if await self.queue.store.release(job.id, self.worker_id):
                    await ctx.log(f"worker {self.worker_id} stopping; queued again")
                return
            error = f"worker {self.worker_id} stopped during the last attempt"
            await ctx.log(error)
            if await self.queue.store.finish(
                job.id, self.worker_id, status=JobStatus.FAILED, now=self.queue.now(), error=error
            ):
                await self.queue._ended(job, JobStatus.FAILED, error)
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
                    job.id, self.worker_id, now=self.queue.now(), lease_until=self._lease()
                )
            except Exception:
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
