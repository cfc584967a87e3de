"""Cron scheduling: each occurrence is enqueued once however many workers tick; nothing before the
scheduler started is caught up; `off` disables; only whitelisted slugs are accepted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.cron import CronEntry, CronService
from pkgintel.services.operations.jobs import JobContext, JobKind, JobQueue


async def _noop(ctx: JobContext) -> dict[str, object]:
    return {}


async def test_each_occurrence_is_enqueued_once_across_schedulers(ops_runtime: Runtime) -> None:
    assert ops_runtime.ops is not None
    store = ops_runtime.ops.store
    now = [datetime(2026, 11, 24, 10, 59, 59, tzinfo=UTC)]
    queue = JobQueue(
        store,
        {"warm-cache": JobKind(run=_noop), "ingest-names": JobKind(run=_noop)},
        clock=lambda: now[0],
    )
    entries = {
        "warm-cache": CronEntry("warm-cache", "0 * * * *", "hourly"),
        "ingest-names": CronEntry("ingest-names", "off", "disabled"),
    }
    first, second = CronService(queue, entries), CronService(queue, entries)
    assert await first.tick() == []  # 10:00 was before the schedulers started
    now[0] = datetime(2026, 11, 24, 11, 0, 5, tzinfo=UTC)
    made = [*await first.tick(), *await second.tick(), *await first.tick()]
    assert [(j.kind, j.scheduled_for) for j in made] == [
        ("warm-cache", datetime(2026, 11, 24, 11, 0, tzinfo=UTC))
    ]
    assert await queue.list(kind="ingest-names") == []
    listed = {row["slug"]: row for row in await first.list()}
    assert listed["warm-cache"]["next_run"] == "2026-11-24T12:00:00+00:00"
    assert listed["ingest-names"]["next_run"] is None and not listed["ingest-names"]["enabled"]


def test_only_whitelisted_slugs_and_valid_expressions(ops_runtime: Runtime) -> None:
    assert ops_runtime.ops is not None
    queue = ops_runtime.ops.queue
    with pytest.raises(ValueError, match="not whitelisted"):
        CronService(queue, {"rm-rf": CronEntry("rm-rf", "* * * * *", "")})
    with pytest.raises(ValueError, match="invalid expression"):
        CronService(queue, {"warm-cache": CronEntry("warm-cache", "61 * * * *", "")})
