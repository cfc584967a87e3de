"""`MemoryCache`: an in-process LRU cache (the zero-configuration default; real code, also used by tests)."""

from __future__ import annotations

import time
from collections.abc import Callable

from pkgintel.cache.base import CacheEntry
from pkgintel.cache.memory_lru import MemoryLRU


class MemoryCache:
    """LRU of at most `max_entries` entries; windows counted per process. See `Cache`."""

    def __init__(self, max_entries: int = 20000, *, clock: Callable[[], float] = time.time) -> None:
        self._entries = MemoryLRU[str, CacheEntry](max_entries, clock=clock)
        self._windows: dict[str, tuple[int, int]] = {}
        self._max = max_entries
        self._clock = clock

    @property
    def backend(self) -> str:
        return "memory"

    async def get(self, key: str) -> CacheEntry | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if not entry.is_usable(self._clock()):
            self._entries.pop(key)
            return None
        return entry

    async def set(self, key: str, value: bytes, *, ttl_s: float, stale_s: float = 0.0) -> None:
        now = self._clock()
        self._entries.set(key, CacheEntry(value, now, now + ttl_s, now + ttl_s + stale_s))

    async def delete(self, key: str) -> None:
        self._entries.pop(key)

    async def hit_window(self, key: str, window_s: int) -> int:
        bucket = int(self._clock()) // window_s
        current, count = self._windows.get(key, (bucket, 0))
        count = count + 1 if current == bucket else 1
        self._windows[key] = (bucket, count)
        if len(self._windows) > self._max:
            # Drop counters of past windows; they can no longer matter.
            self._windows = {k: v for k, v in self._windows.items() if v[0] == bucket}
        return count

    async def ping(self) -> None:
        return None
