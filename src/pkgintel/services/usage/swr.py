"""
`SwrValue`: one JSON value kept in the shared cache with stale-while-revalidate: fresh for
`fresh_s` seconds (served as is), then stale until `hard_s` (served at once while one background
task recomputes it), then gone (the caller waits for a recomputation). A broken cache counts as a
miss. At most one recomputation runs per process at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import StorageError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Served:
    """A value and how it was served: `fresh`, `stale` (a refresh is running) or `computed`."""

    value: dict[str, Any]
    cache: str
    age_s: int


class SwrValue:
    """See the module docstring."""

    def __init__(
        self,
        cache: Cache,
        key: str,
        compute: Callable[[], Awaitable[dict[str, Any]]],
        *,
        fresh_s: float,
        hard_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._cache, self._key, self._compute = cache, key, compute
        self._fresh, self._hard, self._clock = fresh_s, hard_s, clock
        self._refresh: asyncio.Task[dict[str, Any]] | None = None

    async def get(self) -> Served:
        """The value (see the module docstring); `StorageError` when it must be computed and the
        database fails."""
        entry = None
        with contextlib.suppress(CacheUnavailable):
            entry = await self._cache.get(self._key)
        now = self._clock()
        if entry is not None and entry.is_usable(now):
            age = max(0, int(now - entry.stored_at))
            if entry.is_fresh(now):
                return Served(orjson.loads(entry.value), "fresh", age)
            if self._refresh is None or self._refresh.done():
                self._refresh = asyncio.create_task(self._recompute_quietly())
            return Served(orjson.loads(entry.value), "stale", age)
        return Served(await self._recompute(), "computed", 0)

    async def _recompute(self) -> dict[str, Any]:
        value = await self._compute()
        with contextlib.suppress(CacheUnavailable):
            await self._cache.set(
                self._key,
                orjson.dumps(value),
                ttl_s=self._fresh,
                stale_s=max(0.0, self._hard - self._fresh),
            )
        return value

    async def _recompute_quietly(self) -> dict[str, Any]:
        try:
            return await self._recompute()
        except StorageError:
            log.warning(
                "recomputing %s failed; the stale value is served until %s s old",
                self._key,
                self._hard,
            )
            return {}
