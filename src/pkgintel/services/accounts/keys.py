"""
`Keys`: API keys. A key is shown once, at creation (`pk_live_` + 32 random bytes in base62); the
database keeps its SHA-256 and a display prefix. A presented key is resolved through a per-process
cache of `cache_ttl_s` seconds (the request path asks the database at most once per key per TTL);
a revoke forgets the key at once in this process, and every other worker stops accepting it
within the TTL. Each key's last use and monthly count are gathered in memory and written in a
batch, off the request path, every `flush_interval_s` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime

from pkgintel.domain.accounts import (
    MAX_ACTIVE_KEYS,
    ApiKey,
    InvalidKey,
    KeyNotFound,
    TooManyKeys,
    digest,
    display_prefix,
    key_name,
    month_of,
    new_api_key,
    well_formed_key,
)
from pkgintel.domain.errors import PkgIntelError
from pkgintel.services.accounts.cache import TtlCache
from pkgintel.storage.accounts import SqlAccountStore

log = logging.getLogger(__name__)


class Keys:
    """See the module docstring."""

    def __init__(
        self,
        store: SqlAccountStore,
        clock: Callable[[], datetime],
        *,
        cache_ttl_s: float,
        flush_interval_s: float = 10.0,
    ) -> None:
        self._store = store
        self._clock = clock
        self._cache: TtlCache[tuple[int, int] | None] = TtlCache(cache_ttl_s)
        self._flush_interval = flush_interval_s
        self._uses: dict[int, tuple[int, datetime]] = {}
        self._last_flush = time.monotonic()
        self._flushing: asyncio.Task[None] | None = None

    @property
    def cache_ttl_s(self) -> float:
        return self._cache.ttl_s

    async def create(self, account_id: int, name: str | None) -> tuple[ApiKey, str]:
        """A new key of `account_id`: the stored record and the key itself (shown once)."""
        label = key_name(name)
        key = new_api_key()
        stored = await self._store.add_key(
            account_id, digest(key), display_prefix(key), label, self._clock(), MAX_ACTIVE_KEYS
        )
        if stored is None:
            raise TooManyKeys(
                f"an account may have {MAX_ACTIVE_KEYS} active keys; revoke one first"
            )
        return stored, key

    async def listing(self, account_id: int) -> list[ApiKey]:
        """Every key of the account, revoked ones included, with use counts up to now."""
        await self.flush()
        return await self._store.keys(account_id)

    async def revoke(self, account_id: int, key_id: int) -> None:
        """Revoke an active key of the account; `KeyNotFound` for any other id."""
        if not await self._store.revoke_key(account_id, key_id, self._clock()):
            raise KeyNotFound(f"the account has no active API key with id {key_id}")
        self._cache.drop_where(lambda v: v is not None and v[0] == key_id)

    async def resolve(self, key: str) -> tuple[int, int]:
        """`(key id, account id)` of an active key; `InvalidKey` for anything else."""
        if not well_formed_key(key):
            raise InvalidKey("the API key is malformed")
        hashed = digest(key)
        found, value = self._cache.get(hashed)
        if not found:
            value = await self._store.key_of(hashed)
            self._cache.put(hashed, value)
        if value is None:
            raise InvalidKey("the API key is unknown or revoked")
        return value

    def note_use(self, key_id: int) -> None:
        """Count one call of the key (in memory); starts a batch write when one is due."""
        count, _ = self._uses.get(key_id, (0, self._clock()))
        self._uses[key_id] = (count + 1, self._clock())
        due = time.monotonic() - self._last_flush >= self._flush_interval
        if due and (self._flushing is None or self._flushing.done()):
            self._flushing = asyncio.create_task(self.flush())

    async def flush(self) -> None:
        """Write the gathered uses (a failure is logged and the counts are put back)."""
        self._last_flush = time.monotonic()
        uses, self._uses = self._uses, {}
        if not uses:
            return
        try:
            await self._store.record_key_use(uses, month_of(self._clock()))
        except PkgIntelError:
            log.warning("recording the use of %d API keys failed; retried later", len(uses))
            for key_id, (count, last) in uses.items():
                now_count, now_last = self._uses.get(key_id, (0, last))
                self._uses[key_id] = (count + now_count, max(last, now_last))

    async def close(self) -> None:
        if self._flushing is not None:
            with contextlib.suppress(Exception):
                await self._flushing
        with contextlib.suppress(Exception):
            await self.flush()
