"""`TtlCache`: what a credential digest resolved to, kept in process memory for a few seconds so
the request path does not ask the database on every call."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class TtlCache(Generic[T]):
    """`get` → (found, value); entries live `ttl_s` seconds; `drop` forgets one at once (a revoke
    in this process). At most `max_entries`: when full, expired entries go, then the oldest."""

    def __init__(
        self,
        ttl_s: float,
        *,
        max_entries: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self._max = max_entries
        self._clock = clock
        self._entries: dict[str, tuple[float, T]] = {}

    def get(self, key: str) -> tuple[bool, T | None]:
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        if entry[0] <= self._clock():
            del self._entries[key]
            return False, None
        return True, entry[1]

    def put(self, key: str, value: T) -> None:
        if len(self._entries) >= self._max:
            now = self._clock()
            for k in [k for k, (until, _) in self._entries.items() if until <= now]:
                del self._entries[k]
            while len(self._entries) >= self._max:
                del self._entries[next(iter(self._entries))]
        self._entries[key] = (self._clock() + self.ttl_s, value)

    def drop(self, key: str) -> None:
        self._entries.pop(key, None)

    def drop_where(self, matches: Callable[[T | None], bool]) -> None:
        for k in [k for k, (_, value) in self._entries.items() if matches(value)]:
            del self._entries[k]
