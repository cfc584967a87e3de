"""The `Cache` Protocol: bytes with a freshness window and a stale window (stale-while-revalidate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """A cached value and its timing, in UNIX seconds."""

    value: bytes
    stored_at: float
    fresh_until: float
    stale_until: float

    def is_fresh(self, now: float) -> bool:
        return now < self.fresh_until

    def is_usable(self, now: float) -> bool:
        """Fresh, or stale but still inside the stale-while-revalidate window."""
        return now < self.stale_until


class Cache(Protocol):
    """
    A key → bytes cache shared by the request handlers.

    `get` returns an entry until `stale_until` (callers decide whether a stale entry is served while
    it is refreshed); after that it is gone. Implementations never raise for a missing key; a broken
    backend raises `CacheUnavailable`, which callers treat as a miss.
    """

    @property
    def backend(self) -> str:
        """`memory` or `redis`."""
        ...

    async def get(self, key: str) -> CacheEntry | None:
        """The entry, or None when absent or past its stale window."""
        ...

    async def set(self, key: str, value: bytes, *, ttl_s: float, stale_s: float = 0.0) -> None:
        """Store `value`, fresh for `ttl_s` seconds and then usable-while-stale for `stale_s` more."""
        ...

    async def delete(self, key: str) -> None:
        """Forget `key` (no error when absent)."""
        ...

    async def hit_window(self, key: str, window_s: int) -> int:
        """Count one hit on `key` and return the hits within the current `window_s`-second window."""
        ...

    async def ping(self) -> None:
        """Round-trip the backend; raises `CacheUnavailable` when it fails."""
        ...


class CacheUnavailable(Exception):
    """The cache backend did not answer."""
