"""
`LimitsGate`: a per-key rate limit on the `limits` library (moving window), in memory by default
and in Redis when configured, so every worker shares the count.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.asyncio import ConnectionPool


def limits_storage(redis_url: str | None) -> tuple[Storage, ConnectionPool | None]:
    """The `limits` storage every limiter of a process uses: Redis when `redis_url` is set (with
    the pool to disconnect at shutdown), else process memory."""
    if not redis_url:
        return MemoryStorage(), None
    uri = redis_url if redis_url.startswith("async+") else f"async+{redis_url}"
    # Our own pool, so the owner can release its connections at shutdown.
    pool = ConnectionPool.from_url(redis_url.removeprefix("async+"))
    storage = RedisStorage(
        uri,
        implementation="redispy",
        key_prefix="pkgintel-limits",
        connection_pool=pool,  # type: ignore[arg-type]
    )
    return storage, pool


class LimitsGate:
    """`allow(key)` → None when under the limit, else seconds until a slot frees."""

    def __init__(
        self, limit: str, *, redis_url: str | None = None, namespace: str = "gate"
    ) -> None:
        self._item: RateLimitItem = parse(limit)
        self._namespace = namespace
        storage, self._pool = limits_storage(redis_url)
        self._limiter = MovingWindowRateLimiter(storage)

    async def close(self) -> None:
        """Disconnect the Redis pool, when there is one."""
        if self._pool is not None:
            await self._pool.disconnect()

    @property
    def limit(self) -> str:
        return str(self._item)

    async def allow(self, key: str) -> int | None:
        if await self._limiter.hit(self._item, self._namespace, key):
            return None
        stats = await self._limiter.get_window_stats(self._item, self._namespace, key)
        return max(1, math.ceil(stats.reset_time - time.time()))
