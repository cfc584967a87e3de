"""
`SqlUsageReads`: the reads of the usage log behind stats, savings and the hallucination corpus, on
SQLite or PostgreSQL. Every failure is a `StorageError`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.hallucinations import CorpusEntry
from pkgintel.domain.usage_figures import (
    TOP_ENDPOINTS,
    EndpointCount,
    UsageFigures,
    percentile_offset,
)
from pkgintel.storage.tables import usage_event

CRAWLER = "crawler"
CACHE_HITS = ("hit", "fresh", "stale")
"""Cache statuses that mean the answer came from our cache (`stale`: served while refreshed)."""


def _aware(value: Any) -> datetime:
    at = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return at if at.tzinfo else at.replace(tzinfo=UTC)


class SqlUsageReads:
    """See the module docstring."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def figures(self, start: datetime, end: datetime) -> UsageFigures:
        """The `/api/stats` figures over [start, end) (crawler traffic included; its share is in
        `by_class`)."""
        c = usage_event.c
        window = and_(c.at >= start, c.at < end)
        totals = select(
            func.count().label("calls"),
            func.count(func.distinct(c.client)).label("clients"),
            func.count(func.distinct(c.ecosystem)).label("ecosystems"),
            func.count(c.cache).label("cache_known"),
            func.count(c.latency_ms).label("timed"),
        ).where(window)
        packages = select(func.count()).select_from(
            select(c.ecosystem, c.package)
            .where(window, c.package.is_not(None), c.ecosystem.is_not(None))
            .distinct()
            .subquery()
        )
        hits = select(func.count()).where(window, c.cache.in_(CACHE_HITS))
        by_class = select(c.ua_class, func.count()).where(window).group_by(c.ua_class)
        top = (
            select(c.source, func.count().label("n"))
            .where(window)
            .group_by(c.source)
            .order_by(func.count().desc(), c.source)
            .limit(TOP_ENDPOINTS)
        )
        try:
            async with self._engine.connect() as conn:
                t = (await conn.execute(totals)).one()
                n_packages = int((await conn.execute(packages)).scalar_one())
                n_hits = int((await conn.execute(hits)).scalar_one())
                classes = {r[0]: int(r[1]) for r in (await conn.execute(by_class)).all()}
                tops = tuple(EndpointCount(r.source, int(r.n)) for r in await conn.execute(top))
                p50, p95 = await self._percentiles(conn, window, int(t.timed))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read usage figures: {exc.__class__.__name__}") from exc
        return UsageFigures(
            start,
            end,
            int(t.calls),
            int(t.clients),
            n_packages,
            int(t.ecosystems),
            n_hits,
            int(t.cache_known),
            p50,
            p95,
            classes,
            tops,
        )

    @staticmethod
    async def _percentiles(
        conn: AsyncConnection, window: Any, timed: int
    ) -> tuple[int | None, int | None]:
        if timed == 0:
            return None, None
        c = usage_event.c
        out = []
        for fraction in (0.5, 0.95):
            stmt = (
                select(c.latency_ms)
                .where(window, c.latency_ms.is_not(None))
                .order_by(c.latency_ms)
                .offset(percentile_offset(timed, fraction))
                .limit(1)
            )
            out.append(int((await conn.execute(stmt)).scalar_one()))
        return out[0], out[1]

    async def answered_calls_by_source(self, start: datetime, end: datetime) -> dict[str, int]:
        """Answered calls (status below 400, or not recorded) per source tag, crawlers excluded."""
        c = usage_event.c
        stmt = (
            select(c.source, func.count())
            .where(
                c.at >= start,
                c.at < end,
                c.ua_class != CRAWLER,
                or_(c.status.is_(None), c.status < 400),
            )
            .group_by(c.source)
        )
        try:
            async with self._engine.connect() as conn:
                return {r[0]: int(r[1]) for r in (await conn.execute(stmt)).all()}
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read usage counts: {exc.__class__.__name__}") from exc

    async def corpus(self, *, ecosystem: str | None, limit: int) -> list[CorpusEntry]:
        """Names asked for while they did not exist, most asked first (ties: newest, name)."""
        c = usage_event.c
        conds: list[ColumnElement[bool]] = [
            c.found.is_(False),
            c.ecosystem.is_not(None),
            c.package.is_not(None),
        ]
        if ecosystem:
            conds.append(c.ecosystem == ecosystem)
        stmt = (
            select(
                c.ecosystem,
                c.package,
                func.count().label("hits"),
                func.count(func.distinct(c.client)).label("clients"),
                func.min(c.at).label("first"),
                func.max(c.at).label("last"),
            )
            .where(*conds)
            .group_by(c.ecosystem, c.package)
            .order_by(func.count().desc(), func.max(c.at).desc(), c.ecosystem, c.package)
            .limit(limit)
        )
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read the corpus: {exc.__class__.__name__}") from exc
        return [
            CorpusEntry(
                r.ecosystem,
                r.package,
                int(r.hits),
                int(r.clients),
                _aware(r.first),
                _aware(r.last),
            )
            for r in rows
        ]

    async def first_asked(self, *, limit: int = 200_000) -> dict[tuple[str, str], datetime]:
        """`(ecosystem, package)` → when it was first asked for while it did not exist, for the
        `limit` names asked most recently (one grouped query; `names.first_asked` caches it)."""
        c = usage_event.c
        first = func.min(c.at).label("first")
        stmt = (
            select(c.ecosystem, c.package, first)
            .where(c.found.is_(False), c.ecosystem.is_not(None), c.package.is_not(None))
            .group_by(c.ecosystem, c.package)
            .order_by(first.desc())
            .limit(limit)
        )
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read the corpus: {exc.__class__.__name__}") from exc
        return {(r.ecosystem, r.package): _aware(r.first) for r in rows}

    async def corpus_hits(self, ecosystem: str, package: str) -> int:
        """How many times `package` (normalised) was asked for while it did not exist."""
        c = usage_event.c
        stmt = select(func.count()).where(
            c.found.is_(False), c.ecosystem == ecosystem, c.package == package
        )
        try:
            async with self._engine.connect() as conn:
                return int((await conn.execute(stmt)).scalar_one())
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read the corpus: {exc.__class__.__name__}") from exc
