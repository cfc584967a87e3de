"""
`FallbackCache`: the shared (Redis) cache, with a small in-process cache standing in while Redis is
away.

Without it a Redis outage turns every cache read into a miss and every miss into an upstream call
(each worker asks the registry for the same document on every request), and every request logs its
own `cache unavailable` WARNING. With it:

- while Redis answers, every call goes to Redis, as before (the local cache is not written);
- when a Redis call fails twice in a row (the first failure may be a pooled connection that died
  with a restarted server), the outage starts: one WARNING, then reads and writes go to the local
  LRU (`MemoryCache`), so a document fetched once is served from memory to this worker's later
  requests, and the callers' single-flight (`PackageService._fetch_shared`) keeps concurrent
  misses to one fetch; `hit_window` (rate limits) counts per process meanwhile;
- meanwhile no request waits on Redis: a background `ping` at most every `retry_s` seconds (while
  requests come) probes it; the first that succeeds ends the outage with one INFO line and drops
  the local copies (Redis holds the shared truth again).

It never raises `CacheUnavailable` for reads and writes. `ping` still reports the backend as it is
(the health probe must say Redis is down).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pkgintel.cache.base import Cache, CacheEntry, CacheUnavailable
from pkgintel.cache.memory import MemoryCache

logger = logging.getLogger(__name__)

T = TypeVar("T")

LOCAL_ENTRIES = 5_000
"""Entries the stand-in cache holds during an outage (an LRU: the busiest packages stay)."""


class FallbackCache:
    """See the module docstring. `shared` is the Redis cache; `local` the stand-in."""

    def __init__(
        self,
        shared: Cache,
        *,
        local_entries: int = LOCAL_ENTRIES,
        retry_s: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._shared = shared
        self._local_entries = local_entries
        self._local = MemoryCache(local_entries)
        self._retry_s = retry_s
        self._monotonic = monotonic
        self._down_since: float | None = None
        self._next_try = 0.0
        self._failures = 0
        self._probe: asyncio.Future[None] | None = None

    @property
    def backend(self) -> str:
        return self._shared.backend

    @property
    def shared(self) -> Cache:
        """The cache this one stands in for."""
        return self._shared

    @property
    def down(self) -> bool:
        """Whether the shared cache is taken to be away (the local one is serving)."""
        return self._down_since is not None

    async def _call(
        self, shared: Callable[[], Awaitable[T]], local: Callable[[], Awaitable[T]]
    ) -> T:
        if self._down_since is not None:
            # No request waits on a Redis that is away: one background probe at most per
            # `retry_s` ends the outage when it answers.
            self._failures += 1
            if self._monotonic() >= self._next_try and (self._probe is None or self._probe.done()):
                self._next_try = self._monotonic() + self._retry_s
                self._probe = asyncio.ensure_future(self._probe_shared())
            return await local()
        try:
            result = await shared()
        except CacheUnavailable:
            # A pooled connection that died with a restarted server fails once; the client drops
            # it, and a second try on a new connection says whether the server is really away.
            try:
                result = await shared()
            except CacheUnavailable as again:
                self._failed(again)
                return await local()
        return result

    async def _probe_shared(self) -> None:
        try:
            await self._shared.ping()
        except CacheUnavailable:
            return
        except Exception:  # a probe never fails anything; the next one tries again
            logger.debug("shared cache probe failed", exc_info=True)
            return
        if self._down_since is not None:
            self._recovered()

    def _failed(self, exc: CacheUnavailable) -> None:
        now = self._monotonic()
        self._next_try = now + self._retry_s
        self._failures += 1
        if self._down_since is None:
            self._down_since = now
            logger.warning(
                "shared cache unavailable (%s); serving from this process's memory until it is back",
                str(exc)[:200],
            )

    def _recovered(self) -> None:
        assert self._down_since is not None
        took = self._monotonic() - self._down_since
        logger.info(
            "shared cache available again after %.1f s; %d calls were served from memory",
            took,
            self._failures,
        )
        self._down_since, self._failures = None, 0
        self._local = MemoryCache(self._local_entries)

    async def get(self, key: str) -> CacheEntry | None:
        return await self._call(lambda: self._shared.get(key), lambda: self._local.get(key))

    async def set(self, key: str, value: bytes, *, ttl_s: float, stale_s: float = 0.0) -> None:
        await self._call(
            lambda: self._shared.set(key, value, ttl_s=ttl_s, stale_s=stale_s),
            lambda: self._local.set(key, value, ttl_s=ttl_s, stale_s=stale_s),
        )

    async def delete(self, key: str) -> None:
        await self._local.delete(key)
        await self._call(lambda: self._shared.delete(key), lambda: self._local.delete(key))

    async def hit_window(self, key: str, window_s: int) -> int:
        return await self._call(
            lambda: self._shared.hit_window(key, window_s),
            lambda: self._local.hit_window(key, window_s),
        )

    async def ping(self) -> None:
        """Round-trips the shared cache; raises `CacheUnavailable` when it fails (and a success
        ends an outage)."""
        try:
            await self._shared.ping()
        except CacheUnavailable as exc:
            self._failed(exc)
            raise
        if self._down_since is not None:
            self._recovered()

    async def close(self) -> None:
        close = getattr(self._shared, "close", None)
        if close is not None:
            await close()
