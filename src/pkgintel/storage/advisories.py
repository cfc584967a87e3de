"""
`SqlAdvisoryStore`: OSV records, their package index, ingestion runs, KEV, EPSS and feed events, on
SQLite or PostgreSQL (same engine as `SqlStore`).

Write contract: every method that writes does so in one transaction, so a killed process leaves
either all of a batch or none of it. Records are keyed by (feed, OSV ecosystem, id): writing one
feed never touches another feed's rows.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import and_, bindparam, case, delete, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.feeds import EpssFact, FeedEvent, KevFact, RecordRow, SourceRun, StoredRecord
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.sql import insert_for
from pkgintel.storage.tables import (
    advisory_package,
    advisory_record,
    epss_score,
    feed_event,
    kev_entry,
    source_run,
)

_CHUNK = 500
"""Rows per statement for bulk writes and IN lists (under SQLite's bound-parameter limit)."""


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _chunks(items: Sequence[Any], size: int = _CHUNK) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


class SqlAdvisoryStore:
    """Advisory data on one async engine. Raises `StorageError` when the database fails."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name
        join = advisory_package.join(
            advisory_record,
            and_(
                advisory_record.c.feed == advisory_package.c.feed,
                advisory_record.c.osv_ecosystem == advisory_package.c.osv_ecosystem,
                advisory_record.c.id == advisory_package.c.advisory_id,
            ),
        )
        columns = (
            advisory_package.c.name,
            advisory_record.c.feed,
            advisory_record.c.osv_ecosystem,
            advisory_record.c.id,
            advisory_record.c.content_hash,
            advisory_record.c.record,
        )
        self._join = join
        self._records_base = (
            select(*columns)
            .select_from(join)
            .where(
                advisory_package.c.ecosystem == bindparam("ecosystem"),
                advisory_record.c.withdrawn.is_(False),
            )
        )
        self._records_stmt = self._records_base.where(advisory_package.c.name == bindparam("name"))

    # -- records ---------------------------------------------------------------------------
    async def record_hashes(self, feed: str, osv_ecosystem: str) -> dict[str, str]:
        """id → content hash of every record `feed` holds for `osv_ecosystem`."""
        stmt = select(advisory_record.c.id, advisory_record.c.content_hash).where(
            advisory_record.c.feed == feed, advisory_record.c.osv_ecosystem == osv_ecosystem
        )
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(stmt)).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read advisories: {exc.__class__.__name__}") from exc
        return {r.id: r.content_hash for r in rows}

    async def write_records(
        self,
        feed: str,
        osv_ecosystem: str,
        rows: Sequence[RecordRow],
        events: Sequence[tuple[str, dict[str, Any]]] = (),
        *,
        now: datetime,
    ) -> int | None:
        """
        Upsert `rows` (and replace their package index entries) and append `events`
        (kind, payload) in one transaction. Returns the id of the last event written, or None.
        """
        if not rows and not events:
            return None
        ids = [r.id for r in rows]
        record_values = [
            {
                "feed": feed,
                "osv_ecosystem": osv_ecosystem,
                "id": r.id,
                "modified": r.modified,
                "published": r.published,
                "content_hash": r.content_hash,
                "withdrawn": r.withdrawn,
                "is_malicious": r.is_malicious,
                "record": zlib.compress(r.record, 1),
                "ingested_at": now,
            }
            for r in rows
        ]
        package_values = [
            {
                "ecosystem": eco,
                "name": name,
                "feed": feed,
                "osv_ecosystem": osv_ecosystem,
                "advisory_id": r.id,
            }
            for r in rows
            for eco, name in dict.fromkeys(r.packages)
        ]
        upsert = insert_for(self._dialect, advisory_record)
        upsert = upsert.on_conflict_do_update(
            index_elements=["feed", "osv_ecosystem", "id"],
            set_={
                col: getattr(upsert.excluded, col)
                for col in (
                    "modified",
                    "published",
                    "content_hash",
                    "withdrawn",
                    "is_malicious",
                    "record",
                    "ingested_at",
                )
            },
        )
        last_event: int | None = None
        try:
            async with self._engine.begin() as conn:
                for chunk in _chunks(ids):
                    await conn.execute(
                        delete(advisory_package).where(
                            advisory_package.c.feed == feed,
                            advisory_package.c.osv_ecosystem == osv_ecosystem,
                            advisory_package.c.advisory_id.in_(chunk),
                        )
                    )
                for chunk in _chunks(record_values):
                    await conn.execute(upsert, list(chunk))
                for chunk in _chunks(package_values):
                    await conn.execute(advisory_package.insert(), list(chunk))
                for kind, payload in events:
                    result = await conn.execute(
                        feed_event.insert().values(
                            kind=kind, created_at=now, payload=orjson.dumps(payload).decode()
                        )
                    )
                    key = result.inserted_primary_key
                    assert key is not None  # an INSERT of one row always has its key
                    last_event = int(key[0])
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write advisories: {exc.__class__.__name__}") from exc
        return last_event

    async def delete_records(self, feed: str, osv_ecosystem: str, ids: Sequence[str]) -> int:
        """Remove records (and their index entries) that `feed` no longer holds."""
        try:
            async with self._engine.begin() as conn:
                for chunk in _chunks(list(ids)):
                    await conn.execute(
                        delete(advisory_package).where(
                            advisory_package.c.feed == feed,
                            advisory_package.c.osv_ecosystem == osv_ecosystem,
                            advisory_package.c.advisory_id.in_(chunk),
                        )
                    )
                    await conn.execute(
                        delete(advisory_record).where(
                            advisory_record.c.feed == feed,
                            advisory_record.c.osv_ecosystem == osv_ecosystem,
                            advisory_record.c.id.in_(chunk),
                        )
                    )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not delete advisories: {exc.__class__.__name__}") from exc
        return len(ids)

    async def records_for(self, ecosystem: Ecosystem, name: str) -> list[StoredRecord]:
        """Every non-withdrawn record, from every feed, naming (`ecosystem`, normalised `name`)."""
        try:
            async with self._engine.connect() as conn:
                rows = (
                    await conn.execute(
                        self._records_stmt, {"ecosystem": ecosystem.value, "name": name}
                    )
                ).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read advisories: {exc.__class__.__name__}") from exc
        return [
            StoredRecord(r.feed, r.osv_ecosystem, r.id, r.content_hash, zlib.decompress(r.record))
            for r in rows
        ]

    async def records_for_many(
        self, ecosystem: Ecosystem, names: Sequence[str]
    ) -> dict[str, list[StoredRecord]]:
        """`records_for` for many normalised names in a few queries: name → records (absent = none)."""
        out: dict[str, list[StoredRecord]] = {}
        try:
            async with self._engine.connect() as conn:
                for chunk in _chunks(list(dict.fromkeys(names))):
                    stmt = self._records_base.where(advisory_package.c.name.in_(chunk))
                    rows = (await conn.execute(stmt, {"ecosystem": ecosystem.value})).all()
                    for r in rows:
                        out.setdefault(r.name, []).append(
                            StoredRecord(
                                r.feed,
                                r.osv_ecosystem,
                                r.id,
                                r.content_hash,
                                zlib.decompress(r.record),
                            )
                        )
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read advisories: {exc.__class__.__name__}") from exc
        return out

    async def malicious_names(self, ecosystem: Ecosystem, names: Sequence[str]) -> set[str]:
        """Which of `names` (normalised) have a non-withdrawn malicious-package record."""
        found: set[str] = set()
        try:
            async with self._engine.connect() as conn:
                for chunk in _chunks(list(dict.fromkeys(names))):
                    stmt = (
                        select(advisory_package.c.name)
                        .distinct()
                        .select_from(self._join)
                        .where(
                            advisory_package.c.ecosystem == ecosystem.value,
                            advisory_package.c.name.in_(chunk),
                            advisory_record.c.is_malicious.is_(True),
                            advisory_record.c.withdrawn.is_(False),
                        )
                    )
                    found.update(r.name for r in (await conn.execute(stmt)).all())
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read advisories: {exc.__class__.__name__}") from exc
        return found

    async def feed_stats(self, feed: str, osv_ecosystem: str) -> tuple[datetime | None, int, int]:
        """(newest `modified`, malicious records, all records) that `feed` holds for `osv_ecosystem`."""
        stmt = select(
            func.max(advisory_record.c.modified),
            func.count(),
            func.sum(case((advisory_record.c.is_malicious.is_(True), 1), else_=0)),
        ).where(advisory_record.c.feed == feed, advisory_record.c.osv_ecosystem == osv_ecosystem)
        async with self._engine.connect() as conn:
            newest, total, malicious = (await conn.execute(stmt)).one()
        return _aware(newest), int(malicious or 0), int(total or 0)

    async def count_records(self) -> dict[tuple[str, str], int]:
        """(feed, OSV ecosystem) → number of records held."""
        stmt = select(
            advisory_record.c.feed, advisory_record.c.osv_ecosystem, func.count()
        ).group_by(advisory_record.c.feed, advisory_record.c.osv_ecosystem)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return {(r[0], r[1]): int(r[2]) for r in rows}

    # -- runs ------------------------------------------------------------------------------
    async def start_run(self, feed: str, scope: str, location: str, *, now: datetime) -> None:
        """Mark a run of (`feed`, `scope`) under way (`completed_at` cleared; counts kept)."""
        stmt = insert_for(self._dialect, source_run).values(
            feed=feed, scope=scope, location=location, started_at=now, completed_at=None, records=0
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["feed", "scope"],
            set_={"location": location, "started_at": now, "completed_at": None},
        )
        await self._write(stmt)

    async def finish_run(
        self,
        feed: str,
        scope: str,
        *,
        records: int,
        data_updated_at: datetime | None,
        detail: dict[str, Any],
        now: datetime,
    ) -> None:
        """Mark the run complete with its record count and the data's own newest time."""
        stmt = (
            source_run.update()
            .where(source_run.c.feed == feed, source_run.c.scope == scope)
            .values(
                completed_at=now,
                records=records,
                data_updated_at=data_updated_at,
                detail=orjson.dumps(detail).decode(),
            )
        )
        await self._write(stmt)

    async def runs(self) -> list[SourceRun]:
        """Every feed's last run."""
        try:
            async with self._engine.connect() as conn:
                rows = (await conn.execute(select(source_run))).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read ingestion runs: {exc.__class__.__name__}") from exc
        return [
            SourceRun(
                feed=r.feed,
                scope=r.scope,
                location=r.location,
                started_at=_aware(r.started_at) or datetime.now(UTC),
                completed_at=_aware(r.completed_at),
                records=r.records,
                data_updated_at=_aware(r.data_updated_at),
                detail=orjson.loads(r.detail) if r.detail else {},
            )
            for r in rows
        ]

    # -- KEV and EPSS ----------------------------------------------------------------------
    async def replace_kev(self, facts: Sequence[KevFact]) -> int:
        """Replace the whole KEV catalog in one transaction."""
        values = [
            {
                "cve_id": f.cve_id,
                "date_added": f.date_added,
                "due_date": f.due_date,
                "ransomware": f.ransomware,
                "vendor": f.vendor,
                "product": f.product,
                "name": f.name,
            }
            for f in {f.cve_id: f for f in facts}.values()
        ]
        try:
            async with self._engine.begin() as conn:
                await conn.execute(delete(kev_entry))
                for chunk in _chunks(values):
                    await conn.execute(kev_entry.insert(), list(chunk))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write KEV: {exc.__class__.__name__}") from exc
        return len(values)

    async def replace_epss(self, rows: Iterable[tuple[str, float, float]]) -> int:
        """Replace all EPSS scores in one transaction; a CVE listed twice keeps its last row."""
        upsert = insert_for(self._dialect, epss_score)
        upsert = upsert.on_conflict_do_update(
            index_elements=["cve_id"],
            set_={"score": upsert.excluded.score, "percentile": upsert.excluded.percentile},
        )
        seen: set[str] = set()
        try:
            async with self._engine.begin() as conn:
                await conn.execute(delete(epss_score))
                batch: dict[str, dict[str, Any]] = {}
                for cve, score, pct in rows:
                    seen.add(cve)
                    batch[cve] = {"cve_id": cve, "score": score, "percentile": pct}
                    if len(batch) >= 5000:
                        await conn.execute(upsert, list(batch.values()))
                        batch = {}
                if batch:
                    await conn.execute(upsert, list(batch.values()))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write EPSS: {exc.__class__.__name__}") from exc
        return len(seen)

    async def kev_for(self, cve_ids: Sequence[str] | None) -> dict[str, KevFact]:
        """KEV facts for those of `cve_ids` in the catalog (the whole catalog for None)."""
        if cve_ids is not None and not cve_ids:
            return {}
        out: dict[str, KevFact] = {}
        chunks = [None] if cve_ids is None else list(_chunks(list(dict.fromkeys(cve_ids))))
        async with self._engine.connect() as conn:
            for chunk in chunks:
                stmt = select(kev_entry)
                if chunk is not None:
                    stmt = stmt.where(kev_entry.c.cve_id.in_(chunk))
                rows = (await conn.execute(stmt)).all()
                for r in rows:
                    out[r.cve_id] = KevFact(
                        r.cve_id,
                        r.date_added,
                        r.due_date,
                        r.ransomware,
                        r.vendor,
                        r.product,
                        r.name,
                    )
        return out

    async def epss_for(self, cve_ids: Sequence[str]) -> dict[str, EpssFact]:
        """EPSS facts for those of `cve_ids` that have a score."""
        if not cve_ids:
            return {}
        out: dict[str, EpssFact] = {}
        async with self._engine.connect() as conn:
            for chunk in _chunks(list(dict.fromkeys(cve_ids))):
                rows = (
                    await conn.execute(select(epss_score).where(epss_score.c.cve_id.in_(chunk)))
                ).all()
                for r in rows:
                    out[r.cve_id] = EpssFact(r.cve_id, r.score, r.percentile)
        return out

    # -- feed events -----------------------------------------------------------------------
    async def events_after(self, after_id: int, *, kind: str, limit: int = 500) -> list[FeedEvent]:
        """Events of `kind` with an id above `after_id`, oldest first."""
        stmt = (
            select(feed_event)
            .where(feed_event.c.id > after_id, feed_event.c.kind == kind)
            .order_by(feed_event.c.id)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            FeedEvent(
                r.id, r.kind, _aware(r.created_at) or datetime.now(UTC), orjson.loads(r.payload)
            )
            for r in rows
        ]

    async def last_event_id(self) -> int:
        """The newest event id, 0 when there is none."""
        async with self._engine.connect() as conn:
            value = (await conn.execute(select(func.max(feed_event.c.id)))).scalar()
        return int(value or 0)

    async def prune_events(self, keep: int) -> int:
        """Delete all but the newest `keep` events; returns how many were deleted."""
        last = await self.last_event_id()
        stmt = delete(feed_event).where(feed_event.c.id <= last - keep)
        async with self._engine.begin() as conn:
            result = await conn.execute(stmt)
        return int(result.rowcount or 0)

    async def _write(self, stmt: Any) -> None:
        try:
            async with self._engine.begin() as conn:
                await conn.execute(stmt)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write: {exc.__class__.__name__}") from exc
