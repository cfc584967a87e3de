"""
`PageMemo`: the answers a page rendered in the last few seconds, so a page asked for again (a
reload, a back button, the next visitor) is rendered without recomputing them.

The memo keeps answers, not pages: each render recomputes every source's age from its fetch time,
so an age shown is never older than the request. A key names everything the answers depend on
(the page, its arguments, and, for lists of advisories, the newest feed event), and an entry lives
at most `ttl_s` seconds. Errors are never kept. One memo per app (`app.state.web_memo`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

TTL_S = 30.0
MAX_ENTRIES = 512


class PageMemo:
    def __init__(
        self,
        ttl_s: float = TTL_S,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()

    async def get(self, key: Hashable, compute: Callable[[], Awaitable[T]]) -> T:
        """The value kept for `key` if younger than `ttl_s`, else `compute()`'s (then kept).
        What `compute` raises passes through and nothing is kept."""
        now = self._clock()
        hit = self._entries.get(key)
        if hit is not None and now - hit[0] < self._ttl_s:
            self._entries.move_to_end(key)
            return hit[1]  # type: ignore[no-any-return]
        value = await compute()
        self._entries[key] = (now, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)
        return value

    def clear(self) -> None:
        self._entries.clear()
