"""`UsageLog` across a database outage: rows that could not be written are kept and written when the
database is back; past `max_buffer` the oldest are dropped, counted and logged once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from pkgintel.domain.operations.usage import UsageEvent
from pkgintel.services.operations.usage import UsageLog
from pkgintel.storage.outage import database

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


class FlakyStore:
    """`write_usage` of a database that can be stopped (refusing connections like PostgreSQL)."""

    def __init__(self) -> None:
        self.down = False
        self.rows: list[UsageEvent] = []

    async def write_usage(self, events: Sequence[UsageEvent]) -> int:
        if self.down:
            raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 5432)")
        self.rows.extend(events)
        return len(events)

    async def prune_usage(self, before: datetime) -> int:
        return 0


def _record(log: UsageLog, n: int) -> None:
    for i in range(n):
        log.record("api:/x", ecosystem="npm", package=f"p{i}", user_agent="claude", client="c")


async def test_rows_written_during_an_outage_are_kept_and_written_after(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    store = FlakyStore()
    log = UsageLog(store, clock=lambda: NOW, batch_size=10)  # type: ignore[arg-type]
    store.down = True
    for _ in range(20):
        _record(log, 10)  # each batch starts a background flush that fails
        await asyncio.sleep(0)
        await asyncio.sleep(0)
    await log._flush_quietly()
    assert store.rows == []
    store.down = False
    assert await log.flush() == 200
    assert len(store.rows) == 200 and log.dropped == 0
    database.recovered()
    usage_lines = [r for r in caplog.records if r.name == "pkgintel.services.operations.usage"]
    assert usage_lines == []  # the outage tracker says it, once
    assert not [r for r in caplog.records if r.exc_info]


async def test_past_the_bound_the_oldest_rows_are_dropped_counted_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pkgintel.services.operations.usage")
    store = FlakyStore()
    log = UsageLog(store, clock=lambda: NOW, batch_size=10_000, max_buffer=100)  # type: ignore[arg-type]
    store.down = True
    _record(log, 150)
    await log._flush_quietly()
    _record(log, 30)
    assert log.dropped == 80
    store.down = False
    assert await log.flush() == 100
    assert [r.package for r in store.rows][-1] == "p29"
    database.recovered()
    levels = [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == "pkgintel.services.operations.usage"
    ]
    assert [level for level, _ in levels] == ["WARNING", "INFO"], levels
    assert "80 events were dropped" in levels[1][1]
