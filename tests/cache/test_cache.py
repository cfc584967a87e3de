"""The `Cache` contract on the memory cache and, when configured, Redis: freshness, stale window, counters."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

import pytest

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.cache.memory import MemoryCache
from pkgintel.cache.redis_cache import RedisCache

REDIS_URL = os.environ.get("PKGINTEL_TEST_REDIS_URL")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


KINDS = [
    "memory",
    pytest.param(
        "redis", marks=pytest.mark.skipif(not REDIS_URL, reason="PKGINTEL_TEST_REDIS_URL not set")
    ),
]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=KINDS)
async def cache(request: pytest.FixtureRequest, clock: Clock) -> AsyncIterator[Cache]:
    if request.param == "memory":
        yield MemoryCache(100, clock=clock)
        return
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL)  # type: ignore[arg-type]
    await client.flushdb()
    rc = RedisCache(client, clock=clock)
    yield rc
    await rc.close()


async def test_fresh_then_stale_then_gone(cache: Cache, clock: Clock) -> None:
    await cache.set("k", b"value", ttl_s=10, stale_s=20)
    entry = await cache.get("k")
    assert entry is not None and entry.value == b"value" and entry.is_fresh(clock.now)
    clock.now += 15
    entry = await cache.get("k")
    assert entry is not None and not entry.is_fresh(clock.now)
    clock.now += 20
    assert await cache.get("k") is None


async def test_delete_and_missing(cache: Cache) -> None:
    assert await cache.get("absent") is None
    await cache.set("k", b"v", ttl_s=60)
    await cache.delete("k")
    await cache.delete("k")
    assert await cache.get("k") is None


async def test_hit_window_counts_within_a_window(cache: Cache, clock: Clock) -> None:
    clock.now = 6000.0
    assert [await cache.hit_window("c", 60) for _ in range(3)] == [1, 2, 3]
    clock.now += 60
    assert await cache.hit_window("c", 60) == 1


async def test_ping(cache: Cache) -> None:
    await cache.ping()


def test_memory_cache_evicts_least_recently_used() -> None:
    import asyncio

    async def run() -> None:
        c = MemoryCache(100)
        for i in range(150):
            await c.set(f"k{i}", b"x", ttl_s=60)
        assert await c.get("k0") is None
        assert await c.get("k149") is not None

    asyncio.run(run())


async def test_redis_down_raises_cache_unavailable() -> None:
    rc = RedisCache.from_url("redis://127.0.0.1:1/0")
    with pytest.raises(CacheUnavailable):
        await rc.get("k")
    await rc.close()
