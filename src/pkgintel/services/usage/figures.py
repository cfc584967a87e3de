"""
`UsageFiguresService`: `GET /api/stats` and `GET /api/savings`, computed from the usage log over
the last `STATS_WINDOW_DAYS` days and served with stale-while-revalidate (60 s fresh, 300 s hard)
from the shared cache, so every worker serves the same figures and the database is read at most
about once a minute.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from pkgintel.cache.base import Cache
from pkgintel.domain.errors import StorageError
from pkgintel.domain.savings import savings_wire
from pkgintel.domain.usage_figures import (
    STATS_FRESH_S,
    STATS_HARD_S,
    STATS_WINDOW_DAYS,
    UsageFigures,
    iso,
    stats_wire,
)
from pkgintel.services.usage.swr import Served, SwrValue


class FigureReads(Protocol):
    async def figures(self, start: datetime, end: datetime) -> UsageFigures: ...

    async def answered_calls_by_source(self, start: datetime, end: datetime) -> dict[str, int]: ...


class Flushable(Protocol):
    async def flush(self) -> int: ...


class UsageFiguresService:
    """See the module docstring. `flush` writes the usage log's buffer before a computation."""

    def __init__(
        self,
        reads: FigureReads,
        cache: Cache,
        *,
        flush: Callable[[], Awaitable[int]] | None,
        clock: Callable[[], datetime],
        fresh_s: float = STATS_FRESH_S,
        hard_s: float = STATS_HARD_S,
    ) -> None:
        self._reads, self._flush, self._clock = reads, flush, clock
        self._stats = SwrValue(
            cache, "usage:stats", self._compute_stats, fresh_s=fresh_s, hard_s=hard_s
        )
        self._savings = SwrValue(
            cache, "usage:savings", self._compute_savings, fresh_s=fresh_s, hard_s=hard_s
        )

    async def stats(self) -> Served:
        return await self._stats.get()

    async def savings(self) -> Served:
        return await self._savings.get()

    async def _window(self) -> tuple[datetime, datetime]:
        if self._flush is not None:
            with contextlib.suppress(StorageError):  # what is written is still counted
                await self._flush()
        end = self._clock() + timedelta(seconds=1)
        return end - timedelta(days=STATS_WINDOW_DAYS), end

    async def _compute_stats(self) -> dict[str, Any]:
        start, end = await self._window()
        return stats_wire(await self._reads.figures(start, end), computed_at=self._clock())

    async def _compute_savings(self) -> dict[str, Any]:
        start, end = await self._window()
        calls = await self._reads.answered_calls_by_source(start, end)
        return {
            "window": {"start": iso(start), "end": iso(end)},
            **savings_wire(calls),
            "computed_at": iso(self._clock()),
        }
