"""
`IngestionTracker`: each feed's latest outcome across ingestion runs, and the backoff retry of the
feeds that failed.

Contract:
- `record(job, report)` stores each feed's outcome of a run (`domain.operations.ingestion`) in the ops
  settings table (`ingest.feed:<feed>`), with the time, the job and, for a failing feed, since
  when and how many runs in a row it failed; and the run itself (`ingest.run:<job kind>`). Every
  process reads the same state: `/api/status` and `/api/health` show it.
- `failing()` names the configured feeds whose latest outcome is `failed`. A feed no longer
  configured is not reported.
- `schedule_retry(job, report)` queues one `ingest-retry` job of every failing feed when the run
  had failures (a retry: when any feed is still failing):
  after `retry_delay_s(attempt)` (1 min, 2, 4 ... capped at an hour by default), at most `limit`
  retries in a row. A chain of retries is keyed `ingest-retry:<first job>:<attempt>` (queued once
  however often it is asked), and a run outside the chain queues none while a retry is waiting:
  the waiting retry takes every failing feed. The chain stops when nothing fails any more.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from pkgintel.domain.operations.ingestion import FeedStatus, IngestReport, retry_delay_s
from pkgintel.domain.operations.ops import Job, JobStatus
from pkgintel.storage.ops_base import OpsStore

INGEST_RETRY = "ingest-retry"
"""The job kind that retries failed feeds (not a cron slug: queued by ingestion runs)."""

FEED_KEY = "ingest.feed:"
RUN_KEY = "ingest.run:"


class IngestionTracker:
    """Per-feed ingestion state and retries; see the module docstring."""

    def __init__(
        self,
        store: OpsStore,
        *,
        configured: Sequence[str],
        clock: Callable[[], datetime],
        retry_base_s: float = 60.0,
        retry_max_s: float = 3600.0,
        retry_limit: int = 48,
    ) -> None:
        self._store = store
        self.configured = tuple(configured)
        self._clock = clock
        self._base_s = retry_base_s
        self._max_s = retry_max_s
        self._limit = retry_limit

    async def record(self, job: Job, report: IngestReport) -> None:
        """Store each feed's outcome of `job`'s run, and the run's outcome."""
        now = self._clock()
        at = now.isoformat()
        for outcome in report.outcomes.values():
            key = FEED_KEY + outcome.feed
            previous = await self._store.get_setting(key) or {}
            state: dict[str, Any] = {
                **outcome.wire(),
                "at": at,
                "job_id": job.id,
                "job_kind": job.kind,
                "last_loaded_at": previous.get("last_loaded_at"),
                "failures": 0,
                "failing_since": None,
            }
            if outcome.status is FeedStatus.LOADED:
                state["last_loaded_at"] = at
            elif outcome.status is FeedStatus.FAILED:
                was_failing = previous.get("status") == FeedStatus.FAILED.value
                state["failures"] = int(previous.get("failures") or 0) + 1 if was_failing else 1
                state["failing_since"] = (
                    previous.get("failing_since") if was_failing else None
                ) or at
            await self._store.set_setting(key, state, now=now)
        await self._store.set_setting(
            RUN_KEY + job.kind,
            {
                "job_id": job.id,
                "kind": job.kind,
                "outcome": report.outcome.value,
                "at": at,
                "failed_feeds": report.wire()["failed_feeds"],
            },
            now=now,
        )

    async def feeds(self) -> dict[str, dict[str, Any]]:
        """Latest recorded state of each configured feed (a feed never tried is absent)."""
        stored = await self._store.settings_with_prefix(FEED_KEY)
        return {f: stored[f] for f in self.configured if isinstance(stored.get(f), dict)}

    async def failing(self) -> list[str]:
        """Configured feeds whose latest outcome is `failed`, in configuration order."""
        feeds = await self.feeds()
        return [f for f, s in feeds.items() if s.get("status") == FeedStatus.FAILED.value]

    async def pending_retry(self) -> dict[str, Any] | None:
        """The retry waiting to run (or running), if any: job id, time, attempt and feeds."""
        for status in (JobStatus.QUEUED, JobStatus.RUNNING):
            jobs = await self._store.list_jobs(status=status.value, kind=INGEST_RETRY, limit=1)
            if jobs:
                return _retry_wire(jobs[0])
        return None

    async def schedule_retry(self, job: Job, report: IngestReport) -> dict[str, Any] | None:
        """Queue the next retry of the failed feeds (see the module docstring); None when none is
        needed, retries are off or used up, or a retry is already waiting."""
        in_chain = job.kind == INGEST_RETRY
        if self._limit <= 0 or not (in_chain or report.failures):
            return None
        failed = await self.failing()
        if not failed:
            return None
        attempt = int(job.payload.get("attempt", 0)) + 1 if in_chain else 1
        if attempt > self._limit:
            return None
        if not in_chain and await self.pending_retry() is not None:
            return None
        chain = str(job.payload.get("chain") or job.id) if in_chain else job.id
        now = self._clock()
        due = now + timedelta(
            seconds=retry_delay_s(attempt, base_s=self._base_s, max_s=self._max_s)
        )
        retry_id = str(uuid.uuid4())
        payload = {"feeds": failed, "attempt": attempt, "chain": chain, "after": job.id}
        created = await self._store.enqueue(
            job_id=retry_id,
            kind=INGEST_RETRY,
            payload=payload,
            max_attempts=1,
            now=now,
            dedupe_key=f"{INGEST_RETRY}:{chain}:{attempt}",
            scheduled_for=due,
        )
        if not created:
            return None
        await self._store.append_event(
            retry_id,
            "log",
            {"line": f"queued ({INGEST_RETRY}) for {due.isoformat()}: {', '.join(failed)}"},
            now=now,
        )
        return {"job_id": retry_id, "at": due.isoformat(), "attempt": attempt, "feeds": failed}

    async def status(self) -> dict[str, Any]:
        """For `/api/status` and `/api/health`: `status` (`ok`, `partial` when some configured
        feeds are failing, `failed` when every feed tried is failing, None before any run),
        `failed_feeds` (feed, reason, since, failures in a row, location), every feed's state,
        the latest run of each ingestion kind and the next retry."""
        feeds = await self.feeds()
        failing = [
            {
                "feed": f,
                "reason": s.get("reason"),
                "location": s.get("location"),
                "failing_since": s.get("failing_since"),
                "failures": s.get("failures"),
                "last_loaded_at": s.get("last_loaded_at"),
            }
            for f, s in feeds.items()
            if s.get("status") == FeedStatus.FAILED.value
        ]
        tried = [s for s in feeds.values() if s.get("status") != FeedStatus.SKIPPED.value]
        if not feeds:
            state = None
        elif not failing:
            state = "ok"
        else:
            state = "failed" if len(failing) == len(tried) else "partial"
        runs = await self._store.settings_with_prefix(RUN_KEY)
        return {
            "status": state,
            "failed_feeds": failing,
            "feeds": list(feeds.values()),
            "runs": runs,
            "next_retry": await self.pending_retry(),
        }


def _retry_wire(job: Job) -> dict[str, Any]:
    return {
        "job_id": job.id,
        "status": job.status.value,
        "at": (job.scheduled_for or job.created_at).isoformat(),
        "attempt": job.payload.get("attempt"),
        "feeds": job.payload.get("feeds", []),
    }
