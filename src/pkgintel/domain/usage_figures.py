"""
Usage statistics as `GET /api/stats` publishes them (pure): the figures read from the usage log
and how they are shaped. `UsageFigures` is what the storage returns; `stats_wire` is the answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

STATS_FRESH_S = 60
"""Seconds the figures are served without recomputing (the specification's 60 s fresh)."""
STATS_HARD_S = 300
"""Seconds after which stale figures are never served (the specification's 300 s hard)."""
STATS_WINDOW_DAYS = 30
"""The window the figures cover, ending now."""
TOP_ENDPOINTS = 10


@dataclass(frozen=True, slots=True)
class EndpointCount:
    source: str
    calls: int


@dataclass(frozen=True, slots=True)
class UsageFigures:
    """Counts over [start, end) of the usage log. Latency percentiles and the cache hit rate are
    None when no call in the window carries the figure (rows recorded before they were kept)."""

    start: datetime
    end: datetime
    calls: int
    unique_clients: int
    packages: int
    ecosystems: int
    cache_hits: int
    cache_known: int
    p50_ms: int | None
    p95_ms: int | None
    by_class: dict[str, int]
    top_endpoints: tuple[EndpointCount, ...]

    @property
    def cache_hit_rate(self) -> float | None:
        return round(self.cache_hits / self.cache_known, 4) if self.cache_known else None


def percentile_offset(count: int, fraction: float) -> int:
    """Zero-based index of the `fraction` percentile (nearest rank) in `count` sorted values."""
    if count <= 0:
        raise ValueError("no values")
    rank = max(1, math.ceil(round(fraction * count, 9)))
    return min(count, rank) - 1


def iso(at: datetime) -> str:
    return at.isoformat().replace("+00:00", "Z")


def stats_wire(figures: UsageFigures, *, computed_at: datetime) -> dict[str, Any]:
    """The `/api/stats` body (without `_meta`)."""
    return {
        "window": {"start": iso(figures.start), "end": iso(figures.end)},
        "calls": figures.calls,
        "unique_clients": figures.unique_clients,
        "packages": figures.packages,
        "ecosystems": figures.ecosystems,
        "cache_hit_rate": figures.cache_hit_rate,
        "cache_calls_known": figures.cache_known,
        "latency_ms": {"p50": figures.p50_ms, "p95": figures.p95_ms},
        "calls_by_client_class": dict(sorted(figures.by_class.items())),
        "top_endpoints": [{"endpoint": e.source, "calls": e.calls} for e in figures.top_endpoints],
        "computed_at": iso(computed_at),
    }
