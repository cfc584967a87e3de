"""
`SqlClientRows`: every stored row linked to one client hash — the usage log, page views, anomaly
reports and contact requests — exported or erased together (the GDPR endpoints). Every failure is
a `StorageError`; an erase runs in one transaction, so it removes all of them or none.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.storage.tables import anomaly_report, contact_request, page_view, usage_event

LINKED: dict[str, tuple[Table, str]] = {
    "usage": (usage_event, "at"),
    "page_views": (page_view, "at"),
    "anomaly_reports": (anomaly_report, "received_at"),
    "contact_requests": (contact_request, "received_at"),
}
"""Kind of row → (table, time column). Each table has a `client` column (the keyed hash)."""
_OMITTED = frozenset({"id", "client"})
"""Columns left out of an export: internal row ids, and the hash the caller already is."""


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        at = value if value.tzinfo else value.replace(tzinfo=UTC)
        return at.isoformat().replace("+00:00", "Z")
    return value


class SqlClientRows:
    """See the module docstring."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def export(self, client: str) -> dict[str, list[dict[str, Any]]]:
        """Every row of `client`, oldest first, per kind (`LINKED`)."""
        out: dict[str, list[dict[str, Any]]] = {}
        try:
            async with self._engine.connect() as conn:
                for kind, (table, at) in LINKED.items():
                    stmt = select(table).where(table.c.client == client).order_by(table.c[at])
                    rows = (await conn.execute(stmt)).mappings().all()
                    out[kind] = [
                        {str(k): _plain(v) for k, v in row.items() if k not in _OMITTED}
                        for row in rows
                    ]
        except SQLAlchemyError as exc:
            raise StorageError(f"could not export the rows: {exc.__class__.__name__}") from exc
        return out

    async def erase(self, client: str) -> dict[str, int]:
        """Delete every row of `client`; how many of each kind."""
        removed: dict[str, int] = {}
        try:
            async with self._engine.begin() as conn:
                for kind, (table, _) in LINKED.items():
                    result = await conn.execute(delete(table).where(table.c.client == client))
                    removed[kind] = int(result.rowcount or 0)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not erase the rows: {exc.__class__.__name__}") from exc
        return removed
