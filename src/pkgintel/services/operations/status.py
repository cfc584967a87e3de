"""`StatusService`: uptime, component checks and counters for `/api/status`, `/api/health`, `/api/now`."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pkgintel import __version__
from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.storage.base import NameStore, StoreHealth

_STATES_TTL_S = 5.0


@dataclass
class RequestStats:
    """In-process counters (per worker): requests by endpoint group and by cache status."""

    started: float = field(default_factory=time.time)
    requests: Counter[str] = field(default_factory=Counter)
    cache: Counter[str] = field(default_factory=Counter)

    def count(self, group: str) -> None:
        self.requests[group] += 1


class StatusService:
    """Checks components with a short timeout; reports failures as strings, never by raising."""

    def __init__(
        self,
        db: StoreHealth,
        cache: Cache,
        names: NameStore,
        *,
        supported: tuple[str, ...],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._db = db
        self._cache = cache
        self._names = names
        self._supported = supported
        self._clock = clock
        self.stats = RequestStats(started=clock())
        self._states: tuple[float, list[dict[str, Any]]] | None = None

    @property
    def database(self) -> StoreHealth:
        """The database round trip the probes use."""
        return self._db

    @property
    def version(self) -> str:
        return __version__

    @property
    def uptime_s(self) -> float:
        return round(self._clock() - self.stats.started, 3)

    async def _check(self, probe: Any, timeout: float) -> str:
        try:
            await asyncio.wait_for(probe(), timeout)
        except TimeoutError:
            return f"error: no answer within {timeout:g} s"
        except Exception as exc:
            return f"error: {exc.__class__.__name__}: {exc}"[:200]
        return "ok"

    async def components(self, timeout: float = 1.0) -> dict[str, str]:
        """`{"database": "ok"|"error: ...", "cache": ...}`."""
        db, cache = await asyncio.gather(
            self._check(self._db.ping, timeout), self._check(self._cache.ping, timeout)
        )
        return {"database": db, "cache": cache}

    async def name_indexes(self) -> list[dict[str, Any]]:
        """Loaded name indexes (cached for a few seconds: the status probe must stay cheap)."""
        now = self._clock()
        if self._states is not None and now - self._states[0] < _STATES_TTL_S:
            return self._states[1]
        states = await self._names.list_index_states()
        out = [
            {
                "ecosystem": s.ecosystem.value,
                "names": s.names_count,
                "loaded_at": s.loaded_at.isoformat(),
                "source": s.source,
            }
            for s in states
        ]
        self._states = (now, out)
        return out

    def backends(self) -> dict[str, str]:
        return {"database": self._db.backend, "cache": self._cache.backend}

    async def hit_window(self, key: str, window_s: int) -> int:
        """Count a hit for `key` in the shared cache's window counter; 0 when the cache is down."""
        try:
            return await self._cache.hit_window(key, window_s)
        except CacheUnavailable:
            return 0

    @property
    def supported(self) -> tuple[str, ...]:
        return self._supported
