"""`SqlCommunityStore`: anomaly reports and page views on SQLite or PostgreSQL (insert, newest
first, prune). Every failure is a `StorageError` (the submission is then not acknowledged)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Table, delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.community import AnomalyReport, StoredAnomaly
from pkgintel.domain.errors import StorageError
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.tables import anomaly_report, page_view


def _stored(row: Any) -> StoredAnomaly:
    at = row.received_at if row.received_at.tzinfo else row.received_at.replace(tzinfo=UTC)
    return StoredAnomaly(
        row.id,
        at,
        AnomalyReport(
            Ecosystem(row.ecosystem),
            row.package,
            row.version,
            row.observed,
            row.expected,
            row.evidence_url,
            row.client,
            row.source,
        ),
    )


class SqlCommunityStore:
    """See the module docstring."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add_anomaly(self, stored: StoredAnomaly) -> None:
        r = stored.report
        values = {
            "id": stored.id,
            "received_at": stored.received_at,
            "ecosystem": r.ecosystem.value,
            "package": r.package,
            "version": r.version,
            "observed": r.observed,
            "expected": r.expected,
            "evidence_url": r.evidence_url,
            "client": r.client,
            "source": r.source,
        }
        await self._insert(anomaly_report, values, "the report")

    async def newest_anomalies(self, *, limit: int) -> list[StoredAnomaly]:
        c = anomaly_report.c
        stmt = select(anomaly_report).order_by(c.received_at.desc(), c.id).limit(limit)
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read reports: {exc.__class__.__name__}") from exc
        return [_stored(r) for r in rows]

    async def add_page_view(
        self, *, at: datetime, path: str, referrer_host: str | None, client: str
    ) -> None:
        values = {"at": at, "path": path, "referrer_host": referrer_host, "client": client}
        await self._insert(page_view, values, "the page view")

    async def prune(self, *, anomalies_before: datetime, views_before: datetime) -> int:
        """Delete reports and page views past their retention; how many rows."""
        try:
            async with self._engine.begin() as conn:
                a = await conn.execute(
                    delete(anomaly_report).where(anomaly_report.c.received_at < anomalies_before)
                )
                v = await conn.execute(delete(page_view).where(page_view.c.at < views_before))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not prune: {exc.__class__.__name__}") from exc
        return int(a.rowcount or 0) + int(v.rowcount or 0)

    async def _insert(self, table: Table, values: dict[str, Any], what: str) -> None:
        try:
            async with self._engine.begin() as conn:
                await conn.execute(table.insert(), values)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not store {what}: {exc.__class__.__name__}") from exc
