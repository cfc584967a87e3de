"""`SqlStore`: the name index and package snapshots on SQLite (aiosqlite) or PostgreSQL (asyncpg)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Select, and_, case, event, func, literal_column, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.names.rules import SNAPSHOT_ROW_SOURCE, NameEntry, NameIndexState
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage import outage
from pkgintel.storage.tables import name_index, package_name, package_snapshot

logger = logging.getLogger(__name__)

_NAMES_PER_QUERY = 2000
"""Keys per `IN` list in `get_names`: the typosquat whole-index probe sends ~1,700 keys for a name of
twenty characters; well under the bind-parameter limits of SQLite (32,766) and asyncpg (32,767)."""

_BATCH = 2000
_STREAM_PARTITION = 5000
"""Rows built per step of a streamed read (a few milliseconds of the event loop each)."""


def create_engine(url: str) -> AsyncEngine:
    """An async engine for `url`; SQLite gets WAL mode and a busy timeout so readers never block writers."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        outage.database.watch(engine)
        return engine
    engine = create_async_engine(url, pool_size=10, max_overflow=10, pool_pre_ping=True)
    outage.database.watch(engine)  # an outage ends, with one log line, at the next connection
    return engine


def insert_for(dialect: str, table: Any) -> Any:
    """An INSERT that supports `on_conflict_do_update` on `dialect` (PostgreSQL or SQLite)."""
    return postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


class SqlStore:
    """Implements `NameStore`, `SnapshotStore` and `StoreHealth` on one engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name

    @property
    def backend(self) -> str:
        return "postgresql" if self._dialect == "postgresql" else "sqlite"

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    def _insert(self, table: Any) -> Any:
        return insert_for(self._dialect, table)

    async def ping(self) -> None:
        try:
            async with self._engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError) as exc:
            raise StorageError(f"database unreachable: {exc.__class__.__name__}") from exc

    # -- name index ------------------------------------------------------------------------
    @staticmethod
    def _entry(row: Any) -> NameEntry:
        return NameEntry(
            ecosystem=Ecosystem(row.ecosystem),
            name=row.name,
            display_name=row.display_name,
            latest_version=row.latest_version,
            monthly_downloads=row.monthly_downloads,
            popularity_rank=row.popularity_rank,
            summary=row.summary,
            source=row.source,
        )

    async def get_name(self, ecosystem: Ecosystem, key: str) -> NameEntry | None:
        stmt = select(package_name).where(
            package_name.c.ecosystem == ecosystem.value, package_name.c.name == key
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return self._entry(row) if row else None

    async def get_names(self, ecosystem: Ecosystem, keys: Sequence[str]) -> dict[str, NameEntry]:
        """Entries of many normalised keys in one query per `_NAMES_PER_QUERY` (absent keys left
        out)."""
        out: dict[str, NameEntry] = {}
        unique = list(dict.fromkeys(keys))
        async with self._engine.connect() as conn:
            for start in range(0, len(unique), _NAMES_PER_QUERY):
                stmt = select(package_name).where(
                    package_name.c.ecosystem == ecosystem.value,
                    package_name.c.name.in_(unique[start : start + _NAMES_PER_QUERY]),
                )
                for row in (await conn.execute(stmt)).all():
                    out[row.name] = self._entry(row)
        return out

    async def get_index_state(self, ecosystem: Ecosystem) -> NameIndexState | None:
        stmt = select(name_index).where(name_index.c.ecosystem == ecosystem.value)
        async with self._engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        if row is None:
            return None
        return NameIndexState(
            Ecosystem(row.ecosystem), row.source, _aware(row.loaded_at), row.names_count
        )

    async def list_index_states(self) -> list[NameIndexState]:
        async with self._engine.connect() as conn:
            rows = (await conn.execute(select(name_index))).all()
        return [
            NameIndexState(Ecosystem(r.ecosystem), r.source, _aware(r.loaded_at), r.names_count)
            for r in rows
        ]

    async def upsert_names(self, entries: Sequence[NameEntry]) -> int:
        if not entries:
            return 0
        now = datetime.now(UTC)
        rows = [
            {
                "ecosystem": e.ecosystem.value,
                "name": e.name,
                "display_name": e.display_name,
                "latest_version": e.latest_version,
                "monthly_downloads": e.monthly_downloads,
                "popularity_rank": e.popularity_rank,
                "summary": e.summary,
                "source": e.source,
                "updated_at": now,
            }
            for e in entries
        ]
        stmt = self._insert(package_name)
        # A live sighting refreshes the latest version but never erases popularity a loaded list gave.
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "name"],
            set_={
                "display_name": stmt.excluded.display_name,
                "latest_version": func.coalesce(
                    stmt.excluded.latest_version, package_name.c.latest_version
                ),
                "monthly_downloads": func.coalesce(
                    stmt.excluded.monthly_downloads, package_name.c.monthly_downloads
                ),
                "popularity_rank": func.coalesce(
                    stmt.excluded.popularity_rank, package_name.c.popularity_rank
                ),
                "summary": func.coalesce(stmt.excluded.summary, package_name.c.summary),
                # A loaded list takes over the rows of the shipped snapshot; a live sighting
                # leaves a row's source as it was.
                "source": case(
                    (
                        and_(
                            package_name.c.source == SNAPSHOT_ROW_SOURCE,
                            stmt.excluded.source == "ingest",
                        ),
                        stmt.excluded.source,
                    ),
                    else_=package_name.c.source,
                ),
                "updated_at": stmt.excluded.updated_at,
            },
        )
        try:
            async with self._engine.begin() as conn:
                for start in range(0, len(rows), _BATCH):
                    await conn.execute(stmt, rows[start : start + _BATCH])
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write names: {exc.__class__.__name__}") from exc
        return len(rows)

    async def save_index_state(self, state: NameIndexState) -> None:
        stmt = self._insert(name_index).values(
            ecosystem=state.ecosystem.value,
            source=state.source,
            loaded_at=state.loaded_at,
            names_count=state.names_count,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem"],
            set_={
                "source": stmt.excluded.source,
                "loaded_at": stmt.excluded.loaded_at,
                "names_count": stmt.excluded.names_count,
            },
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)

    async def list_popular_names(self, ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        c = package_name.c
        ranked = (
            select(package_name)
            .where(c.ecosystem == ecosystem.value, c.popularity_rank.is_not(None))
            .order_by(c.popularity_rank)
            .limit(limit)
        )
        by_downloads = (
            select(package_name)
            .where(c.ecosystem == ecosystem.value, c.monthly_downloads.is_not(None))
            .order_by(c.monthly_downloads.desc())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = list((await conn.execute(ranked)).all())
            if len(rows) < limit:
                seen = {r.name for r in rows}
                rows += [r for r in (await conn.execute(by_downloads)).all() if r.name not in seen]
        return [self._entry(r) for r in rows[:limit]]

    async def list_mixed_case_names(self, ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        c = package_name.c
        stmt = (
            select(package_name)
            .where(
                c.ecosystem == ecosystem.value,
                c.monthly_downloads.is_not(None),
                c.name != func.lower(c.name),
            )
            .order_by(c.monthly_downloads.desc())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return [self._entry(r) for r in (await conn.execute(stmt)).all()]

    async def list_names_with_downloads(self, ecosystem: Ecosystem, floor: int) -> list[str]:
        c = package_name.c
        # Served by ix_package_name_downloads (ecosystem, monthly_downloads).
        stmt = select(c.name).where(c.ecosystem == ecosystem.value, c.monthly_downloads >= floor)
        return await self._stream_names(stmt)

    async def list_name_keys(self, ecosystem: Ecosystem, *, live_only: bool = False) -> list[str]:
        c = package_name.c
        stmt = select(c.name).where(c.ecosystem == ecosystem.value)
        if live_only:
            # A literal, not a parameter: PostgreSQL's generic plans use the partial index
            # `ix_package_name_live` only for a condition they can prove at planning time.
            stmt = stmt.where(c.source == literal_column("'live'"))
        return await self._stream_names(stmt)

    async def _stream_names(self, stmt: Select[Any]) -> list[str]:
        """The values of `stmt`'s one column (names), read in partitions."""
        out: list[str] = []
        async with self._engine.connect() as conn:
            # Streamed in partitions: ~180,000 npm rows would otherwise hold the event loop for
            # the half second SQLAlchemy takes to build them; between partitions it serves others.
            result = await conn.stream(stmt)
            async for part in result.scalars().partitions(_STREAM_PARTITION):
                out.extend(part)
        return out

    async def list_names_near(self, ecosystem: Ecosystem, key: str, limit: int) -> list[str]:
        if not key:
            return []
        c = package_name.c
        first = key[0]
        # Range scan on the primary key (ecosystem, name): names starting with the same character.
        stmt = (
            select(c.name)
            .where(
                c.ecosystem == ecosystem.value,
                c.name >= first,
                c.name < first + "\U0010ffff",
                func.length(c.name).between(len(key) - 2, len(key) + 2),
            )
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return list((await conn.execute(stmt)).scalars())

    # -- snapshots -------------------------------------------------------------------------
    async def load_snapshot(
        self, ecosystem: Ecosystem, key: str, version: str
    ) -> tuple[bytes, datetime] | None:
        c = package_snapshot.c
        stmt = select(c.payload, c.fetched_at).where(
            c.ecosystem == ecosystem.value, c.name == key, c.version == version
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return (bytes(row.payload), _aware(row.fetched_at)) if row else None

    async def load_snapshots(
        self, ecosystem: Ecosystem, keys: Sequence[str], version: str = ""
    ) -> dict[str, tuple[bytes, datetime]]:
        """`load_snapshot` for many normalised names at once (absent names are left out)."""
        c = package_snapshot.c
        out: dict[str, tuple[bytes, datetime]] = {}
        unique = list(dict.fromkeys(keys))
        async with self._engine.connect() as conn:
            for start in range(0, len(unique), 500):
                stmt = select(c.name, c.payload, c.fetched_at).where(
                    c.ecosystem == ecosystem.value,
                    c.version == version,
                    c.name.in_(unique[start : start + 500]),
                )
                for row in (await conn.execute(stmt)).all():
                    out[row.name] = (bytes(row.payload), _aware(row.fetched_at))
        return out

    async def save_snapshot(
        self, ecosystem: Ecosystem, key: str, version: str, payload: bytes, fetched_at: datetime
    ) -> None:
        stmt = self._insert(package_snapshot).values(
            ecosystem=ecosystem.value,
            name=key,
            version=version,
            payload=payload,
            fetched_at=fetched_at,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "name", "version"],
            set_={"payload": stmt.excluded.payload, "fetched_at": stmt.excluded.fetched_at},
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)

    async def count_snapshots(self) -> int:
        async with self._engine.connect() as conn:
            return int(
                (
                    await conn.execute(select(func.count()).select_from(package_snapshot))
                ).scalar_one()
            )
