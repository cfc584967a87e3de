"""
`UsageLog`: our own query log. Every front door records each call (`record`, synchronous and O(1):
an append to an in-memory buffer); a background task writes the buffer in one batch when it holds
`batch_size` events or `flush_interval_s` has passed, so the request path never waits for the
database. Events older than `retention_days` are pruned at most once an hour.

What is stored per call: time, source tag (`api:/api/check/{ecosystem}/{package}`, `mcp:<tool>`),
ecosystem, package, user-agent class (`domain/operations/usage.py`), and the caller's keyed hash (never an IP).

Readers:
- `trending`: packages asked about most in the last `window_days` compared with the window before;
  crawlers (our own probes included) and health-check sources excluded.
- `agents_by_range`: calls and distinct clients per user-agent class per hour or day — the
  "agents by range" figures the admin/job side reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pkgintel.domain.errors import InvalidInput, StorageError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.operations.usage import (
    TRENDING_EXCLUDED_CLASSES,
    TRENDING_EXCLUDED_SOURCES,
    UA_CLASSES,
    CallOutcome,
    Trend,
    UsageEvent,
    classify_user_agent,
)
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.base import KnowledgeStore
from pkgintel.storage.outage import database

logger = logging.getLogger(__name__)

MAX_BUFFER = 50_000
"""Default bound of the events kept while the database is failing; older ones are dropped (counted
in `dropped` and logged once per overflow)."""
_PRUNE_EVERY_S = 3600.0
_ECOSYSTEMS: dict[str | None, Ecosystem] = {e.value: e for e in Ecosystem}


@dataclass(frozen=True, slots=True)
class AgentBucket:
    """Calls of one user-agent class in one time bucket."""

    bucket_start: datetime
    ua_class: str
    calls: int
    clients: int


class UsageLog:
    """See the module docstring. `clock` returns the current UTC time."""

    def __init__(
        self,
        store: KnowledgeStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        batch_size: int = 1000,
        flush_interval_s: float = 2.0,
        retention_days: int = 90,
        enabled: bool = True,
        max_buffer: int = MAX_BUFFER,
    ) -> None:
        self._store = store
        self._max_buffer = max_buffer
        self._overflowing = False
        self._clock = clock
        self._batch = batch_size
        self._interval = flush_interval_s
        self._retention = timedelta(days=retention_days)
        self._enabled = enabled
        self._buffer: list[UsageEvent] = []
        self._last_flush = time.monotonic()
        self._last_prune = 0.0
        self._task: asyncio.Task[int] | None = None
        self._on_unknown: list[Callable[[str, str, datetime], None]] = []
        self.dropped = 0

    def watch_unknown(self, callback: Callable[[str, str, datetime], None]) -> None:
        """Call `callback(ecosystem, package, at)` (synchronously, so it must be O(1) and never
        raise) for each recorded call that answered that the package does not exist."""
        self._on_unknown.append(callback)

    @property
    def retention_days(self) -> int:
        return self._retention.days

    def record(
        self,
        source: str,
        *,
        ecosystem: str | None,
        package: str | None,
        user_agent: str | None,
        client: str,
        outcome: CallOutcome | None = None,
    ) -> None:
        """Queue one call (with its `outcome` when the door knows it); never blocks, never raises."""
        if not self._enabled:
            return
        if package is not None and (known := _ECOSYSTEMS.get(ecosystem)) is not None:
            package = normalise_name(known, package)
        at = self._clock()
        if outcome is not None and outcome.found is False and ecosystem and package:
            for callback in self._on_unknown:
                callback(ecosystem, package, at)
        self._buffer.append(
            UsageEvent(
                at,
                source,
                ecosystem,
                package,
                classify_user_agent(user_agent),
                client,
                *(outcome or CallOutcome()),
            )
        )
        if len(self._buffer) > self._max_buffer:
            self._drop_oldest()
        due = (
            len(self._buffer) >= self._batch
            or time.monotonic() - self._last_flush >= self._interval
        )
        if due and (self._task is None or self._task.done()):
            with contextlib.suppress(
                RuntimeError
            ):  # no running loop (sync caller): next flush takes it
                self._task = asyncio.get_running_loop().create_task(self._flush_quietly())

    def _drop_oldest(self) -> None:
        overflow = len(self._buffer) - self._max_buffer
        del self._buffer[:overflow]
        self.dropped += overflow
        if not self._overflowing:  # once per overflow, not per dropped event
            self._overflowing = True
            logger.warning(
                "usage log buffer full (%d events) while the database cannot take them; "
                "dropping the oldest (%d dropped since start)",
                self._max_buffer,
                self.dropped,
            )

    async def _flush_quietly(self) -> int:
        """`flush`, never raising: events that could not be written stay buffered (bounded). A
        database outage is counted by the outage tracker (which logs once per outage)."""
        try:
            return await self.flush()
        except Exception as exc:
            if database.classify(exc) is None:
                logger.warning(
                    "usage log flush failed (%s); %d events kept for the next try",
                    exc.__class__.__name__,
                    len(self._buffer),
                )
            return 0

    async def flush(self) -> int:
        """Write what is buffered (one batch); prune old events when due. Returns events written.
        On failure the batch goes back to the front of the buffer (bounded) and the error is
        raised."""
        batch, self._buffer = self._buffer, []
        self._last_flush = time.monotonic()
        try:
            written = await self._store.write_usage(batch)
        except BaseException:
            self._buffer[:0] = batch
            if len(self._buffer) > self._max_buffer:
                self._drop_oldest()
            raise
        if self._overflowing:
            self._overflowing = False
            logger.info("usage log written again; %d events were dropped in all", self.dropped)
        if time.monotonic() - self._last_prune >= _PRUNE_EVERY_S:
            self._last_prune = time.monotonic()
            await self.prune()
        return written

    async def close(self) -> None:
        """Finish a running flush and write the rest (called at shutdown)."""
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        try:
            await self.flush()
        except Exception as exc:
            if database.classify(exc) is None and not isinstance(exc, StorageError):
                raise
            logger.warning(
                "usage log: %d events could not be written at shutdown", len(self._buffer)
            )

    async def prune(self) -> int:
        """Delete events older than the retention period."""
        return await self._store.prune_usage(self._clock() - self._retention)

    async def trending(
        self, ecosystem: str | None = None, limit: int = 20, *, window_days: int = 7
    ) -> tuple[list[Trend], datetime, datetime]:
        """Most-asked packages of the last `window_days` (with the window before), and the window."""
        await self._flush_quietly()
        # Inclusive of this instant: events recorded now belong to this window.
        end = self._clock() + timedelta(seconds=1)
        mid = end - timedelta(days=window_days)
        start = mid - timedelta(days=window_days)
        now_counts, before = await asyncio.gather(
            self._counts(mid, end, ecosystem, limit * 5), self._counts(start, mid, ecosystem, None)
        )
        trends = [
            Trend(eco, pkg, calls, before.get((eco, pkg), (0, 0))[0], clients)
            for (eco, pkg), (calls, clients) in now_counts.items()
        ]
        trends.sort(
            key=lambda t: (-t.this_window, -t.clients, -(t.growth or 0.0), t.ecosystem, t.package)
        )
        return trends[:limit], mid, end

    async def _counts(
        self, start: datetime, end: datetime, ecosystem: str | None, limit: int | None
    ) -> dict[tuple[str, str], tuple[int, int]]:
        return await self._store.package_counts(
            start,
            end,
            ecosystem=ecosystem,
            exclude_classes=TRENDING_EXCLUDED_CLASSES,
            exclude_sources=TRENDING_EXCLUDED_SOURCES,
            limit=limit,
        )

    async def agents_by_range(
        self, start: datetime, end: datetime, *, bucket: str = "day"
    ) -> list[AgentBucket]:
        """
        Calls and distinct clients per user-agent class per `bucket` (`hour` or `day`) in
        [start, end). Raises `InvalidInput` for another bucket or an empty range.
        """
        if bucket not in ("hour", "day"):
            raise InvalidInput("bucket", "bucket must be 'hour' or 'day'")
        if end <= start:
            raise InvalidInput("start", "start must be before end")
        await self._flush_quietly()
        rows = await self._store.usage_by_class(start, end, bucket)
        return [AgentBucket(when, cls, calls, clients) for when, cls, calls, clients in rows]

    async def events_for_client(self, client: str) -> list[UsageEvent]:
        """Every stored event of one client hash (for data-export requests)."""
        await self._flush_quietly()
        return await self._store.usage_for_client(client)


__all__ = ["UA_CLASSES", "AgentBucket", "UsageLog"]
