"""
How fresh the data behind an answer is: one status for every part an answer used, and the date to state.

Statuses of advisory (and malicious-report) data, worst first:

- `unavailable`: no data for the ecosystem; nothing can be said about advisories.
- `partial`: a feed's last ingestion run did not finish (under way or killed): records may be missing.
- `stale`: every feed finished, but one was loaded longer ago than `PKGINTEL_ADVISORY_STALE_AFTER_S`, or
  its newest record is older than `PKGINTEL_ADVISORY_DATA_STALE_AFTER_S`: recent advisories may be missing.
- `complete`: every feed used finished recently and holds recent records (or the OSV API answered).

An answer built from several parts (a project audit, a pin search, a stack) takes the worst status among
them (`worst_status`), so old data never reads as `complete` and `unavailable` stays `unavailable`. A
`partial` answer whose data is also old still says so through its stale sources and their dates.

The date stated with `stale` (`Freshness.as_of`) is the oldest data among the stale feeds: each feed's
newest record (`SourceStatus.data_as_of`), or, for a feed whose records carry no date, when it was loaded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from pkgintel.domain.signals.provenance import SourceState, SourceStatus

DATA_STATUSES: Final = ("complete", "stale", "partial", "unavailable")
"""Every data status an answer can carry, best first (the order `worst_status` ranks by)."""


def worst_status(statuses: Iterable[str]) -> str:
    """The worst of `statuses` by `DATA_STATUSES` (`complete` when there are none). Raises
    `ValueError` for a status not in `DATA_STATUSES`."""
    worst = 0
    for status in statuses:
        if status not in DATA_STATUSES:
            raise ValueError(f"unknown data status {status!r}")
        worst = max(worst, DATA_STATUSES.index(status))
    return DATA_STATUSES[worst]


def as_of(source: SourceStatus) -> datetime | None:
    """The date of a source's data: its newest record when known, else when it was loaded."""
    return source.data_as_of or source.fetched_at


def iso(value: datetime | None) -> str | None:
    """ISO 8601 with `Z` for UTC, as every answer writes times; None stays None."""
    return value.isoformat().replace("+00:00", "Z") if value else None


def day(value: datetime | None) -> str:
    """`2024-10-10`, or `an unknown date`."""
    return f"{value:%Y-%m-%d}" if value else "an unknown date"


@dataclass(frozen=True, slots=True)
class Freshness:
    """The data status of an answer and, when its data is stale, the date and the feeds."""

    status: str
    """One of `DATA_STATUSES`."""
    as_of: datetime | None = None
    """The oldest `as_of` among the stale feeds; None when no feed used is stale."""
    stale_sources: tuple[SourceStatus, ...] = ()
    """The feeds used that are `stale` (each once, by name), oldest data first."""

    @property
    def stale(self) -> bool:
        """True when some feed used is stale (whatever the status: a partial answer may be too)."""
        return bool(self.stale_sources)

    def note(self, what: str = "vulnerability data") -> str | None:
        """One phrase for a warning or a brief: `vulnerability data stale, as of 2024-10-10
        (osv:PyPI)`; None when nothing used is stale."""
        if not self.stale_sources:
            return None
        names = ", ".join(s.name for s in self.stale_sources)
        return f"{what} stale, as of {day(self.as_of)} ({names})"

    def sources_wire(self) -> list[dict[str, Any]]:
        """The stale feeds as JSON-ready dicts (`feeds_wire`)."""
        return feeds_wire(self.stale_sources)


def feeds_wire(sources: Iterable[SourceStatus]) -> list[dict[str, Any]]:
    """Feeds as JSON-ready dicts: `name`, `kind`, `status`, `fetched_at` (when it was loaded),
    `data_as_of` (its newest record), `as_of` (the date its data is of) and `detail`."""
    return [
        {
            "name": s.name,
            "kind": s.kind,
            "status": s.status.value,
            "fetched_at": iso(s.fetched_at),
            "data_as_of": iso(s.data_as_of),
            "as_of": iso(as_of(s)),
            "detail": s.detail,
        }
        for s in sources
    ]


def freshness(
    statuses: Iterable[str],
    sources: Iterable[SourceStatus],
    *,
    kinds: tuple[str, ...] = ("vulnerabilities",),
) -> Freshness:
    """
    The freshness of an answer built from parts with `statuses` (each one of `DATA_STATUSES`) that
    used `sources`. Only sources of `kinds` count (advisory feeds by default: KEV and EPSS enrich
    them and are listed in `_meta.sources` with their own state). A stale feed makes a `complete`
    answer `stale`; a worse status is kept.
    """
    seen: dict[str, SourceStatus] = {}
    for source in sources:
        if source.kind in kinds and source.status is SourceState.STALE and source.name not in seen:
            seen[source.name] = source
    stale = tuple(
        sorted(seen.values(), key=lambda s: (as_of(s) is None, as_of(s) or datetime.min, s.name))
    )
    status = worst_status([*statuses, "stale" if stale else "complete"])
    dates = [d for s in stale if (d := as_of(s)) is not None]
    return Freshness(status, min(dates) if dates else None, stale)
