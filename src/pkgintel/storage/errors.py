"""
`SqlErrorStore`: error-to-fix entries, votes and misses on SQLite or PostgreSQL.

Full-text search is per dialect behind one method: SQLite's FTS5 table `error_entry_fts` (bm25
ranking; rewritten with the curated entries on every load) and PostgreSQL's generated `tsvector`
column with a GIN index (`ts_rank`). Votes are one per (entry, client); counters on the entry are
updated in the same transaction, so the totals always equal the vote rows.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.knowledge.error_patterns import Form
from pkgintel.domain.knowledge.errors import (
    ErrorEntry,
    ErrorMiss,
    InvolvedPackage,
    KnowledgeLoad,
    VoteOutcome,
)
from pkgintel.storage.sql import insert_for
from pkgintel.storage.tables import error_entry, error_miss, error_vote

logger = logging.getLogger(__name__)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _body(entry: ErrorEntry) -> str:
    return orjson.dumps(
        {
            "fix": list(entry.fix),
            "sources": list(entry.sources),
            "packages": [
                {"name": p.name, "ecosystem": p.ecosystem, "versions": p.versions}
                for p in entry.packages
            ],
        }
    ).decode()


def _entry(row: Any) -> ErrorEntry:
    body = orjson.loads(row.body)
    return ErrorEntry(
        error_hash=row.error_hash,
        pattern=row.pattern,
        form=Form(row.form),
        ecosystem=row.ecosystem,
        tool=row.tool,
        title=row.title,
        cause=row.cause,
        fix=tuple(body.get("fix", ())),
        sources=tuple(body.get("sources", ())),
        packages=tuple(
            InvolvedPackage(p["name"], p["ecosystem"], p.get("versions"))
            for p in body.get("packages", ())
        ),
        votes_up=row.votes_up,
        votes_down=row.votes_down,
        hits=row.hits,
        origin=row.origin,
        updated_at=_aware(row.updated_at),
    )


def _fts5_query(terms: Sequence[str]) -> str:
    """An FTS5 OR-query of quoted terms (quotes doubled), so no term is read as syntax."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def _tsquery_terms(terms: Sequence[str]) -> list[str]:
    """Terms safe inside `to_tsquery('simple', ...)`: word characters only."""
    out = []
    for t in terms:
        clean = "".join(ch for ch in t if ch.isalnum() or ch == "_")
        if clean:
            out.append(clean)
    return out


class SqlErrorStore:
    """Implements `storage.base.ErrorStore`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name

    @property
    def backend(self) -> str:
        return "postgresql" if self._dialect == "postgresql" else "sqlite"

    async def replace_curated(
        self, entries: Sequence[ErrorEntry], *, now: datetime
    ) -> KnowledgeLoad:
        """Upsert curated entries (votes and hits kept), delete curated ones no longer shipped."""
        by_tool: dict[str, int] = {}
        for e in entries:
            by_tool[e.tool] = by_tool.get(e.tool, 0) + 1
        try:
            async with self._engine.begin() as conn:
                existing = {
                    r.error_hash: r
                    for r in (
                        await conn.execute(
                            select(
                                error_entry.c.error_hash,
                                error_entry.c.body,
                                error_entry.c.title,
                                error_entry.c.cause,
                                error_entry.c.origin,
                            )
                        )
                    ).all()
                }
                wanted = {e.error_hash for e in entries}
                stale = [
                    h for h, r in existing.items() if r.origin == "curated" and h not in wanted
                ]
                if stale:
                    await conn.execute(
                        delete(error_entry).where(error_entry.c.error_hash.in_(stale))
                    )
                added = updated = 0
                rows = []
                for e in entries:
                    row = {
                        "error_hash": e.error_hash,
                        "pattern": e.pattern,
                        "form": e.form.value,
                        "ecosystem": e.ecosystem,
                        "tool": e.tool,
                        "title": e.title,
                        "cause": e.cause,
                        "body": _body(e),
                        "origin": e.origin,
                        "updated_at": now,
                    }
                    old = existing.get(e.error_hash)
                    if old is None:
                        added += 1
                    elif (old.body, old.title, old.cause) != (row["body"], e.title, e.cause):
                        updated += 1
                    rows.append(row)
                if rows:
                    stmt = insert_for(self._dialect, error_entry)
                    stmt = stmt.on_conflict_do_update(
                        index_elements=["error_hash"],
                        set_={
                            k: getattr(stmt.excluded, k)
                            for k in (
                                "pattern",
                                "form",
                                "ecosystem",
                                "tool",
                                "title",
                                "cause",
                                "body",
                                "origin",
                                "updated_at",
                            )
                        },
                    )
                    await conn.execute(stmt, rows)
                if self._dialect != "postgresql":
                    await self._rebuild_fts(conn)
        except SQLAlchemyError as exc:
            raise StorageError(
                f"could not write error knowledge: {exc.__class__.__name__}"
            ) from exc
        return KnowledgeLoad(
            total=len(entries), added=added, updated=updated, removed=len(stale), by_tool=by_tool
        )

    @staticmethod
    async def _rebuild_fts(conn: AsyncConnection) -> None:
        await conn.execute(text("DELETE FROM error_entry_fts"))
        await conn.execute(
            text(
                "INSERT INTO error_entry_fts (error_hash, pattern, title, cause) "
                "SELECT error_hash, pattern, title, cause FROM error_entry"
            )
        )

    async def count(self) -> int:
        async with self._engine.connect() as conn:
            return int(
                (await conn.execute(select(func.count()).select_from(error_entry))).scalar_one()
            )

    async def get_entries(self, hashes: Sequence[str]) -> dict[str, ErrorEntry]:
        """Entries by hash (absent ones left out)."""
        if not hashes:
            return {}
        stmt = select(error_entry).where(error_entry.c.error_hash.in_(list(dict.fromkeys(hashes))))
        async with self._engine.connect() as conn:
            return {r.error_hash: _entry(r) for r in (await conn.execute(stmt)).all()}

    async def search_text(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """(hash, rank) of entries matching any term, best first; rank is larger-is-better."""
        if not terms:
            return []
        async with self._engine.connect() as conn:
            if self._dialect == "postgresql":
                clean = _tsquery_terms(terms)
                if not clean:
                    return []
                stmt = text(
                    "SELECT error_hash, ts_rank(search, q) AS rank "
                    "FROM error_entry, to_tsquery('simple', :q) AS q "
                    "WHERE search @@ q ORDER BY rank DESC, error_hash LIMIT :limit"
                )
                rows = (await conn.execute(stmt, {"q": " | ".join(clean), "limit": limit})).all()
                return [(r.error_hash, float(r.rank)) for r in rows]
            stmt = text(
                "SELECT error_hash, bm25(error_entry_fts, 0.0, 4.0, 2.0, 1.0) AS rank "
                "FROM error_entry_fts WHERE error_entry_fts MATCH :q "
                "ORDER BY rank LIMIT :limit"
            )
            rows = (await conn.execute(stmt, {"q": _fts5_query(terms), "limit": limit})).all()
            # bm25 is smaller-is-better (negative); flip it so callers see larger-is-better.
            return [(r.error_hash, -float(r.rank)) for r in rows]

    async def patterns(self) -> list[tuple[str, str]]:
        """(hash, pattern) of every entry, for fuzzy matching in memory."""
        stmt = select(error_entry.c.error_hash, error_entry.c.pattern)
        async with self._engine.connect() as conn:
            return [(r.error_hash, r.pattern) for r in (await conn.execute(stmt)).all()]

    async def popular(self, limit: int) -> list[ErrorEntry]:
        """By net votes, then hits, then pattern (stable order)."""
        c = error_entry.c
        stmt = (
            select(error_entry)
            .order_by((c.votes_up - c.votes_down).desc(), c.hits.desc(), c.pattern)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return [_entry(r) for r in (await conn.execute(stmt)).all()]

    async def record_hits(self, hashes: Sequence[str]) -> None:
        if not hashes:
            return
        stmt = (
            update(error_entry)
            .where(error_entry.c.error_hash.in_(list(dict.fromkeys(hashes))))
            .values(hits=error_entry.c.hits + 1)
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)

    async def record_miss(
        self, error_hash: str, pattern: str, tool: str | None, *, now: datetime
    ) -> int:
        """Count one more miss of this pattern; returns the new count."""
        stmt = insert_for(self._dialect, error_miss).values(
            error_hash=error_hash,
            pattern=pattern,
            tool=tool,
            count=1,
            first_seen=now,
            last_seen=now,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["error_hash"],
            set_={"count": error_miss.c.count + 1, "last_seen": stmt.excluded.last_seen},
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)
            row = (
                await conn.execute(
                    select(error_miss.c.count).where(error_miss.c.error_hash == error_hash)
                )
            ).first()
        return int(row._mapping["count"]) if row else 1

    async def misses(self, limit: int) -> list[ErrorMiss]:
        """Most frequent misses first."""
        stmt = (
            select(error_miss)
            .order_by(error_miss.c.count.desc(), error_miss.c.pattern)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            ErrorMiss(
                r.error_hash,
                r.pattern,
                r.tool,
                int(r._mapping["count"]),
                _aware(r.first_seen),
                _aware(r.last_seen),
            )
            for r in rows
        ]

    async def vote(
        self, error_hash: str, client: str, value: int, *, now: datetime
    ) -> VoteOutcome | None:
        """
        Record `client`'s vote (+1/-1) on an entry: a second identical vote changes nothing, an
        opposite one replaces the first. None when the entry does not exist.
        """
        c = error_entry.c
        async with self._engine.begin() as conn:
            exists = (
                await conn.execute(
                    select(c.error_hash).where(c.error_hash == error_hash).with_for_update()
                )
                if self._dialect == "postgresql"
                else await conn.execute(select(c.error_hash).where(c.error_hash == error_hash))
            ).first()
            if exists is None:
                return None
            prior = (
                await conn.execute(
                    select(error_vote.c.vote).where(
                        error_vote.c.error_hash == error_hash, error_vote.c.client == client
                    )
                )
            ).first()
            if prior is not None and prior.vote == value:
                status = "unchanged"
            else:
                status = "recorded" if prior is None else "changed"
                stmt = insert_for(self._dialect, error_vote).values(
                    error_hash=error_hash, client=client, vote=value, voted_at=now
                )
                stmt = stmt.on_conflict_do_update(
                    index_elements=["error_hash", "client"],
                    set_={"vote": stmt.excluded.vote, "voted_at": stmt.excluded.voted_at},
                )
                await conn.execute(stmt)
                up = 1 if value > 0 else 0
                down = 1 if value < 0 else 0
                if prior is not None:
                    up -= 1 if prior.vote > 0 else 0
                    down -= 1 if prior.vote < 0 else 0
                await conn.execute(
                    update(error_entry)
                    .where(c.error_hash == error_hash)
                    .values(votes_up=c.votes_up + up, votes_down=c.votes_down + down)
                )
            row = (
                await conn.execute(
                    select(c.votes_up, c.votes_down).where(c.error_hash == error_hash)
                )
            ).one()
        return VoteOutcome(error_hash, int(row.votes_up), int(row.votes_down), status)
