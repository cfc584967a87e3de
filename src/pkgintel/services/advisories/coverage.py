"""
What advisory data is loaded, and how fresh each feed is.

`Coverage` sorts the `source_run` rows into per-ecosystem advisory feeds and malicious feeds, plus
KEV and EPSS (`coverage_from_runs`); its `token` changes whenever a run starts or finishes.
`FeedStatuses.source(run, kind)` judges one feed's run — `stale` past `stale_after_s` since it was
loaded or `data_stale_after_s` since its newest record, `stale` with "under way or interrupted" while
unfinished — as one shared `SourceStatus` per run, kind and minute. `with_staleness` turns a
`complete` answer over a stale feed into `stale` (`domain/freshness.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pkgintel.domain.feeds import SourceRun
from pkgintel.domain.osv_ecosystems import ecosystem_from_osv
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.services.advisories.ingest import EPSS_FEED, KEV_FEED


@dataclass(frozen=True, slots=True)
class Coverage:
    """What is loaded, from the `source_run` table (refreshed every few seconds)."""

    advisory_runs: dict[Ecosystem, tuple[SourceRun, ...]]
    malicious_runs: dict[Ecosystem, tuple[SourceRun, ...]]
    kev: SourceRun | None
    epss: SourceRun | None
    token: tuple[Any, ...]
    """Changes whenever any run starts or finishes (invalidates cached advisories)."""


SOURCE_MEMO_SIZE = 256
"""Shared source statuses held at most (feeds x kinds x minutes); past it the memo starts anew."""


def coverage_from_runs(runs: Sequence[SourceRun]) -> Coverage:
    """Sort the runs into per-ecosystem advisory feeds and malicious feeds, plus KEV and EPSS."""
    adv: dict[Ecosystem, list[SourceRun]] = {}
    mal: dict[Ecosystem, list[SourceRun]] = {}
    kev = epss = None
    for run in runs:
        if run.feed == KEV_FEED:
            kev = run
            continue
        if run.feed == EPSS_FEED:
            epss = run
            continue
        eco = ecosystem_from_osv(run.scope)
        if eco is None:
            continue
        # An unfinished run may hold either kind: count it for both until it says otherwise.
        if not run.completed or run.detail.get("advisory_records", 0) > 0:
            adv.setdefault(eco, []).append(run)
        if not run.completed or run.detail.get("malicious_records", 0) > 0:
            mal.setdefault(eco, []).append(run)
    token = tuple(sorted((r.feed, r.scope, str(r.started_at), str(r.completed_at)) for r in runs))
    return Coverage(
        {k: tuple(v) for k, v in adv.items()},
        {k: tuple(v) for k, v in mal.items()},
        kev,
        epss,
        token,
    )


def days(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} day{'s' if days != 1 else ''}"


def iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


class FeedStatuses:
    """See the module docstring. `clock` returns the current time (injected for tests)."""

    def __init__(
        self, *, clock: Callable[[], datetime], stale_after_s: int, data_stale_after_s: int
    ) -> None:
        self._clock = clock
        self._stale_after_s = stale_after_s
        self._data_stale_after_s = data_stale_after_s
        self._source_memo: dict[tuple[int, str, datetime], tuple[SourceRun, SourceStatus]] = {}

    def source(self, run: SourceRun, kind: str) -> SourceStatus:
        """
        The source status of a feed's run: one shared object per run, kind and minute of the
        clock (every answer of a 15,000-package audit carries the same few, and 54,000 copies
        were objects the collector walked on the event loop). Staleness is judged per minute.
        """
        minute = self._clock().replace(second=0, microsecond=0)
        key = (id(run), kind, minute)
        held = self._source_memo.get(key)
        if held is not None and held[0] is run:
            return held[1]
        if len(self._source_memo) >= SOURCE_MEMO_SIZE:
            self._source_memo.clear()
        status = self._judge(run, kind)
        self._source_memo[key] = (run, status)
        return status

    def _judge(self, run: SourceRun, kind: str) -> SourceStatus:
        if not run.completed:
            return SourceStatus(
                run.feed,
                kind,
                SourceState.STALE,
                run.started_at,
                f"{run.scope or run.feed}: ingestion under way or interrupted; data may be incomplete",
            )
        now = self._clock()
        age = (now - run.completed_at).total_seconds() if run.completed_at else 0
        data_age = (
            (now - run.data_updated_at).total_seconds() if run.data_updated_at is not None else None
        )
        parts = [f"{run.records:,} records" if run.scope else None]
        if run.data_updated_at:
            parts.append(f"newest record {iso(run.data_updated_at)}")
        state = SourceState.OK
        if age > self._stale_after_s:
            state = SourceState.STALE
            parts.append(f"loaded more than {days(self._stale_after_s)} ago")
        if data_age is not None and data_age > self._data_stale_after_s:
            state = SourceState.STALE
            parts.append(f"newest record older than {days(self._data_stale_after_s)}")
        detail = "; ".join(p for p in parts if p) or None
        return SourceStatus(
            f"{run.feed}:{run.scope}" if run.scope else run.feed,
            kind,
            state,
            run.completed_at,
            detail,
            run.data_updated_at,
        )


def with_staleness(status: str, stale: bool) -> str:
    """`stale` for a `complete` answer whose feeds include a stale one (`domain/freshness.py`:
    old data is never complete); `partial` and `unavailable` are kept."""
    return "stale" if stale and status == "complete" else status
