"""
Rows of the operations tables as domain values (`Job`, `Mission`, `Proposal`), and the JSON and
time conversions every ops table uses. Pure functions of a row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

from pkgintel.domain.operations.ops import (
    Job,
    JobStatus,
    Mission,
    MissionStatus,
    Proposal,
    ProposalStatus,
)
from pkgintel.storage.sql import _aware


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def loads(value: str | None) -> Any:
    return orjson.loads(value) if value else None


def optional_dt(value: datetime | None) -> datetime | None:
    return _aware(value) if value is not None else None


def job_row(row: Any) -> Job:
    return Job(
        id=row.id,
        kind=row.kind,
        payload=loads(row.payload) or {},
        status=JobStatus(row.status),
        attempts=row.attempts,
        max_attempts=row.max_attempts,
        created_at=_aware(row.created_at),
        started_at=optional_dt(row.started_at),
        finished_at=optional_dt(row.finished_at),
        heartbeat_at=optional_dt(row.heartbeat_at),
        lease_until=optional_dt(row.lease_until),
        worker_id=row.worker_id,
        kill_requested=bool(row.kill_requested),
        result=loads(row.result),
        error=row.error,
        cost_tokens=int(row.cost_tokens),
        cost_requests=int(row.cost_requests),
        scheduled_for=optional_dt(row.scheduled_for),
    )


def mission_row(row: Any) -> Mission:
    return Mission(
        id=row.id,
        profile=row.profile,
        params=loads(row.params) or {},
        status=MissionStatus(row.status),
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
        error=row.error,
        summary=loads(row.summary) or {},
    )


def proposal_row(row: Any) -> Proposal:
    return Proposal(
        id=row.id,
        kind=row.kind,
        key=row.key,
        payload=loads(row.payload) or {},
        evidence=loads(row.evidence) or [],
        status=ProposalStatus(row.status),
        created_at=_aware(row.created_at),
        mission_id=row.mission_id,
        decided_at=optional_dt(row.decided_at),
        decided_by=row.decided_by,
        reason=row.reason,
        applied_at=optional_dt(row.applied_at),
        revision_id=row.revision_id,
    )
