"""The wire shape of a job of the job system (admin API and the CLI)."""

from __future__ import annotations

from typing import Any

from pkgintel.domain.operations.ops import Job


def job_wire(job: Job) -> dict[str, Any]:
    return {
        "id": job.id,
        "kind": job.kind,
        "payload": job.payload,
        "status": job.status.value,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "created_at": job.created_at.isoformat(),
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "heartbeat_at": job.heartbeat_at.isoformat() if job.heartbeat_at else None,
        "duration_s": job.duration_s,
        "worker_id": job.worker_id,
        "kill_requested": job.kill_requested,
        "result": job.result,
        "error": job.error,
        "cost": {"tokens": job.cost_tokens, "requests": job.cost_requests},
    }
