"""
`cached_signal`: one upstream signal (a Scorecard result, an attestation index) through the shared
cache, with a stale fallback — the pattern of `PackageService` for sources that are not registries.

1. Fresh entry → served (`hit`).
2. Missing or past freshness → fetched; on success cached for `ttl_s` plus `stale_s` (`miss`).
   "Nothing there" (the fetch returns None: not scanned, not attested) is cached too, for `none_ttl_s`.
3. Fetch failing with a `RegistryError` → the past-fresh entry when still usable (`stale`, with the
   failure as detail); otherwise the error propagates and the caller says "unavailable".
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

import orjson

from pkgintel.cache.base import Cache, CacheEntry, CacheUnavailable
from pkgintel.domain.errors import RegistryError

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Cached(Generic[T]):
    """A signal value (None: the upstream has nothing for it), when it was fetched, and how served."""

    value: T | None
    fetched_at: datetime
    cache_status: str
    """`hit`, `miss` or `stale`."""
    detail: str | None = None
    """Why a stale copy was served."""


async def _get(cache: Cache, key: str) -> CacheEntry | None:
    try:
        return await cache.get(key)
    except CacheUnavailable as exc:
        logger.warning("cache unavailable on get: %s", exc)
        return None


async def _set(cache: Cache, key: str, raw: bytes, ttl: float, stale: float) -> None:
    try:
        await cache.set(key, raw, ttl_s=ttl, stale_s=stale)
    except CacheUnavailable as exc:
        logger.warning("cache unavailable on set: %s", exc)


def _decode(entry: CacheEntry, decode: Callable[[object], T]) -> tuple[T | None, datetime] | None:
    """`(value, fetched_at)` of an entry written by `cached_signal` (`{"t": fetched, "v": value}`)."""
    try:
        doc = orjson.loads(entry.value)
        when = datetime.fromtimestamp(float(doc["t"]), UTC)
        return (None if doc["v"] is None else decode(doc["v"])), when
    except (ValueError, KeyError, TypeError, IndexError):
        logger.warning("dropping an undecodable cached signal")
        return None


async def cached_signal(
    cache: Cache,
    key: str,
    fetch: Callable[[], Awaitable[T | None]],
    *,
    encode: Callable[[T], object],
    decode: Callable[[object], T],
    ttl_s: float,
    stale_s: float,
    none_ttl_s: float,
    now: Callable[[], float],
) -> Cached[T]:
    """See the module docstring. Raises the fetch's `RegistryError` when no usable copy exists."""
    entry = await _get(cache, key)
    decoded = _decode(entry, decode) if entry is not None else None
    if entry is not None and decoded is not None and entry.is_fresh(now()):
        return Cached(decoded[0], decoded[1], "hit")
    try:
        value = await fetch()
    except RegistryError as exc:
        if entry is not None and decoded is not None:
            return Cached(
                decoded[0],
                decoded[1],
                "stale",
                f"{exc.message} ({exc.reason}); serving the copy fetched at "
                f"{decoded[1].isoformat().replace('+00:00', 'Z')}",
            )
        raise
    stamp = now()
    doc = {"t": stamp, "v": None if value is None else encode(value)}
    if value is None:
        await _set(cache, key, orjson.dumps(doc), none_ttl_s, 0)
    else:
        await _set(cache, key, orjson.dumps(doc), ttl_s, stale_s)
    return Cached(value, datetime.fromtimestamp(stamp, UTC), "miss")
