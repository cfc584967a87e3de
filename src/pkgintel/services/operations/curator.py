"""
The curator: a rule engine that decides pending proposals on an interval, logging every decision.

For each pending proposal, oldest first:
1. **duplicate** of an earlier pending/approved/applied proposal of the same kind and key, or of
   the live knowledge entry with the same payload → reject.
2. **dead link**: an evidence URL answers 404/410 (or is not http) → reject. A link that cannot be
   told (timeout, 5xx) is not dead: the proposal is left for a person.
3. **no primary source** among the evidence → left for a person.
4. **kind checks** (`alternative`): the suggested package exists in the registry and is healthy —
   not deprecated, not reported malicious, health score at least `min_health`, and its
   recommendation is not `avoid`/`find_alternative` — through the same `ReportService` as
   `/api/check` → approve (and apply). A kind without checks is left for a person.

Left proposals are logged once per reason, not on every pass.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.operations.ops import Proposal
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.operations.jobs import Clock, JobContext, JobKind, JobQueue, utcnow
from pkgintel.services.operations.missions import LinkChecker
from pkgintel.services.operations.proposals import ProposalService
from pkgintel.storage.ops_base import OpsStore

logger = logging.getLogger(__name__)

CURATOR_JOB = "curator"
ReportFn = Callable[[Ecosystem, str], Awaitable[Any]]


class Curator:
    """See the module docstring. State (on/off, interval) lives in `ops_setting`."""

    def __init__(
        self,
        store: OpsStore,
        queue: JobQueue,
        proposals: ProposalService,
        links: LinkChecker,
        report: ReportFn,
        *,
        enabled: bool,
        interval_s: int,
        min_health: int = 60,
        batch: int = 200,
        clock: Clock = utcnow,
    ) -> None:
        self._store = store
        self._queue = queue
        self._proposals = proposals
        self._links = links
        self._report = report
        self._default_enabled = enabled
        self._default_interval = interval_s
        self._min_health = min_health
        self._batch = batch
        self._clock = clock
        self._offered: datetime | None = None

    def job_kind(self) -> JobKind:
        return JobKind(run=self._run_job, max_attempts=1, exclusive=CURATOR_JOB)

    async def _state(self) -> tuple[bool, int]:
        stored = await self._store.settings_with_prefix("curator.")
        enabled = stored.get("enabled", self._default_enabled)
        interval = stored.get("interval_s", self._default_interval)
        return bool(enabled), int(interval)

    async def status(self) -> dict[str, Any]:
        enabled, interval = await self._state()
        last = await self._queue.list(kind=CURATOR_JOB, limit=1)
        run = last[0] if last else None
        next_run = None
        if enabled:
            next_run = (self._slot_start(interval) + timedelta(seconds=interval)).isoformat()
        return {
            "enabled": enabled,
            "interval_s": interval,
            "min_health": self._min_health,
            "last_run": (run.started_at or run.created_at).isoformat() if run else None,
            "last_status": run.status.value if run else None,
            "last_result": run.result if run else None,
            "next_run": next_run,
            "pending": len(await self._store.pending_oldest(10000)),
        }

    async def toggle(self, enabled: bool | None = None) -> dict[str, Any]:
        current, _ = await self._state()
        value = (not current) if enabled is None else enabled
        await self._store.set_setting("curator.enabled", value, now=self._clock())
        return await self.status()

    async def set_interval(self, seconds: int) -> dict[str, Any]:
        await self._store.set_setting("curator.interval_s", seconds, now=self._clock())
        return await self.status()

    async def trigger(self) -> str:
        job = await self._queue.enqueue(CURATOR_JOB, {"trigger": "manual"})
        assert job is not None
        return job.id

    def _slot_start(self, interval: int) -> datetime:
        now = self._clock()
        epoch = int(now.timestamp()) // interval * interval
        return datetime.fromtimestamp(epoch, now.tzinfo)

    async def tick(self) -> None:
        """Called by workers each loop: enqueue one run per interval slot while enabled."""
        enabled, interval = await self._state()
        if not enabled:
            return
        slot = self._slot_start(interval)
        if slot == self._offered:
            return
        self._offered = slot
        await self._queue.enqueue(
            CURATOR_JOB,
            {"trigger": "schedule"},
            dedupe_key=f"curator:{slot.isoformat()}",
            scheduled_for=slot,
        )

    async def decisions(self, limit: int) -> list[dict[str, Any]]:
        return [
            {
                "id": d.id,
                "proposal_id": d.proposal_id,
                "decision": d.decision,
                "reason": d.reason,
                "at": d.created_at.isoformat(),
            }
            for d in await self._store.decisions(limit)
        ]

    async def _run_job(self, ctx: JobContext) -> dict[str, Any]:
        counts = await self.run_once(ctx)
        await ctx.log(f"decided: {counts}")
        return counts

    async def run_once(self, ctx: JobContext | None = None) -> dict[str, int]:
        """Decide every pending proposal once; returns counts by outcome."""
        counts = {"approved": 0, "rejected": 0, "left": 0}
        logged_left = {d.proposal_id + d.reason for d in await self._store.decisions(1000)}
        for p in await self._store.pending_oldest(self._batch):
            decision, reason = await self._judge(p)
            counts[decision] += 1
            if decision == "left" and p.id + reason in logged_left:
                continue
            await self._store.add_decision(p.id, decision, reason, now=self._clock())
            if ctx is not None:
                await ctx.log(f"{p.kind} {p.key}: {decision} ({reason})")
            if decision in ("approved", "rejected"):
                try:
                    await self._proposals.decide(
                        p.id, approve=decision == "approved", reason=reason, actor="curator"
                    )
                except PkgIntelError as exc:  # decided by a person meanwhile
                    logger.info("curator: %s", exc.message)
        return counts

    async def _judge(self, p: Proposal) -> tuple[str, str]:
        dupes = await self._proposals.duplicates_of(p)
        if dupes:
            return "rejected", f"duplicate of proposal {dupes[0].id} ({dupes[0].status.value})"
        live = await self._proposals.knowledge(p.kind, p.key)
        if live is not None and {k: v for k, v in live.items() if k != "evidence"} == p.payload:
            return "rejected", "duplicate of the live knowledge entry"
        if not p.evidence:
            return "left", "no evidence links"
        unknown = []
        for item in p.evidence:
            url = str(item.get("url", ""))
            verdict = await self._links.check(url)
            if verdict and verdict.startswith("dead"):
                return "rejected", f"dead link {url} ({verdict.removeprefix('dead: ')})"
            if verdict:
                unknown.append(f"{url}: {verdict.removeprefix('unknown: ')}")
        if unknown:
            return "left", "evidence could not be checked: " + "; ".join(unknown)
        if not any(item.get("primary") for item in p.evidence):
            return "left", "no primary source among the evidence"
        if p.kind == "alternative":
            return await self._judge_alternative(p)
        return "left", f"no automatic checks for {p.kind} proposals; needs a person"

    async def _judge_alternative(self, p: Proposal) -> tuple[str, str]:
        try:
            ecosystem = Ecosystem(str(p.payload.get("ecosystem")))
            name = str(p.payload["alternative"])
        except (ValueError, KeyError):
            return "rejected", "payload names no valid ecosystem and alternative"
        try:
            report = await self._report(ecosystem, name)
        except PkgIntelError as exc:
            if exc.reason == "package_not_found":
                return "rejected", f"suggested package {ecosystem.value}/{name} does not exist"
            return "left", f"suggested package could not be checked: {exc.message}"
        problems = []
        if report.deprecated:
            problems.append("it is deprecated too")
        if report.malicious.is_malicious:
            problems.append("it is reported malicious")
        if report.health.score < self._min_health:
            problems.append(f"health {report.health.score} < {self._min_health}")
        if report.recommendation.action in ("avoid", "find_alternative"):
            problems.append(f"recommendation is {report.recommendation.action}")
        if problems:
            return "left", f"suggested package {name}: " + ", ".join(problems)
        return (
            "approved",
            f"primary source answers; {ecosystem.value}/{name} exists, health "
            f"{report.health.score}, recommendation {report.recommendation.action}",
        )
