"""
Database outages: telling "the database cannot be reached" apart from every other failure, and
saying so once per outage instead of once per request.

- `is_outage(exc)`: True when `exc` (or what it was raised from) says the database server cannot be
  reached: a refused or dropped connection, a server shutting down or refusing new connections, a
  pooled connection found dead, a pool that cannot hand out a connection in time. An error of
  another kind (a bad query, a constraint, a Redis or upstream-registry failure) is never one.
- `DatabaseOutage` (one per process: `database`): `failed(exc)` turns such an error into
  `DatabaseUnavailable` (503 with `Retry-After` at every door), logs one WARNING when an outage
  starts and counts what failed during it; `recovered()` ends it with one INFO line (how long, how
  many failures). `watch(engine)` calls `recovered()` when the engine opens a new connection, which
  after an outage is the first sign the database answers again.
"""

from __future__ import annotations

import errno
import logging
import socket
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import event
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import DatabaseUnavailable

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 5
"""What a 503 for an unreachable database tells callers to wait (PostgreSQL restarts in seconds)."""

_DRIVER_OUTAGES = frozenset(
    {
        # asyncpg: SQLSTATE class 08 and the shutdown states; a connection that died under us.
        "PostgresConnectionError",
        "ConnectionDoesNotExistError",
        "CannotConnectNowError",
        "AdminShutdownError",
        "CrashShutdownError",
        "TooManyConnectionsError",
        "ConnectionFailureError",
        "ClientCannotConnectError",
        "ConnectionRejectionError",
    }
)
_SOCKET_ERRNOS = frozenset(
    {
        errno.ECONNREFUSED,
        errno.ECONNRESET,
        errno.ECONNABORTED,
        errno.EPIPE,
        errno.EHOSTUNREACH,
        errno.ENETUNREACH,
        errno.ETIMEDOUT,
    }
)
_NOT_DATABASE = ("redis", "httpx", "httpcore", "pkgintel.cache")
"""Modules whose errors are about another server, whatever socket error they were raised from."""


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 16:
        seen.append(current)
        orig = getattr(current, "orig", None)  # SQLAlchemy's wrapped driver error
        current = (
            current.__cause__
            or current.__context__
            or (orig if isinstance(orig, BaseException) else None)
        )
    return seen


def _socket_outage(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | socket.gaierror):
        return True
    if isinstance(exc, OSError) and not isinstance(exc, TimeoutError):
        if exc.errno in _SOCKET_ERRNOS:
            return True
        # asyncio's connect to every address of a host failed ("Multiple exceptions: ...").
        text = str(exc)
        return "Connect call failed" in text or text.startswith("Multiple exceptions")
    return False


def is_outage(exc: BaseException) -> bool:
    """True when `exc` says the database cannot be reached (see the module docstring)."""
    in_database = False
    for link in _chain(exc):
        if isinstance(link, DatabaseUnavailable):
            return True
        module = type(link).__module__
        if module.startswith(_NOT_DATABASE):
            return False
        if isinstance(link, DBAPIError) and link.connection_invalidated:
            return True
        if isinstance(link, PoolTimeout):
            return True
        if any(cls.__name__ in _DRIVER_OUTAGES for cls in type(link).__mro__):
            return True
        if _socket_outage(link):
            return True
        if isinstance(link, TimeoutError) and in_database:
            return True
        in_database = in_database or module.startswith(("sqlalchemy", "asyncpg", "pkgintel"))
    return False


class DatabaseOutage:
    """Outage state of this process's database (see the module docstring)."""

    def __init__(
        self,
        *,
        retry_after: int = RETRY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.retry_after = retry_after
        self._clock = clock
        self._since: float | None = None
        self._failures = 0
        self.outages = 0

    @property
    def down(self) -> bool:
        """Whether an outage is under way (the last database use failed to reach it)."""
        return self._since is not None

    @property
    def failures(self) -> int:
        """Failures counted in the current outage (0 when none is under way)."""
        return self._failures

    def down_for(self) -> float:
        """Seconds since the current outage started (0 when none)."""
        return 0.0 if self._since is None else self._clock() - self._since

    def failed(self, exc: BaseException) -> DatabaseUnavailable:
        """Count one failure of `exc` (which `is_outage`); the first of an outage logs a WARNING."""
        self._failures += 1
        if self._since is None:
            self._since = self._clock()
            self.outages += 1
            logger.warning(
                "database unavailable (%s); answering 503 with Retry-After: %d until it is back",
                _describe(exc),
                self.retry_after,
            )
        return DatabaseUnavailable(
            "the database cannot be reached; try again shortly", retry_after=self.retry_after
        )

    def recovered(self) -> None:
        """The database answered: end the outage under way, if any, with one INFO line."""
        if self._since is None:
            return
        took, failures = self._clock() - self._since, self._failures
        self._since, self._failures = None, 0
        logger.info(
            "database available again after %.1f s; %d requests or writes failed meanwhile",
            took,
            failures,
        )

    def classify(self, exc: BaseException) -> DatabaseUnavailable | None:
        """`failed(exc)` when `exc` is an outage, else None (the caller handles it as before)."""
        return self.failed(exc) if is_outage(exc) else None

    def watch(self, engine: AsyncEngine) -> None:
        """End an outage as soon as `engine` opens a new connection (idempotent per engine)."""
        sync = engine.sync_engine
        if getattr(sync, "_pkgintel_outage_watched", False):
            return

        def _connected(_dbapi: Any, _record: Any) -> None:
            self.recovered()

        event.listen(sync, "connect", _connected)
        sync._pkgintel_outage_watched = True  # type: ignore[attr-defined]


def _describe(exc: BaseException) -> str:
    last = _chain(exc)[-1]
    text = str(last).strip().splitlines()[0] if str(last).strip() else ""
    return f"{last.__class__.__name__}: {text}"[:200] if text else last.__class__.__name__


database = DatabaseOutage()
"""This process's database outage state, shared by every door and write-behind buffer."""
