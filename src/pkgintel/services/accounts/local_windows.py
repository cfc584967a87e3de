"""
`LocalWindows`: exact moving-window counters in this process's memory, for the rate limits of a
single-process deployment (no Redis).

Same rule as the `limits` library's moving window (ADR 0039): a hit is allowed when fewer than
`amount` hits of the key fall in the last `seconds`; a refused hit is not counted. Each key keeps
the times of its counted hits in a deque (at most `amount` of them), so a hit costs O(1) amortised
and about a microsecond — against ~30 µs through `limits`' asynchronous memory storage, which was
more than the whole `/api/exists` answer. Keys whose windows have emptied are swept now and then,
so idle callers do not accumulate.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Final

_SWEEP_EVERY: Final = 50_000
"""Hits between two sweeps of idle keys."""


class LocalWindows:
    """See the module docstring. Not thread-safe: one event loop uses it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._hits: dict[tuple[str, str], deque[float]] = {}
        self._since_sweep = 0

    def hit(self, namespace: str, key: str, amount: int, seconds: float) -> tuple[bool, int, float]:
        """Count one hit of `key` under `namespace`: `(allowed, remaining, seconds until a slot
        frees)`; a refused hit is not counted."""
        now = self._clock()
        window = self._hits.get((namespace, key))
        if window is None:
            window = self._hits[(namespace, key)] = deque()
        cutoff = now - seconds
        while window and window[0] <= cutoff:
            window.popleft()
        allowed = len(window) < amount
        if allowed:
            window.append(now)
        reset = window[0] + seconds - now if window else seconds
        self._since_sweep += 1
        if self._since_sweep >= _SWEEP_EVERY:
            self._sweep(now)
        return allowed, amount - len(window), reset

    def _sweep(self, now: float) -> None:
        self._since_sweep = 0
        # A key whose newest hit is older than the longest window is idle; a window per namespace
        # is not known here, so the sweep keeps anything hit in the last hour.
        idle = [k for k, w in self._hits.items() if not w or w[-1] <= now - 3600]
        for key in idle:
            del self._hits[key]
