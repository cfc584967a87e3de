"""
`RateLimiter`: counts requests against the rules of a `LimitPolicy` with the `limits` library
(moving window), on the storage `cache.rate_gate.limits_storage` gives every limiter of the process:
process memory by default, Redis when `PKGINTEL_REDIS_URL` is set, so every worker shares the count.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.strategies import MovingWindowRateLimiter

from pkgintel.cache.rate_gate import limits_storage
from pkgintel.domain.rate_limits import LimitPolicy, LimitRule


@dataclass(frozen=True, slots=True)
class Verdict:
    """One rule's count after a request: what the `RateLimit-*` headers say."""

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
        storage, self._pool = limits_storage(redis_url)
        self._limiter = MovingWindowRateLimiter(storage)
        self._items: dict[str, RateLimitItem] = {r.name: parse(r.limit) for r in policy.rules()}

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.disconnect()

    def describe(self, rule: LimitRule) -> str:
        return str(self._items[rule.name])

    async def hit(self, rule: LimitRule, key: str) -> Verdict:
        """Count one request of `key` against `rule`; a refused request is not counted."""
        item = self._items[rule.name]
        allowed = await self._limiter.hit(item, rule.name, key)
        stats = await self._limiter.get_window_stats(item, rule.name, key)
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Verdict(rule.name, allowed, item.amount, max(0, stats.remaining), reset, str(item))

    async def hit_all(self, rules: list[tuple[LimitRule, str]]) -> Verdict:
        """Count against every `(rule, key)`; the verdict to report is the first refusal, else the
        one with the fewest requests left (the limit the caller meets first)."""
        verdicts = [await self.hit(rule, key) for rule, key in rules]
        refused = [v for v in verdicts if not v.allowed]
        if refused:
            return max(refused, key=lambda v: v.reset_s)
        return min(verdicts, key=lambda v: (v.remaining, -v.reset_s))
