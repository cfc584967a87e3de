"""Where a signal came from and how old it is (`_meta.sources`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class SourceState(StrEnum):
    """`ok`: fresh data; `stale`: an older copy served because the source failed or is being refreshed;
    `unavailable`: no data from this source for this answer."""

    OK = "ok"
    STALE = "stale"
    UNAVAILABLE = "unavailable"


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """One source used (or wanted) for an answer."""

    name: str
    kind: str
    """`registry`, `downloads`, `vulnerabilities`, `malicious`, `name_index`, ..."""
    status: SourceState
    fetched_at: datetime | None = None
    detail: str | None = None
    data_as_of: datetime | None = None
    """For bulk data (advisory feeds): the time of the newest record it holds, as opposed to
    `fetched_at`, when it was loaded. Old data loaded yesterday is still old data."""
