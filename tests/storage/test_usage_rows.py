"""Usage rows written in one driver-level batch on SQLite read back exactly as written."""

from __future__ import annotations

from datetime import UTC, datetime

from pkgintel.domain.operations.usage import UsageEvent
from pkgintel.runtime.container import Runtime


async def test_usage_rows_read_back_as_written(runtime: Runtime) -> None:
    assert runtime.knowledge is not None
    store = runtime.knowledge.usage._store
    at = datetime(2026, 11, 28, 3, 15, 7, 123456, tzinfo=UTC)
    events = [
        UsageEvent(
            at,
            "api:/api/exists/{ecosystem}/{package}",
            "npm",
            "left-pad",
            "other",
            "c" * 32,
            200,
            True,
            3,
            None,
            None,
            None,
        ),
        UsageEvent(
            at,
            "mcp:check_package",
            "pypi",
            None,
            "ai-agent",
            "c" * 32,
            None,
            None,
            None,
            "hit",
            7,
            9,
        ),
        UsageEvent(
            at,
            "api:/api/check/{ecosystem}/{package}",
            "npm",
            "nope",
            "ci",
            "c" * 32,
            404,
            False,
            12,
            "miss",
            None,
            None,
        ),
    ]
    assert await store.write_usage(events) == 3
    back = sorted(await store.usage_for_client("c" * 32), key=lambda e: e.source)
    assert sorted(events, key=lambda e: e.source) == back


async def test_whole_seconds_and_unicode_read_back(runtime: Runtime) -> None:
    """The text form is SQLAlchemy's (six digits of microseconds even when they are 0, UTC), so
    time-range reads and pruning compare them right."""
    assert runtime.knowledge is not None
    store = runtime.knowledge.usage._store
    old = datetime(2026, 11, 28, 3, 0, 0, 0, tzinfo=UTC)
    new = datetime(2026, 11, 28, 3, 0, 0, 1, tzinfo=UTC)
    events = [
        UsageEvent(old, "api:x", "npm", "Ünïcode-ñame", "other", "d" * 32),
        UsageEvent(new, "api:y", "pypi", "日本語", "other", "d" * 32, 200, True),
    ]
    assert await store.write_usage(events) == 2
    back = sorted(await store.usage_for_client("d" * 32), key=lambda e: e.source)
    assert back == events
    assert await store.prune_usage(datetime(2026, 11, 28, 3, 0, 0, 1, tzinfo=UTC)) == 1
    assert [e.source for e in await store.usage_for_client("d" * 32)] == ["api:y"]
