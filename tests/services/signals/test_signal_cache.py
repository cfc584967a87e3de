"""`cached_signal`: fresh hits, "nothing there" cached, a stale copy served while the upstream fails."""

from __future__ import annotations

import pytest

from pkgintel.cache.memory import MemoryCache
from pkgintel.domain.errors import RegistryUnavailable
from pkgintel.services.signals.cache import cached_signal


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Upstream:
    def __init__(self) -> None:
        self.calls = 0
        self.value: dict | None = {"score": 7}
        self.down = False

    async def fetch(self) -> dict | None:
        self.calls += 1
        if self.down:
            raise RegistryUnavailable("scorecard", "down", reason="status.503", source="x")
        return self.value


async def _get(cache: MemoryCache, up: Upstream, clock: Clock):
    return await cached_signal(
        cache,
        "k",
        up.fetch,
        encode=lambda v: v,
        decode=lambda d: d,
        ttl_s=100,
        stale_s=1000,
        none_ttl_s=50,
        now=clock,
    )


async def test_fresh_copy_is_a_hit_and_stale_copy_survives_outage() -> None:
    clock, up = Clock(), Upstream()
    cache = MemoryCache(clock=clock)
    first = await _get(cache, up, clock)
    assert (first.value, first.cache_status, up.calls) == ({"score": 7}, "miss", 1)
    assert (await _get(cache, up, clock)).cache_status == "hit" and up.calls == 1
    clock.now += 500  # past freshness, inside the stale window
    up.down = True
    stale = await _get(cache, up, clock)
    assert stale.value == {"score": 7} and stale.cache_status == "stale"
    assert stale.detail and "status.503" in stale.detail
    assert stale.fetched_at == first.fetched_at
    clock.now += 2000  # past the stale window: nothing to serve, the failure surfaces
    with pytest.raises(RegistryUnavailable):
        await _get(cache, up, clock)


async def test_nothing_there_is_cached_briefly() -> None:
    clock, up = Clock(), Upstream()
    up.value = None
    cache = MemoryCache(clock=clock)
    assert (await _get(cache, up, clock)).value is None
    assert (await _get(cache, up, clock)).cache_status == "hit" and up.calls == 1
    clock.now += 60
    await _get(cache, up, clock)
    assert up.calls == 2
