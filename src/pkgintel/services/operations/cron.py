"""
Cron: whitelisted jobs on cron schedules (croniter), listed, tailed and run on demand.

`CRON_SLUGS` is the whitelist of what may ever be scheduled. A slug is *registered* when its task
exists in the code (`pkgintel/tasks/__init__.py` maps slug → handler); only registered slugs are
listed, run or scheduled, so an operator never sees a job that cannot do anything. Adding one is a
single line in that registry plus its schedule default in `Settings.cron_schedules`.

Scheduling: every worker calls `tick()` on each loop. For each registered slug the most recent
occurrence of its expression at or before now is enqueued with the dedupe key
`cron:<slug>:<occurrence>`, so however many workers tick, each occurrence runs once. Occurrences
before the scheduler started are not caught up (a fresh, empty database is filled by the initial
ingestion instead).

Overlap: every cron kind is exclusive (`JobKind.exclusive`: its own slug, or the `ingestion` group
the ingestion slugs share), so a scheduled run and a manual one never run at once in any process: a
job whose group is busy waits in the queue. A manual `run` of a slug that is already running, or
queued and due, is refused with `JobAlreadyRunning` (HTTP 409 naming that job) instead of queuing
a copy that would only repeat it; a slug whose *group* is busy with another slug is queued behind
it (the admin API says which job it waits for). Two manual runs asked at the same instant may both
be queued; they still run one after the other.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from croniter import croniter

from pkgintel.domain.operations.ops import Job, JobAlreadyRunning, OpsNotFound
from pkgintel.services.operations.jobs import JobQueue

CRON_SLUGS = (
    "ingest-advisories",
    "ingest-kev-epss",
    "ingest-names",
    "health-snapshots",
    "usage-retention",
    "contact-retention",
    "harvest-changelogs",
    "harvest-bugs",
    "warm-cache",
    "job-retention",
)
"""Every slug the cron API accepts once its task is registered."""


@dataclass(frozen=True, slots=True)
class CronEntry:
    slug: str
    expression: str
    description: str

    @property
    def enabled(self) -> bool:
        return self.expression != "off"


def valid_expression(expression: str) -> bool:
    return expression == "off" or bool(croniter.is_valid(expression))


class CronService:
    """List, tail and run the registered cron jobs; `tick` enqueues due occurrences."""

    def __init__(self, queue: JobQueue, entries: Mapping[str, CronEntry]) -> None:
        unknown = set(entries) - set(CRON_SLUGS)
        if unknown:
            raise ValueError(f"not whitelisted cron slugs: {sorted(unknown)}")
        for entry in entries.values():
            if not valid_expression(entry.expression):
                raise ValueError(f"cron {entry.slug}: invalid expression {entry.expression!r}")
        self._queue = queue
        self.entries = dict(entries)
        self._started = queue.now()
        self._seen: dict[str, datetime] = {}
        """Latest occurrence per slug this process already offered (skips needless inserts)."""

    def _entry(self, slug: str) -> CronEntry:
        entry = self.entries.get(slug)
        if entry is None:
            raise OpsNotFound("cron job", slug)
        return entry

    async def list(self) -> builtins.list[dict[str, Any]]:
        """Each job: expression, next run, last run, last status and duration."""
        now = self._queue.now()
        out = []
        for entry in self.entries.values():
            last = await self._queue.list(kind=entry.slug, limit=1)
            run = last[0] if last else None
            out.append(
                {
                    "slug": entry.slug,
                    "description": entry.description,
                    "expression": entry.expression,
                    "enabled": entry.enabled,
                    "next_run": croniter(entry.expression, now).get_next(datetime).isoformat()
                    if entry.enabled
                    else None,
                    "last_run": _iso(run.started_at or run.created_at) if run else None,
                    "last_status": run.status.value if run else None,
                    "last_duration_s": run.duration_s if run else None,
                    "last_job_id": run.id if run else None,
                }
            )
        return out

    async def log(self, slug: str, lines: int) -> dict[str, Any]:
        """Tail of the newest run's output (empty when it never ran)."""
        self._entry(slug)
        last = await self._queue.list(kind=slug, limit=1)
        if not last:
            return {"slug": slug, "job_id": None, "status": None, "lines": []}
        run = last[0]
        events = await self._queue.log_tail(run.id, lines)
        return {
            "slug": slug,
            "job_id": run.id,
            "status": run.status.value,
            "lines": [f"{e.created_at.isoformat()} {e.data.get('line', '')}" for e in events],
        }

    async def run(self, slug: str) -> Job:
        """Enqueue `slug` now (fire and forget); `JobAlreadyRunning` when a job of `slug` is
        running, or queued and due (see the module docstring)."""
        self._entry(slug)
        active = await self._queue.active(slug)
        if active is not None:
            raise JobAlreadyRunning(slug, active)
        job = await self._queue.enqueue(slug, {"trigger": "manual"})
        assert job is not None  # no dedupe key: always created
        return job

    async def tick(self) -> builtins.list[Job]:
        """Enqueue each enabled entry's latest due occurrence once (see the module docstring)."""
        now = self._queue.now()
        queued = []
        for entry in self.entries.values():
            if not entry.enabled:
                continue
            due: datetime = croniter(entry.expression, now).get_prev(datetime)
            if due < self._started or self._seen.get(entry.slug) == due:
                continue
            self._seen[entry.slug] = due
            job = await self._queue.enqueue(
                entry.slug,
                {"trigger": "schedule", "occurrence": due.isoformat()},
                dedupe_key=f"cron:{entry.slug}:{due.isoformat()}",
                scheduled_for=due,
            )
            if job is not None:
                queued.append(job)
        return queued


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None
