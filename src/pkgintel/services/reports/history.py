"""
`HistoryService`: daily health snapshots and their trend (`/api/history`, `pkgintel snapshot`, cron
slug `health-snapshots`).

Which packages: those asked about in the last `asked_days` days (the usage log, crawlers excluded,
most-asked first) and those already tracked (a snapshot within `tracked_days`), at most `limit`.
Each snapshot is `ReportService.get_report(ecosystem, name)` — the same health computation as
`/api/check`, not a copy — reduced to score, risk, breakdown, vulnerability counts of the latest
release and the latest version, stored once per package per UTC day (a second run the same day
replaces it). Vulnerability counts are null, never zero, when the advisory data was unavailable.

One bad package never stops a run: a package whose report cannot be built (registry down with
nothing stored, an unexpected error) is skipped and listed in the run's `failed`; a tracked package
(one with history) that its registry no longer has is marked gone with the day (`gone`), its history
kept, and unmarked when it answers again; a name the registry never had is listed in `failed`. The
run itself only fails when it cannot even list its targets (the database is down).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final, Protocol

from pkgintel.domain.errors import PackageNotFound, PkgIntelError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.history import HealthSnapshot, Trend, trend
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.services.reports.service import PackageReport, ReportService

logger = logging.getLogger(__name__)

MAX_DAYS: Final = 365
HISTORY_SOURCE: Final = "health-history"

AskedLookup = Callable[[datetime, datetime, int], Awaitable[Sequence[tuple[str, str]]]]
"""`(start, end, limit) → [(ecosystem, package)]` most asked first (the usage log)."""


class HistoryStore(Protocol):
    async def save(self, snap: HealthSnapshot) -> None: ...

    async def series(self, ecosystem: str, package: str, since: date) -> list[HealthSnapshot]: ...

    async def tracked(self, since: date, limit: int) -> list[tuple[str, str]]: ...

    async def mark_gone(self, ecosystem: str, package: str, day: date, reason: str) -> date: ...

    async def gone_since(self, ecosystem: str, package: str) -> date | None: ...

    async def clear_gone(self, ecosystem: str, package: str) -> None: ...


@dataclass(frozen=True, slots=True)
class History:
    ecosystem: Ecosystem
    package: str
    days: int
    snapshots: tuple[HealthSnapshot, ...]
    trend: Trend
    sources: tuple[SourceStatus, ...]
    gone_since: date | None = None


@dataclass(frozen=True, slots=True)
class SnapshotRun:
    """A run's outcome: `failed` maps `ecosystem/name` to why; `gone` to the day it was first
    seen gone upstream (its history kept)."""

    packages: int
    recorded: int
    failed: dict[str, str]
    seconds: float
    gone: dict[str, str] = field(default_factory=dict)


def snapshot_of(report: PackageReport, day: date) -> HealthSnapshot:
    """The stored view of a report (of the latest release)."""
    vulns = report.latest_vulnerabilities
    known = vulns.status != "unavailable"
    counts: dict[str, Any] = {"status": vulns.status}
    for sev in ("critical", "high", "medium", "low"):
        counts[sev] = vulns.count(sev) if known else None
    counts["unrated"] = vulns.count(None) if known else None
    counts["total"] = len(vulns.details) if known else None
    if vulns.reason:
        counts["reason"] = vulns.reason
    health = report.health
    return HealthSnapshot(
        ecosystem=report.ecosystem.value,
        package=normalise_name(report.ecosystem, report.info.name),
        day=day,
        display_name=report.info.name,
        recorded_at=report.generated_at,
        score=health.score,
        risk=health.risk,
        breakdown={**dict(health.breakdown), "_unscored": list(health.unscored)},
        vulnerabilities=counts,
        latest_version=report.info.latest_version,
    )


class HistoryService:
    """See the module contract."""

    def __init__(
        self,
        reports: ReportService,
        store: HistoryStore,
        *,
        asked: AskedLookup | None = None,
        asked_days: int = 30,
        tracked_days: int = 30,
        limit: int = 2000,
        concurrency: int = 4,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._reports = reports
        self._store = store
        self._asked = asked
        self._asked_days = asked_days
        self._tracked_days = tracked_days
        self._limit = limit
        self._concurrency = concurrency
        self._clock = clock

    async def record(self, ecosystem: Ecosystem, name: str) -> HealthSnapshot:
        """Take and store today's snapshot of one package. Raises what `get_report` raises."""
        report = await self._reports.get_report(ecosystem, name)
        snap = snapshot_of(report, self._clock().astimezone(UTC).date())
        await self._store.save(snap)
        if await self._store.gone_since(snap.ecosystem, snap.package) is not None:
            await self._store.clear_gone(snap.ecosystem, snap.package)
            logger.info("%s/%s answers upstream again", snap.ecosystem, snap.package)
        return snap

    async def _gone(self, eco: Ecosystem, name: str, exc: PackageNotFound) -> date | None:
        """Mark a tracked package gone (today, or the day it was first seen gone); None when it
        has no history (a name the registry never had is not "gone")."""
        today = self._clock().astimezone(UTC).date()
        key = normalise_name(eco, name)
        if not await self._store.series(eco.value, key, today - timedelta(days=MAX_DAYS)):
            return None
        return await self._store.mark_gone(eco.value, key, today, exc.message)

    async def targets(self) -> list[tuple[Ecosystem, str]]:
        """Packages the daily job snapshots (see the module contract)."""
        now = self._clock()
        found: dict[tuple[Ecosystem, str], str] = {}
        pairs: list[tuple[str, str]] = []
        if self._asked is not None:
            pairs.extend(
                # the end is inclusive of this instant: a package asked about just now counts
                await self._asked(
                    now - timedelta(days=self._asked_days), now + timedelta(seconds=1), self._limit
                )
            )
        pairs.extend(
            await self._store.tracked(
                (now - timedelta(days=self._tracked_days)).date(), self._limit
            )
        )
        for eco_value, name in pairs:
            try:
                eco = Ecosystem(eco_value)
            except ValueError:
                continue
            if not self._reports.packages.supports(eco) or not name:
                continue
            found.setdefault((eco, normalise_name(eco, name)), name)
            if len(found) >= self._limit:
                break
        return [(eco, name) for (eco, _), name in found.items()]

    async def run(
        self,
        targets: Sequence[tuple[Ecosystem, str]] | None = None,
        progress: Callable[[int, int], Awaitable[None]] | None = None,
    ) -> SnapshotRun:
        """Snapshot `targets` (default: `targets()`). Never raises for one package's failure."""
        started = asyncio.get_running_loop().time()
        todo = list(targets) if targets is not None else await self.targets()
        sem = asyncio.Semaphore(self._concurrency)
        failed: dict[str, str] = {}
        gone: dict[str, str] = {}
        done = 0

        async def one(eco: Ecosystem, name: str) -> None:
            nonlocal done
            async with sem:
                key = f"{eco.value}/{name}"
                try:
                    await self.record(eco, name)
                except PackageNotFound as exc:
                    try:
                        since = await self._gone(eco, name, exc)
                    except Exception as inner:
                        failed[key] = f"{exc.message}; marking it gone failed: {inner}"
                    else:
                        if since is None:
                            failed[key] = exc.message
                        else:
                            gone[key] = since.isoformat()
                            logger.info("%s is gone upstream since %s; history kept", key, since)
                except PkgIntelError as exc:
                    failed[key] = exc.message
                    logger.info("health snapshot of %s failed: %s", key, exc.message)
                except Exception as exc:  # one package's bug or outage never stops the run
                    failed[key] = f"{exc.__class__.__name__}: {exc}"[:300]
                    logger.warning("health snapshot of %s failed: %s", key, failed[key])
                done += 1
                if progress is not None and done % 50 == 0:
                    await progress(done, len(todo))

        await asyncio.gather(*(one(eco, name) for eco, name in todo))
        return SnapshotRun(
            packages=len(todo),
            recorded=len(todo) - len(failed) - len(gone),
            failed=failed,
            seconds=round(asyncio.get_running_loop().time() - started, 3),
            gone=gone,
        )

    async def history(self, ecosystem: Ecosystem, name: str, days: int = 90) -> History:
        """Snapshots of the last `days` days (1..365, oldest first) and their trend."""
        days = max(1, min(MAX_DAYS, days))
        today = self._clock().astimezone(UTC).date()
        since = today - timedelta(days=days - 1)
        snaps = await self._store.series(ecosystem.value, normalise_name(ecosystem, name), since)
        if snaps:
            source = SourceStatus(
                HISTORY_SOURCE,
                "history",
                SourceState.OK,
                snaps[-1].recorded_at,
                f"{len(snaps)} daily snapshots since {snaps[0].day.isoformat()}",
            )
        else:
            source = SourceStatus(
                HISTORY_SOURCE,
                "history",
                SourceState.UNAVAILABLE,
                None,
                "no snapshot recorded yet: the daily health-snapshots job records packages once "
                "they have been asked about",
            )
        return History(
            ecosystem=ecosystem,
            package=snaps[-1].display_name if snaps else name,
            days=days,
            snapshots=tuple(snaps),
            trend=trend([s.score for s in snaps]),
            sources=(source,),
            gone_since=await self._store.gone_since(
                ecosystem.value, normalise_name(ecosystem, name)
            ),
        )
