"""
`RateLimiter`: counts requests against the rules of a `LimitPolicy` with a moving window: with the
`limits` library on Redis when `PKGINTEL_REDIS_URL` is set (so every worker shares the count), else in
this process's memory with `LocalWindows` (the same rule at a microsecond per hit; ADR 0039).
"""

from __future__ import annotations

import math
import time
from typing import NamedTuple

from limits import RateLimitItem, parse
from limits.aio.strategies import MovingWindowRateLimiter

from pkgintel.cache.rate_gate import limits_storage
from pkgintel.domain.rate_limits import LimitPolicy, LimitRule
from pkgintel.services.accounts.local_windows import LocalWindows


class Verdict(NamedTuple):
    """One rule's count after a request: what the `RateLimit-*` headers say. A named tuple: one is
    made per counted request."""

    rule: str
    allowed: bool
    limit: int
    remaining: int
    reset_s: int
    """Seconds until a slot frees (the `RateLimit-Reset` and, when refused, `Retry-After`)."""
    window: str
    """The limit as text (`100 per 1 minute`)."""


class RateLimiter:
    """See the module docstring. `close()` releases the Redis connections."""

    def __init__(self, policy: LimitPolicy, *, redis_url: str | None = None) -> None:
        self.policy = policy
        self.shared = redis_url is not None
        self._local: LocalWindows | None = None
        self._limiter: MovingWindowRateLimiter | None = None
        self._pool = None
        if self.shared:
            storage, self._pool = limits_storage(redis_url)
            self._limiter = MovingWindowRateLimiter(storage)
        else:
            self._local = LocalWindows()
        self._items: dict[str, RateLimitItem] = {r.name: parse(r.limit) for r in policy.rules()}
        self._texts = {name: str(item) for name, item in self._items.items()}
        self._seconds = {name: item.get_expiry() for name, item in self._items.items()}

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.disconnect()

    def describe(self, rule: LimitRule) -> str:
        return str(self._items[rule.name])

    async def hit(self, rule: LimitRule, key: str) -> Verdict:
        """Count one request of `key` against `rule`; a refused request is not counted."""
        item = self._items[rule.name]
        if self._local is not None:
            allowed, remaining, seconds = self._local.hit(
                rule.name, key, item.amount, self._seconds[rule.name]
            )
            reset_s = max(1, math.ceil(seconds))
            return Verdict(
                rule.name, allowed, item.amount, max(0, remaining), reset_s, self._texts[rule.name]
            )
        assert self._limiter is not None
        allowed = await self._limiter.hit(item, rule.name, key)
        stats = await self._limiter.get_window_stats(item, rule.name, key)
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Verdict(rule.name, allowed, item.amount, max(0, stats.remaining), reset, str(item))

    async def hit_all(self, rules: list[tuple[LimitRule, str]]) -> Verdict:
        """Count against every `(rule, key)`; the verdict to report is the first refusal, else the
        one with the fewest requests left (the limit the caller meets first)."""
        if len(rules) == 1:  # the common case: the caller's limit alone
            return await self.hit(*rules[0])
        verdicts = [await self.hit(rule, key) for rule, key in rules]
        refused = [v for v in verdicts if not v.allowed]
        if refused:
            return max(refused, key=lambda v: v.reset_s)
        return min(verdicts, key=lambda v: (v.remaining, -v.reset_s))
