"""
`FirstAsked`: the names our usage log recorded as asked for while they did not exist, with the first
time each was asked, kept in memory so that deciding whether a name is a slopsquat costs a dictionary
lookup, never a query per request.

Two feeds fill it:

- `note`, called by the usage log (`UsageLog.watch_unknown`) for every call that answered
  "not found": O(1), keeps the earliest time;
- `attach(loader)`: the history of the log (every name asked while unknown, with its first time),
  read with one grouped query on the first `get` and again at most every `ttl_s` seconds, so that
  asks recorded by other workers and before a restart count too. A failing read keeps what is
  held and is tried again after `ttl_s`.

At most `max_names` names are held (the newest the history loader returns, then the noted ones);
further names are not noted. Names are keys of `domain.names.rules.normalise_name`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from datetime import datetime

from pkgintel.domain.errors import StorageError

Loader = Callable[[], Awaitable[dict[tuple[str, str], datetime]]]

MAX_NAMES = 200_000
REFRESH_S = 600.0


class FirstAsked:
    """See the module docstring. `clock` returns monotonic seconds (injected for tests)."""

    def __init__(
        self,
        *,
        max_names: int = MAX_NAMES,
        ttl_s: float = REFRESH_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._asked: dict[tuple[str, str], datetime] = {}
        self._loader: Loader | None = None
        self._loaded_at: float | None = None
        self._max, self._ttl, self._clock = max_names, ttl_s, clock
        self._lock = asyncio.Lock()

    def attach(self, loader: Loader) -> None:
        """Read the usage log's history with `loader` (on the next `get`, then every `ttl_s`)."""
        self._loader, self._loaded_at = loader, None

    def note(self, ecosystem: str, package: str, at: datetime) -> None:
        """`package` (a normalised key) was asked for in `ecosystem` at `at` and did not exist."""
        key = (ecosystem, package)
        held = self._asked.get(key)
        if held is None:
            if len(self._asked) < self._max:
                self._asked[key] = at
        elif at < held:
            self._asked[key] = at

    async def get(self, ecosystem: str, package: str) -> datetime | None:
        """When `package` (a normalised key) was first asked for while it did not exist; None when
        the log never recorded it (or no log is attached)."""
        if self._loader is not None and (
            self._loaded_at is None or self._clock() - self._loaded_at >= self._ttl
        ):
            await self._refresh()
        return self._asked.get((ecosystem, package))

    async def _refresh(self) -> None:
        async with self._lock:
            if self._loaded_at is not None and self._clock() - self._loaded_at < self._ttl:
                return  # another caller refreshed while this one waited
            self._loaded_at = self._clock()
            if self._loader is None:
                return
            with contextlib.suppress(StorageError):
                for (ecosystem, package), at in (await self._loader()).items():
                    self.note(ecosystem, package, at)
