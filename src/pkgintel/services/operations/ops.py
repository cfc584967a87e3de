"""`Ops`: the job system's services, one field of `Runtime` (None when not wired)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pkgintel.services.advisories.ingest_status import IngestionTracker
from pkgintel.services.operations.agents_by_range import AgentsByRange
from pkgintel.services.operations.cron import CronService
from pkgintel.services.operations.curator import Curator
from pkgintel.services.operations.jobs import JobQueue
from pkgintel.services.operations.missions import MissionService
from pkgintel.services.operations.proposals import ProposalService
from pkgintel.storage.ops_base import OpsStore

INITIAL_INGESTION = "initial-ingestion"


@dataclass(frozen=True, slots=True)
class Ops:
    store: OpsStore
    queue: JobQueue
    cron: CronService
    missions: MissionService
    proposals: ProposalService
    curator: Curator
    agents: AgentsByRange
    admin_token: str | None = None
    ingestion: IngestionTracker | None = None

    async def initial_ingestion(self) -> dict[str, Any] | None:
        """State of the first-start ingestion job for `/api/status`: status (`partial` or
        `failed` when feeds failed), the latest progress step and log line, the failed feeds with
        why, per-status feed counts and the retry it queued; None when it never ran."""
        jobs = await self.queue.list(kind=INITIAL_INGESTION, limit=1)
        if not jobs:
            return None
        job = jobs[0]
        progress = await self.store.last_events(job.id, kind="progress", limit=1)
        line = await self.store.last_events(job.id, kind="log", limit=1)
        result = job.result or {}
        return {
            "job_id": job.id,
            "status": job.status.value,
            "progress": progress[0].data if progress else None,
            "last_log": line[0].data.get("line") if line else None,
            "error": job.error,
            "failed_feeds": result.get("failed_feeds", []),
            "feed_counts": result.get("counts"),
            "retry": result.get("retry"),
        }
