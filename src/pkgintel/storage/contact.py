"""`SqlContactStore`: contact requests on SQLite or PostgreSQL (insert, newest first, per client, prune)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.operations.contact import ContactRequest, ContactType, StoredContact
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.tables import contact_request


def _stored(row: Any) -> StoredContact:
    at = row.received_at if row.received_at.tzinfo else row.received_at.replace(tzinfo=UTC)
    return StoredContact(
        row.id,
        at,
        ContactRequest(
            ContactType(row.type),
            row.message,
            row.email,
            Ecosystem(row.ecosystem) if row.ecosystem else None,
            row.package,
            row.client,
            row.source,
        ),
    )


class SqlContactStore:
    """Contact requests; every failure is a `StorageError` (the request is then not acknowledged)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add(self, contact: StoredContact) -> None:
        r = contact.request
        values = {
            "id": contact.id,
            "received_at": contact.received_at,
            "type": r.type.value,
            "message": r.message,
            "email": r.email,
            "ecosystem": r.ecosystem.value if r.ecosystem else None,
            "package": r.package,
            "client": r.client,
            "source": r.source,
        }
        try:
            async with self._engine.begin() as conn:
                await conn.execute(contact_request.insert(), values)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not store the request: {exc.__class__.__name__}") from exc

    async def newest(
        self, *, limit: int, type: ContactType | None = None, client: str | None = None
    ) -> list[StoredContact]:
        c = contact_request.c
        stmt = select(contact_request).order_by(c.received_at.desc(), c.id).limit(limit)
        if type is not None:
            stmt = stmt.where(c.type == type.value)
        if client is not None:
            stmt = stmt.where(c.client == client)
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read requests: {exc.__class__.__name__}") from exc
        return [_stored(r) for r in rows]

    async def prune(self, before: datetime) -> int:
        try:
            async with self._engine.begin() as conn:
                result = await conn.execute(
                    delete(contact_request).where(contact_request.c.received_at < before)
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not prune requests: {exc.__class__.__name__}") from exc
        return int(result.rowcount or 0)
