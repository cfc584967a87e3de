"""`cache.memory_lru.MemoryLRU`: the bound drops the least recently used entry, the time to live
drops old ones, the injected clock decides."""

from __future__ import annotations

import pytest

from pkgintel.cache.memory_lru import MemoryLRU


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_bound_drops_least_recently_used() -> None:
    lru = MemoryLRU[str, int](2)
    lru.set("a", 1)
    lru.set("b", 2)
    assert lru.get("a") == 1  # "a" is now the most recently used
    lru.set("c", 3)
    assert (lru.get("a"), lru.get("b"), lru.get("c")) == (1, None, 3)
    assert len(lru) == 2


def test_replacing_a_key_refreshes_it() -> None:
    lru = MemoryLRU[str, int](2)
    lru.set("a", 1)
    lru.set("b", 2)
    lru.set("a", 10)
    lru.set("c", 3)
    assert (lru.get("a"), lru.get("b")) == (10, None)


def test_time_to_live_from_the_last_set() -> None:
    clock = Clock()
    lru = MemoryLRU[str, str](10, ttl_s=60, clock=clock)
    lru.set("k", "v")
    clock.now += 59.9
    assert lru.get("k") == "v"  # a read does not extend the life
    clock.now += 0.1
    assert lru.get("k") is None
    assert len(lru) == 0  # the expired entry is dropped on read
    lru.set("k", "w")
    clock.now += 30
    assert lru.get("k") == "w"


def test_without_ttl_entries_never_expire() -> None:
    clock = Clock()
    lru = MemoryLRU[str, str](10, clock=clock)
    lru.set("k", "v")
    clock.now += 10**9
    assert lru.get("k") == "v"


def test_zero_ttl_keeps_nothing() -> None:
    lru = MemoryLRU[str, str](10, ttl_s=0, clock=Clock())
    lru.set("k", "v")
    assert lru.get("k") is None


def test_pop_and_clear() -> None:
    lru = MemoryLRU[tuple[str, int], str](10)
    lru.set(("a", 1), "x")
    lru.set(("b", 2), "y")
    assert lru.pop(("a", 1)) == "x"
    assert lru.pop(("a", 1)) is None
    lru.clear()
    assert len(lru) == 0 and lru.get(("b", 2)) is None


@pytest.mark.parametrize(("entries", "ttl"), [(0, None), (-1, None), (1, -1.0)])
def test_bad_bounds_are_refused(entries: int, ttl: float | None) -> None:
    with pytest.raises(ValueError, match="must"):
        MemoryLRU[str, str](entries, ttl_s=ttl)
