"""`SqlHistoryStore`: daily health snapshots (`health_snapshot`) on SQLite or PostgreSQL."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import orjson
from sqlalchemy import and_, delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.signals.history import HealthSnapshot
from pkgintel.storage.sql import insert_for
from pkgintel.storage.tables import health_snapshot, package_gone


class SqlHistoryStore:
    """Implements `signals.history.HistoryStore`. Raises `StorageError` when the database fails."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name

    async def save(self, snap: HealthSnapshot) -> None:
        """Insert or replace the snapshot of (ecosystem, package, day)."""
        values: dict[str, Any] = {
            "ecosystem": snap.ecosystem,
            "package": snap.package,
            "day": snap.day,
            "display_name": snap.display_name,
            "recorded_at": snap.recorded_at,
            "score": snap.score,
            "risk": snap.risk,
            "breakdown": orjson.dumps(snap.breakdown).decode(),
            "vulnerabilities": orjson.dumps(snap.vulnerabilities).decode(),
            "latest_version": snap.latest_version,
        }
        stmt = insert_for(self._dialect, health_snapshot).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "package", "day"],
            set_={k: v for k, v in values.items() if k not in ("ecosystem", "package", "day")},
        )
        try:
            async with self._engine.begin() as conn:
                await conn.execute(stmt)
        except SQLAlchemyError as exc:
            raise StorageError(f"saving a health snapshot failed: {exc}") from exc

    async def series(self, ecosystem: str, package: str, since: date) -> list[HealthSnapshot]:
        """Snapshots of one package from `since` (inclusive), oldest first."""
        c = health_snapshot.c
        stmt = (
            select(health_snapshot)
            .where(and_(c.ecosystem == ecosystem, c.package == package, c.day >= since))
            .order_by(c.day)
        )
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"reading health history failed: {exc}") from exc
        return [
            HealthSnapshot(
                ecosystem=r.ecosystem,
                package=r.package,
                day=r.day,
                display_name=r.display_name,
                recorded_at=_aware(r.recorded_at),
                score=r.score,
                risk=r.risk,
                breakdown=orjson.loads(r.breakdown),
                vulnerabilities=orjson.loads(r.vulnerabilities),
                latest_version=r.latest_version,
            )
            for r in rows
        ]

    async def tracked(self, since: date, limit: int) -> list[tuple[str, str]]:
        """(ecosystem, display name) of packages with a snapshot since `since`, most recent first."""
        c = health_snapshot.c
        stmt = (
            select(c.ecosystem, c.package, c.display_name, c.day)
            .where(c.day >= since)
            .order_by(c.day.desc())
        )
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"reading tracked packages failed: {exc}") from exc
        seen: dict[tuple[str, str], str] = {}
        for r in rows:
            seen.setdefault((r.ecosystem, r.package), r.display_name)
            if len(seen) >= limit:
                break
        return [(eco, name) for (eco, _), name in seen.items()]

    async def mark_gone(self, ecosystem: str, package: str, day: date, reason: str) -> date:
        """Record that the registry no longer has the package on `day`; returns the first day it
        was seen gone (kept from an earlier run)."""
        stmt = insert_for(self._dialect, package_gone).values(
            ecosystem=ecosystem, package=package, gone_since=day, last_checked=day, reason=reason
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "package"],
            set_={"last_checked": day, "reason": reason},
        )
        try:
            async with self._engine.begin() as conn:
                await conn.execute(stmt)
                since = await conn.scalar(
                    select(package_gone.c.gone_since).where(
                        and_(
                            package_gone.c.ecosystem == ecosystem, package_gone.c.package == package
                        )
                    )
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"marking a package gone failed: {exc}") from exc
        return since if isinstance(since, date) else day

    async def gone_since(self, ecosystem: str, package: str) -> date | None:
        """The first day the package was seen gone upstream, or None."""
        c = package_gone.c
        try:
            async with self._engine.connect() as conn:
                since = await conn.scalar(
                    select(c.gone_since).where(and_(c.ecosystem == ecosystem, c.package == package))
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"reading gone packages failed: {exc}") from exc
        return since if isinstance(since, date) else None

    async def clear_gone(self, ecosystem: str, package: str) -> None:
        """The package answered again: forget that it was gone."""
        c = package_gone.c
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    delete(package_gone).where(and_(c.ecosystem == ecosystem, c.package == package))
                )
        except SQLAlchemyError as exc:
            raise StorageError(f"clearing a gone package failed: {exc}") from exc


def _aware(value: datetime) -> datetime:
    from datetime import UTC

    return value if value.tzinfo else value.replace(tzinfo=UTC)
