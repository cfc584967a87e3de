"""`OpsStore`: the persistence Protocol of the job system (implemented by `storage/ops.SqlOpsStore`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from pkgintel.domain.operations.ops import (
    CuratorDecision,
    Job,
    JobEvent,
    JobStatus,
    Mission,
    MissionStatus,
    Proposal,
    ProposalStatus,
)


class OpsStore(Protocol):
    """Jobs, events, missions, proposals, revisions, decisions, audit and settings; see
    `storage/ops.py` for the claim, exclusivity, database-clock, fencing and pruning guarantees.
    A run is named by (worker id, attempt): every write of a running job carries it."""

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
    ) -> bool: ...

    async def db_now(self) -> datetime: ...

    async def claim(
        self,
        *,
        worker_id: str,
        kinds: Sequence[str],
        lease_s: float,
        groups: Mapping[str, str] | None = None,
    ) -> Job | None: ...

    async def heartbeat(
        self, job_id: str, worker_id: str, attempt: int, *, lease_s: float
    ) -> tuple[bool, bool]: ...

    async def holds(self, job_id: str, worker_id: str, attempt: int) -> bool: ...

    async def finish(
        self,
        job_id: str,
        worker_id: str,
        attempt: int,
        *,
        status: JobStatus,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> bool: ...

    async def release(self, job_id: str, worker_id: str, attempt: int) -> bool: ...

    async def add_cost(self, job_id: str, *, tokens: int, requests: int) -> None: ...

    async def request_kill(self, job_id: str) -> Job | None: ...

    async def expire_leases(self, *, alive: Sequence[str] = ()) -> list[tuple[Job, JobStatus]]: ...

    async def prune_jobs(self, *, older_than: timedelta) -> tuple[int, int]: ...

    async def get_job(self, job_id: str) -> Job | None: ...

    async def list_jobs(
        self, *, status: str | None = None, kind: str | None = None, limit: int = 50
    ) -> list[Job]: ...

    async def job_counts(self) -> dict[str, int]: ...

    async def spent(self, since: datetime) -> tuple[int, int]: ...

    async def append_event(
        self,
        job_id: str,
        kind: str,
        data: dict[str, Any],
        *,
        now: datetime,
        owner: tuple[str, int] | None = None,
    ) -> int | None: ...

    async def events(
        self, job_id: str, *, after: int = 0, kinds: Sequence[str] | None = None, limit: int = 500
    ) -> list[JobEvent]: ...

    async def last_events(self, job_id: str, *, kind: str, limit: int) -> list[JobEvent]: ...

    async def insert_mission(self, m: Mission) -> None: ...

    async def get_mission(self, mission_id: str) -> Mission | None: ...

    async def list_missions(self, *, status: str | None, limit: int) -> list[Mission]: ...

    async def move_mission(
        self,
        mission_id: str,
        *,
        current: MissionStatus,
        to: MissionStatus,
        now: datetime,
        error: str | None = None,
        summary: dict[str, Any] | None = None,
    ) -> bool: ...

    async def recent_snapshots(self, limit: int) -> list[tuple[str, str]]: ...

    async def insert_proposal(self, p: Proposal) -> None: ...

    async def get_proposal(self, proposal_id: str) -> Proposal | None: ...

    async def list_proposals(self, *, status: str | None, limit: int) -> list[Proposal]: ...

    async def pending_oldest(self, limit: int) -> list[Proposal]: ...

    async def same_key(self, kind: str, key: str) -> list[Proposal]: ...

    async def move_proposal(
        self, proposal_id: str, *, current: ProposalStatus, to: ProposalStatus, **values: Any
    ) -> bool: ...

    async def current_revision(self, kind: str, key: str) -> tuple[int, int, Any] | None: ...

    async def write_revision(
        self, *, kind: str, key: str, payload: Any, proposal_id: str | None, now: datetime
    ) -> int: ...

    async def revert_revision(self, revision_id: int, *, now: datetime) -> bool: ...

    async def list_revisions(self, kind: str, key: str) -> list[dict[str, Any]]: ...

    async def add_decision(
        self, proposal_id: str, decision: str, reason: str, *, now: datetime
    ) -> None: ...

    async def decisions(self, limit: int) -> list[CuratorDecision]: ...

    async def audit(
        self, *, actor: str, method: str, path: str, status: int, detail: str | None, now: datetime
    ) -> None: ...

    async def audit_log(self, limit: int) -> list[dict[str, Any]]: ...

    async def get_setting(self, key: str) -> Any: ...

    async def set_setting(self, key: str, value: Any, *, now: datetime) -> None: ...

    async def settings_with_prefix(self, prefix: str) -> dict[str, Any]: ...
