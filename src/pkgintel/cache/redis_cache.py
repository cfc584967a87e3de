"""`RedisCache`: the cache shared by every worker process, on Redis (redis-py asyncio)."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from pkgintel.cache.base import CacheEntry, CacheUnavailable

_HEADER = struct.Struct("!ddd")  # stored_at, fresh_until, stale_until


class RedisCache:
    """Values stored as one string (timing header + bytes) with a Redis expiry at `stale_until`. See `Cache`."""

    def __init__(
        self, client: Redis, *, prefix: str = "pkgintel:", clock: Callable[[], float] = time.time
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._clock = clock

    @classmethod
    def from_url(cls, url: str) -> RedisCache:
        # One immediate retry (a pooled connection a Redis restart closed), never the client's
        # default of several retries with backoff: a request must not wait seconds for a Redis
        # that is away (`FallbackCache` serves from memory meanwhile).
        retry = Retry(NoBackoff(), 1)
        return cls(Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0, retry=retry))

    @property
    def backend(self) -> str:
        return "redis"

    async def get(self, key: str) -> CacheEntry | None:
        try:
            raw = await self._redis.get(self._prefix + key)
        except (RedisError, OSError) as exc:
            raise CacheUnavailable(str(exc)) from exc
        if not isinstance(raw, bytes) or len(raw) < _HEADER.size:
            return None
        stored, fresh, stale = _HEADER.unpack_from(raw)
        entry = CacheEntry(bytes(raw[_HEADER.size :]), stored, fresh, stale)
        return entry if entry.is_usable(self._clock()) else None

    async def set(self, key: str, value: bytes, *, ttl_s: float, stale_s: float = 0.0) -> None:
        now = self._clock()
        header = _HEADER.pack(now, now + ttl_s, now + ttl_s + stale_s)
        expire_ms = max(1, int((ttl_s + stale_s) * 1000))
        try:
            await self._redis.set(self._prefix + key, header + value, px=expire_ms)
        except (RedisError, OSError) as exc:
            raise CacheUnavailable(str(exc)) from exc

    async def delete(self, key: str) -> None:
        try:
            await self._redis.delete(self._prefix + key)
        except (RedisError, OSError) as exc:
            raise CacheUnavailable(str(exc)) from exc

    async def hit_window(self, key: str, window_s: int) -> int:
        bucket = int(self._clock()) // window_s
        full = f"{self._prefix}win:{key}:{bucket}"
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incr(full)
                pipe.expire(full, window_s * 2)
                count, _ = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise CacheUnavailable(str(exc)) from exc
        return int(count)

    async def ping(self) -> None:
        try:
            await self._redis.ping()
        except (RedisError, OSError) as exc:
            raise CacheUnavailable(str(exc)) from exc

    async def close(self) -> None:
        await self._redis.aclose()
