"""`FallbackCache`: while the shared cache is away, this process's memory stands in; one WARNING per
outage, one INFO when it ends, and Redis is probed again in the background at most once per
`retry_s` (no request waits on it)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from pkgintel.cache.base import CacheEntry, CacheUnavailable
from pkgintel.cache.fallback import FallbackCache
from pkgintel.cache.memory import MemoryCache


class Switchable(MemoryCache):
    """A memory cache that can be switched off like a stopped Redis (counts the calls it gets)."""

    def __init__(self) -> None:
        super().__init__()
        self.up = True
        self.calls = 0
        self.stale_connections = 0

    def _check(self) -> None:
        self.calls += 1
        if self.stale_connections:
            self.stale_connections -= 1
            raise CacheUnavailable("Connection closed by server.")
        if not self.up:
            raise CacheUnavailable("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    async def get(self, key: str) -> CacheEntry | None:
        self._check()
        return await super().get(key)

    async def set(self, key: str, value: bytes, *, ttl_s: float, stale_s: float = 0.0) -> None:
        self._check()
        await super().set(key, value, ttl_s=ttl_s, stale_s=stale_s)

    async def ping(self) -> None:
        self._check()


async def test_outage_is_served_from_memory_said_once_and_ends_by_itself(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="pkgintel.cache.fallback")
    now = [0.0]
    shared = Switchable()
    cache = FallbackCache(shared, retry_s=1.0, monotonic=lambda: now[0])
    await cache.set("a", b"1", ttl_s=60)
    assert (await cache.get("a")) is not None and shared.calls == 2
    shared.up = False
    assert await cache.get("b") is None  # a miss: the caller fetches once...
    await cache.set("b", b"2", ttl_s=60)  # ...and stores the answer in memory
    for _ in range(1000):
        entry = await cache.get("b")
        assert entry is not None and entry.value == b"2"
    assert cache.down
    assert shared.calls == 4  # Redis was tried twice; the next try waits for `retry_s`
    with pytest.raises(CacheUnavailable):
        await cache.ping()  # the health probe still says the truth
    now[0] = 5.0
    shared.up = True
    # No request waits on Redis during an outage: this one is answered from memory, and a
    # background probe finds Redis back.
    assert (await cache.get("b")) is not None
    for _ in range(3):
        await asyncio.sleep(0)
    assert not cache.down
    assert (await cache.get("a")) is not None  # back on Redis
    assert await cache.get("b") is None  # memory copies are dropped: Redis is the truth again
    # After a restart, a pooled connection fails once: tried again, it is no outage.
    shared.stale_connections = 1
    assert (await cache.get("a")) is not None and not cache.down
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in messages] == ["WARNING", "INFO"], messages
    assert "Connection refused" in messages[0][1]
