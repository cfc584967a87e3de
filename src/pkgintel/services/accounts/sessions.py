"""
`Sessions`: signed-in sessions. The cookie holds a random 256-bit id; the database holds only its
SHA-256, so the cookie needs no signature: it cannot be forged without guessing a random id, and a
stolen database yields no usable cookie. Sessions last 30 days and are revoked at logout.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from pkgintel.domain.accounts import SESSION_LIFETIME, digest, new_token, well_formed_token
from pkgintel.services.accounts.cache import TtlCache
from pkgintel.storage.accounts import SqlAccountStore


class Sessions:
    """See the module docstring. `resolve` is cached `cache_ttl_s` seconds per process."""

    def __init__(
        self, store: SqlAccountStore, clock: Callable[[], datetime], *, cache_ttl_s: float
    ) -> None:
        self._store = store
        self._clock = clock
        self._cache: TtlCache[tuple[int, int] | None] = TtlCache(cache_ttl_s)

    async def start(self, account_id: int) -> tuple[str, datetime]:
        """A new session of `account_id`: `(cookie value, expiry)`."""
        token = new_token()
        now = self._clock()
        expires = now + SESSION_LIFETIME
        await self._store.add_session(digest(token), account_id, now, expires)
        return token, expires

    async def resolve(self, token: str) -> tuple[int, int] | None:
        """`(session id, account id)` of a live session cookie, else None."""
        if not well_formed_token(token):
            return None
        key = digest(token)
        found, value = self._cache.get(key)
        if found:
            return value
        resolved = await self._store.session_of(key, self._clock())
        self._cache.put(key, resolved)
        return resolved

    async def revoke(self, session_id: int) -> bool:
        """End the session; False when it had ended already. Forgotten at once in this process."""
        done = await self._store.revoke_session(session_id, self._clock())
        self._cache.drop_where(lambda v: v is not None and v[0] == session_id)
        return done
