"""`LiveFeed` wake-ups: an announcement on the bus wakes readers without waiting for a poll; quiet
periods yield keep-alive ticks."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from pkgintel.events.memory import MemoryBus
from pkgintel.runtime.container import Runtime
from pkgintel.services.advisories.live_feed import LiveFeed


async def test_bus_wakes_reader_and_quiet_yields_ticks(runtime: Runtime) -> None:
    store = runtime.ingestor.store
    feed = LiveFeed(
        store, MemoryBus(), poll_s=3600
    )  # polling effectively off: only the bus wakes it
    try:
        stream = feed.events(None, wait_s=0.2)
        assert await asyncio.wait_for(anext(stream), timeout=2) is None  # keep-alive tick
        payload = {
            "ecosystem": "npm",
            "package": "x",
            "vuln_id": "MAL-1",
            "severity": "critical",
            "summary": "",
            "published_at": None,
        }
        last = await store.write_records(
            "t", "npm", [], [("advisory", payload)], now=datetime.now(UTC)
        )
        assert last is not None
        await feed.publish(last)
        event = await asyncio.wait_for(anext(stream), timeout=1)
        assert event is not None and event.id == last and event.payload["vuln_id"] == "MAL-1"
        await stream.aclose()
        assert feed.clients == 0
    finally:
        await feed.close()
