"""
`ContactService`: contact requests from users and agents — validated, limited per client, stored,
listed for the operators, removed after the retention period. The JSON API (`POST /api/contact`), the
MCP tool `contact` and the admin list call these methods.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Protocol

from pkgintel.domain.errors import RateLimited
from pkgintel.domain.operations.contact import (
    CONTACT_TYPES,
    ContactRequest,
    ContactType,
    StoredContact,
    contact_request,
)


class ContactStore(Protocol):
    async def add(self, contact: StoredContact) -> None: ...

    async def newest(
        self, *, limit: int, type: ContactType | None = None, client: str | None = None
    ) -> list[StoredContact]: ...

    async def prune(self, before: datetime) -> int: ...


class Gate(Protocol):
    @property
    def limit(self) -> str: ...

    async def allow(self, key: str) -> int | None: ...

    async def close(self) -> None: ...


def _utcnow() -> datetime:
    return datetime.now(UTC)


class ContactService:
    """See the module docstring. `retention_days` bounds how long a request is kept."""

    def __init__(
        self,
        store: ContactStore,
        *,
        gate: Gate | None,
        retention_days: int,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._store = store
        self._gate = gate
        self.retention_days = retention_days
        self._clock = clock

    @property
    def limit(self) -> str | None:
        """The per-client limit (`5 per 1 hour`), or None when unlimited."""
        return self._gate.limit if self._gate is not None else None

    @staticmethod
    def types() -> dict[ContactType, str]:
        """Every request type with what it is for."""
        return dict(CONTACT_TYPES)

    async def submit(
        self,
        *,
        type: str,
        message: str,
        email: str | None = None,
        ecosystem: str | None = None,
        package: str | None = None,
        client: str,
        source: str,
    ) -> StoredContact:
        """
        Validate (`InvalidInput` naming the field), count against the client's limit
        (`RateLimited` with the wait), store (`StorageError` when the database fails: the request is
        then not acknowledged) and return the stored request with its id.
        """
        request: ContactRequest = contact_request(
            type=type,
            message=message,
            email=email,
            ecosystem=ecosystem,
            package=package,
            client=client,
            source=source,
        )
        if self._gate is not None:
            wait = await self._gate.allow(client)
            if wait is not None:
                raise RateLimited(
                    f"too many contact requests; try again in {wait} s",
                    retry_after=wait,
                    limit=self._gate.limit,
                )
        stored = StoredContact(str(uuid.uuid4()), self._clock(), request)
        await self._store.add(stored)
        return stored

    async def newest(
        self, *, limit: int = 50, type: ContactType | None = None
    ) -> list[StoredContact]:
        """The newest requests first (operators only)."""
        return await self._store.newest(limit=limit, type=type)

    async def prune(self) -> int:
        """Delete requests older than the retention period; returns how many."""
        return await self._store.prune(self._clock() - timedelta(days=self.retention_days))

    async def close(self) -> None:
        if self._gate is not None:
            await self._gate.close()
