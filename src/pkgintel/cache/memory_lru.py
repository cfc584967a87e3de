"""
`MemoryLRU`: the one in-process cache primitive — a bounded map that forgets its least recently used
entry first, and, when given a time to live, entries older than it.

Every in-process cache of the service (the `memory` backend of `Cache`, the compatibility check's
npm constraints, the registry search answers, an adapter's once-an-hour index) is one of these, so
bounding, recency and expiry behave the same everywhere and are tested once (`tests/cache`).

Contract:
- `get(key)` gives the value stored for `key` when it is there and not expired, and marks it the
  most recently used; an expired entry is dropped and `None` returned. A stored `None` cannot be
  told from a miss: store something else for "known absent".
- `set(key, value)` stores or replaces `key` as the most recently used, stamped with `clock()`;
  past `max_entries` the least recently used entries are dropped.
- `ttl_s=None`: entries never expire (only the bound drops them). The clock is injected (default
  `time.monotonic`) so tests move time by hand.
- Not thread-safe: used from one event loop, where nothing runs between its steps.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class MemoryLRU(Generic[K, V]):
    """A bounded LRU map with an optional time to live (module docstring)."""

    __slots__ = ("_clock", "_entries", "_max", "_ttl")

    def __init__(
        self,
        max_entries: int,
        *,
        ttl_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        if ttl_s is not None and ttl_s < 0:
            raise ValueError("ttl_s must not be negative")
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._max = max_entries
        self._ttl = ttl_s
        self._clock = clock

    def get(self, key: K) -> V | None:
        """The live value of `key` (now the most recently used), or None."""
        held = self._entries.get(key)
        if held is None:
            return None
        if self._ttl is not None and self._clock() - held[0] >= self._ttl:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return held[1]

    def set(self, key: K, value: V) -> None:
        """Store `value` as the most recently used entry, dropping the least recently used past
        the bound."""
        self._entries[key] = (self._clock(), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def pop(self, key: K) -> V | None:
        """Forget `key`; its value (expired or not), or None when absent."""
        held = self._entries.pop(key, None)
        return None if held is None else held[1]

    def clear(self) -> None:
        """Forget every entry."""
        self._entries.clear()

    def __len__(self) -> int:
        """Entries held, expired ones not yet dropped included."""
        return len(self._entries)


__all__ = ["MemoryLRU"]
