"""
The job tables of `SqlOpsStore`: jobs and their events (`JobTables`), on SQLite or PostgreSQL.

Claiming a job is one `UPDATE ... WHERE id = (SELECT ... LIMIT 1) AND status = 'queued'
RETURNING *` statement. On PostgreSQL the inner select takes `FOR UPDATE SKIP LOCKED`, so
concurrent workers pass over each other's rows instead of waiting; on SQLite the statement runs
under the database's single write lock, so two processes cannot claim the same row either. A queued
job whose `scheduled_for` is still ahead is not claimed (a delayed retry waits for its time).

**Exclusive kinds.** `claim(groups=...)` names the exclusivity group of each exclusive kind. A job
of a group is not picked while a job of the same group is running (`NOT EXISTS` in the claim), and
the claim writes the group into `job.exclusive_group`, which a partial unique index keeps unique
among running rows: when two processes claim two jobs of one group at the same moment (PostgreSQL
evaluates each `NOT EXISTS` on its own snapshot), the second commit fails on the index and that
claim takes nothing (it is retried at once, passing over the busy group). A running job whose lease
lapsed still holds its group until the reaper settles it (every worker reaps before it claims).

**The database's clock.** Every time that decides a lease — the claim's `started_at` and
`lease_until`, heartbeats, `finished_at`, the reaper's "lease ran out", `scheduled_for` being due,
the pruning cutoff — is the database's, computed inside the statement that uses it
(`clock_timestamp()` on PostgreSQL, `strftime('%Y-%m-%d %H:%M:%f', 'now')` on SQLite, where every
process shares the host's clock), never the calling process's: a process with a skewed clock
neither reaps a live lease nor grants a short one, and a claim that waited for a lock never
records a start before the previous run's end. `clock_offset` is added to it: zero in
production, moved by tests to make time pass. Enqueue times and event times stay the caller's
(they are records, not deadlines).

**Fencing.** A run is identified by its worker and its attempt number (`attempts` grows on every
claim, so it is a fencing token). Every write of a running job — heartbeat, `finish`, `release`,
and events written with `owner=` — applies only while that run still holds the job (`worker_id`,
`attempts` and `status = 'running'` match): a run whose lease lapsed and whose job another attempt
took over (even on the same worker) cannot overwrite the new owner's state or add to its log.
Cost (`add_cost`) is recorded whoever spent it: it was spent.

**Pruning.** `prune_jobs` deletes finished jobs older than a retention, with their events; never a
queued or running one, never a mission's job (its row carries the mission's cost, its events the
mission's stream), never the newest finished job of each kind (the cron list and the status show
it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    DateTime,
    String,
    and_,
    case,
    delete,
    exists,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from pkgintel.domain.operations.ops import (
    TERMINAL_JOB,
    Job,
    JobEvent,
    JobStatus,
)
from pkgintel.storage.ops.base import OpsStoreBase, Owner
from pkgintel.storage.ops.rows import dumps, job_row, loads
from pkgintel.storage.sql import _aware, insert_for
from pkgintel.storage.tables import (
    job,
    job_event,
    mission,
)

_TERMINAL = [s.value for s in TERMINAL_JOB]
_CLAIM_TRIES = 3


class JobTables(OpsStoreBase):
    """Jobs (enqueue, claim, heartbeat, finish, reap, prune) and job events; see the module docstring."""

    @staticmethod
    def _held(job_id: str, owner: Owner) -> Any:
        worker_id, attempt = owner
        return and_(
            job.c.id == job_id,
            job.c.worker_id == worker_id,
            job.c.attempts == attempt,
            job.c.status == JobStatus.RUNNING.value,
        )

    # -- jobs ------------------------------------------------------------------------------
    async def enqueue(
        self,
        *,
        job_id: str,
        kind: str,
        payload: dict[str, Any],
        max_attempts: int,
        now: datetime,
        dedupe_key: str | None = None,
        scheduled_for: datetime | None = None,
    ) -> bool:
        values = {
            "id": job_id,
            "kind": kind,
            "payload": dumps(payload),
            "status": JobStatus.QUEUED.value,
            "attempts": 0,
            "max_attempts": max_attempts,
            "created_at": now,
            "kill_requested": False,
            "cost_tokens": 0,
            "cost_requests": 0,
            "scheduled_for": scheduled_for,
            "dedupe_key": dedupe_key,
        }
        if dedupe_key is None:
            async with self._engine.begin() as conn:
                await conn.execute(insert(job).values(**values))
            return True
        stmt = insert_for(self._dialect, job).values(**values).on_conflict_do_nothing()
        try:
            async with self._engine.begin() as conn:
                result = await conn.execute(stmt)
        except IntegrityError:
            return False
        return bool(result.rowcount)

    async def claim(
        self,
        *,
        worker_id: str,
        kinds: Sequence[str],
        lease_s: float,
        groups: Mapping[str, str] | None = None,
    ) -> Job | None:
        """Take the oldest queued job of one of `kinds` that is due (`scheduled_for` unset or not
        after the database's now) and whose exclusivity group (`groups`: kind → group; a kind
        not in it is not exclusive) has no running job; None when there is none. The lease runs
        `lease_s` seconds from the database's now."""
        for _ in range(_CLAIM_TRIES):
            try:
                return await self._claim(worker_id, kinds, lease_s, dict(groups or {}))
            except IntegrityError:
                continue  # another process took a job of the same group at the same moment
        return None

    async def _claim(
        self, worker_id: str, kinds: Sequence[str], lease_s: float, groups: dict[str, str]
    ) -> Job | None:
        groups = {k: g for k, g in groups.items() if k in kinds}
        cand, busy = job.alias("cand"), job.alias("busy")
        now = self._clock()
        pick = select(cand.c.id).where(
            cand.c.status == JobStatus.QUEUED.value,
            cand.c.kind.in_(list(kinds)),
            or_(cand.c.scheduled_for.is_(None), cand.c.scheduled_for <= now),
        )
        group_of: Any = null()
        if groups:
            pick = pick.where(
                ~exists().where(
                    busy.c.status == JobStatus.RUNNING.value,
                    busy.c.exclusive_group == case(groups, value=cand.c.kind, else_=null()),
                )
            )
            group_of = case(groups, value=job.c.kind, else_=null())
        pick = pick.order_by(cand.c.created_at, cand.c.id).limit(1)
        if self._dialect == "postgresql":
            pick = pick.with_for_update(skip_locked=True, of=cand)
        stmt = (
            update(job)
            .where(job.c.id == pick.scalar_subquery(), job.c.status == JobStatus.QUEUED.value)
            .values(
                status=JobStatus.RUNNING.value,
                worker_id=worker_id,
                attempts=job.c.attempts + 1,
                started_at=now,
                heartbeat_at=now,
                lease_until=self._clock(timedelta(seconds=lease_s)),
                finished_at=None,
                exclusive_group=group_of,
            )
            .returning(*job.c)
        )
        async with self._engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        return job_row(row) if row else None

    async def heartbeat(
        self, job_id: str, worker_id: str, attempt: int, *, lease_s: float
    ) -> tuple[bool, bool]:
        """Extend the lease of run (`worker_id`, `attempt`) to `lease_s` seconds from the
        database's now; returns (still ours, kill requested)."""
        stmt = (
            update(job)
            .where(self._held(job_id, (worker_id, attempt)))
            .values(heartbeat_at=self._clock(), lease_until=self._clock(timedelta(seconds=lease_s)))
            .returning(job.c.kill_requested)
        )
        async with self._engine.begin() as conn:
            row = (await conn.execute(stmt)).first()
        if row is None:
            return False, False
        return True, bool(row.kill_requested)

    async def holds(self, job_id: str, worker_id: str, attempt: int) -> bool:
        """Whether run (`worker_id`, `attempt`) still holds the job (no one took it over)."""
        stmt = select(job.c.id).where(self._held(job_id, (worker_id, attempt)))
        async with self._engine.connect() as conn:
            return (await conn.execute(stmt)).first() is not None

    async def finish(
        self,
        job_id: str,
        worker_id: str,
        attempt: int,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> bool:
        """Settle run (`worker_id`, `attempt`); False (nothing written) when it no longer holds
        the job."""
        stmt = (
            update(job)
            .where(self._held(job_id, (worker_id, attempt)))
            .values(
                status=status.value,
                finished_at=self._clock(),
                lease_until=None,
                result=dumps(result) if result is not None else None,
                error=error,
            )
        )
        async with self._engine.begin() as conn:
            return bool((await conn.execute(stmt)).rowcount)

    async def release(self, job_id: str, worker_id: str, attempt: int) -> bool:
        """Give a running job back to the queue (its worker is stopping); False if not ours."""
        stmt = (
            update(job)
            .where(self._held(job_id, (worker_id, attempt)))
            .values(status=JobStatus.QUEUED.value, worker_id=None, lease_until=None)
        )
        async with self._engine.begin() as conn:
            return bool((await conn.execute(stmt)).rowcount)

    async def add_cost(self, job_id: str, *, tokens: int, requests: int) -> None:
        stmt = (
            update(job)
            .where(job.c.id == job_id)
            .values(
                cost_tokens=job.c.cost_tokens + tokens,
                cost_requests=job.c.cost_requests + requests,
            )
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)

    async def request_kill(self, job_id: str) -> Job | None:
        """A queued job is killed at once; a running one is flagged for its worker."""
        async with self._engine.begin() as conn:
            await conn.execute(
                update(job)
                .where(job.c.id == job_id, job.c.status == JobStatus.QUEUED.value)
                .values(status=JobStatus.KILLED.value, finished_at=self._clock(), error="killed")
            )
            await conn.execute(
                update(job)
                .where(job.c.id == job_id, job.c.status == JobStatus.RUNNING.value)
                .values(kill_requested=True)
            )
            row = (await conn.execute(select(job).where(job.c.id == job_id))).first()
        return job_row(row) if row else None

    async def expire_leases(self, *, alive: Sequence[str] = ()) -> list[tuple[Job, JobStatus]]:
        """
        Running jobs whose lease ran out by the database's clock (their worker died or hung),
        except the `alive` ones: killed when a kill was asked for, queued again while attempts
        remain, else failed. Returns each (with the worker that lost it) and its new status.
        """
        out: list[tuple[Job, JobStatus]] = []
        now = self._clock()
        async with self._engine.begin() as conn:
            expired = and_(job.c.status == JobStatus.RUNNING.value, job.c.lease_until < now)
            if alive:  # jobs the calling worker is running itself: late heartbeats, not dead
                expired = and_(expired, job.c.id.notin_(list(alive)))
            moves: list[tuple[Any, dict[str, Any]]] = [
                (
                    and_(expired, job.c.kill_requested.is_(True)),
                    {"status": JobStatus.KILLED.value, "finished_at": now, "error": "killed"},
                ),
                (
                    and_(expired, job.c.attempts < job.c.max_attempts),
                    {"status": JobStatus.QUEUED.value, "worker_id": None, "lease_until": None},
                ),
                (
                    expired,
                    {
                        "status": JobStatus.FAILED.value,
                        "finished_at": now,
                        "lease_until": None,
                        "error": "the worker stopped answering (lease expired) on the last attempt",
                    },
                ),
            ]
            owners = dict(
                (await conn.execute(select(job.c.id, job.c.worker_id).where(expired))).all()
            )
            if not owners:
                return out
            for where, values in moves:
                rows = (
                    await conn.execute(update(job).where(where).values(**values).returning(*job.c))
                ).all()
                out.extend(
                    (replace(job_row(r), worker_id=owners.get(r.id)), JobStatus(values["status"]))
                    for r in rows
                )
        return out

    async def prune_jobs(self, *, older_than: timedelta) -> tuple[int, int]:
        """Delete the finished jobs that ended more than `older_than` ago by the database's
        clock, and their events (see the module docstring for what is kept); returns (jobs,
        events) removed."""
        newer = job.alias("newer")
        has_newer = exists().where(
            newer.c.kind == job.c.kind,
            newer.c.status.in_(_TERMINAL),
            or_(
                newer.c.created_at > job.c.created_at,
                and_(newer.c.created_at == job.c.created_at, newer.c.id > job.c.id),
            ),
        )
        removed_jobs = removed_events = 0
        async with self._engine.begin() as conn:
            stmt = select(job.c.id).where(
                job.c.status.in_(_TERMINAL),
                func.coalesce(job.c.finished_at, job.c.created_at) < self._clock(-older_than),
                job.c.id.notin_(select(mission.c.id)),
                has_newer,  # the newest finished job of each kind is kept
            )
            ids = list((await conn.execute(stmt)).scalars())
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                events = await conn.execute(delete(job_event).where(job_event.c.job_id.in_(chunk)))
                jobs = await conn.execute(
                    delete(job).where(job.c.id.in_(chunk), job.c.status.in_(_TERMINAL))
                )
                removed_events += events.rowcount or 0
                removed_jobs += jobs.rowcount or 0
        return removed_jobs, removed_events

    async def get_job(self, job_id: str) -> Job | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(job).where(job.c.id == job_id))).first()
        return job_row(row) if row else None

    async def list_jobs(
        self, *, status: str | None = None, kind: str | None = None, limit: int = 50
    ) -> list[Job]:
        stmt = select(job).order_by(job.c.created_at.desc(), job.c.id.desc()).limit(limit)
        if status:
            stmt = stmt.where(job.c.status == status)
        if kind:
            stmt = stmt.where(job.c.kind == kind)
        async with self._engine.connect() as conn:
            return [job_row(r) for r in (await conn.execute(stmt)).all()]

    async def job_counts(self) -> dict[str, int]:
        stmt = select(job.c.status, func.count()).group_by(job.c.status)
        async with self._engine.connect() as conn:
            return {r[0]: int(r[1]) for r in (await conn.execute(stmt)).all()}

    async def spent(self, since: datetime) -> tuple[int, int]:
        """Tokens and requests charged to jobs created since `since`."""
        stmt = select(
            func.coalesce(func.sum(job.c.cost_tokens), 0),
            func.coalesce(func.sum(job.c.cost_requests), 0),
        ).where(job.c.created_at >= since)
        async with self._engine.connect() as conn:
            row = (await conn.execute(stmt)).one()
        return int(row[0]), int(row[1])

    # -- job events ------------------------------------------------------------------------
    async def append_event(
        self,
        job_id: str,
        kind: str,
        data: dict[str, Any],
        *,
        now: datetime,
        owner: Owner | None = None,
    ) -> int | None:
        """Append an event; with `owner`, only while that run still holds the job (else nothing
        is written and None is returned)."""
        if owner is None:
            stmt = (
                insert(job_event)
                .values(job_id=job_id, kind=kind, created_at=now, data=dumps(data))
                .returning(job_event.c.id)
            )
        else:
            held = select(
                literal(job_id, String),
                literal(kind, String),
                literal(now, DateTime(timezone=True)),
                literal(dumps(data), String),
            ).where(exists().where(self._held(job_id, owner)))
            stmt = (
                insert(job_event)
                .from_select(["job_id", "kind", "created_at", "data"], held)
                .returning(job_event.c.id)
            )
        async with self._engine.begin() as conn:
            value = (await conn.execute(stmt)).scalar_one_or_none()
        return int(value) if value is not None else None

    async def events(
        self, job_id: str, *, after: int = 0, kinds: Sequence[str] | None = None, limit: int = 500
    ) -> list[JobEvent]:
        stmt = (
            select(job_event)
            .where(job_event.c.job_id == job_id, job_event.c.id > after)
            .order_by(job_event.c.id)
            .limit(limit)
        )
        if kinds:
            stmt = stmt.where(job_event.c.kind.in_(list(kinds)))
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            JobEvent(r.id, r.job_id, r.kind, _aware(r.created_at), loads(r.data) or {})
            for r in rows
        ]

    async def last_events(self, job_id: str, *, kind: str, limit: int) -> list[JobEvent]:
        """The newest `limit` events of `kind`, oldest first."""
        stmt = (
            select(job_event)
            .where(job_event.c.job_id == job_id, job_event.c.kind == kind)
            .order_by(job_event.c.id.desc())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            JobEvent(r.id, r.job_id, r.kind, _aware(r.created_at), loads(r.data) or {})
            for r in reversed(rows)
        ]
