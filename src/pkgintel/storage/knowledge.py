"""
`SqlKnowledgeStore`: curated entries, harvested release notes and bugs, harvest state, package
repositories, the usage log and full-text name search, on SQLite or PostgreSQL.

Full text: SQLite uses the FTS5 tables the migration creates (`known_bug_fts`, `package_name_fts`,
kept in step by triggers); PostgreSQL uses GIN indexes over `to_tsvector` expressions. Queries are
turned into prefix-matching token lists here, so user text never reaches the query syntax.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import (
    Float,
    and_,
    case,
    column,
    delete,
    func,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import StorageError
from pkgintel.domain.knowledge.bugs import BugReport
from pkgintel.domain.knowledge.release_notes import BreakingChange, ReleaseSection
from pkgintel.domain.knowledge.values import CuratedRow, HarvestState, StoredBug
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.operations.usage import UsageEvent
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.search import query_tokens
from pkgintel.storage.sql import insert_for
from pkgintel.storage.tables import (
    harvest_state,
    knowledge_entry,
    known_bug,
    package_name,
    package_repository,
    release_section,
    usage_event,
)

NAME_CANDIDATES = 400
"""Full-text matches considered per name search (bounds its cost; see `search_names`)."""

# The candidate subquery runs first (its LIMIT keeps SQLite from flattening it, and CROSS JOIN fixes
# the join order): probing the full-text index once per package_name row would take seconds.
_SQLITE_NAME_SEARCH = (
    "SELECT p.*, CASE WHEN instr(lower(p.name), :tok) > 0 THEN 1.0 ELSE 0.5 END AS score "
    "FROM (SELECT rowid AS rid FROM package_name_fts WHERE package_name_fts MATCH :match "
    "LIMIT :candidates) AS m CROSS JOIN package_name AS p ON p.rowid = m.rid "
    "WHERE p.ecosystem = :eco ORDER BY (instr(lower(p.name), :tok) = 0), "
    "(p.popularity_rank IS NULL), p.popularity_rank, (p.monthly_downloads IS NULL), "
    "p.monthly_downloads DESC LIMIT :limit"
)
_PG_NAME_SEARCH = (
    "SELECT p.*, CASE WHEN strpos(lower(p.name), :tok) > 0 THEN 1.0 ELSE 0.5 END AS score "
    "FROM (SELECT ecosystem, name FROM package_name WHERE ecosystem = :eco AND "
    "to_tsvector('simple', name || ' ' || coalesce(summary, '')) @@ to_tsquery('simple', :match) "
    "LIMIT :candidates) AS m JOIN package_name AS p ON p.ecosystem = m.ecosystem AND p.name = m.name "
    "ORDER BY (strpos(lower(p.name), :tok) = 0), (p.popularity_rank IS NULL), p.popularity_rank, "
    "(p.monthly_downloads IS NULL), p.monthly_downloads DESC LIMIT :limit"
)


def _aware(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _breaking_json(items: Sequence[BreakingChange]) -> str:
    return orjson.dumps(
        [{"text": b.text, "kind": b.kind, "hint": b.hint, "url": b.source_url} for b in items]
    ).decode()


_SQLITE_USAGE_INSERT = (
    "INSERT INTO usage_event (at, source, ecosystem, package, ua_class, client, status, found, "
    "latency_ms, cache, account_id, key_id) SELECT json_extract(value, '$[0]'), "
    "json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), "
    "json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), "
    "json_extract(value, '$[7]'), json_extract(value, '$[8]'), json_extract(value, '$[9]'), "
    "json_extract(value, '$[10]'), json_extract(value, '$[11]') FROM json_each(?)"
)
"""The whole batch as one statement over one JSON array of rows: SQLite unpacks it in C with the
GIL released once. `executemany` releases and retakes the GIL around every row's step, and with
the event loop busy in the other thread each handoff is a convoy (measured: 1,146 µs a row against
a busy thread, 22 µs this way)."""


_SECOND: list[Any] = [None, ""]
"""The last whole second `_sqlite_datetime` formatted and its text (rows come in bursts)."""


def _sqlite_datetime(at: datetime) -> str:
    """`at` as SQLAlchemy's SQLite `DateTime` stores it: UTC, naive, always six digits of
    microseconds (`2026-11-28 06:08:11.000000`). The text of the whole second is reused from the
    previous row when it is the same second (a fifth of `strftime`'s cost)."""
    if at.tzinfo is not None and at.utcoffset():
        at = at.astimezone(UTC)
    second = (at.year, at.month, at.day, at.hour, at.minute, at.second)
    if second != _SECOND[0]:
        _SECOND[0], _SECOND[1] = second, at.isoformat(" ", "seconds")[:19]
    return f"{_SECOND[1]}.{at.microsecond:06d}"


READ_TTL_S = 30.0
"""How long a per-package read (curated rows, bugs, harvest states) is reused by this process. A
write through this store drops it at once; a write by another process is seen within this time."""


class SqlKnowledgeStore:
    """See the module docstring. The per-package reads a report makes on every answer (curated
    rows of one package, its bugs, its harvest states) are memoised for `READ_TTL_S`, so a warm
    report does not wait for three database round trips."""

    def __init__(self, engine: AsyncEngine, *, read_ttl_s: float = READ_TTL_S) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name
        self._reads: MemoryLRU[tuple[Any, ...], tuple[Any, ...] | dict[str, HarvestState]] = (
            MemoryLRU(20_000, ttl_s=read_ttl_s)
        )
        self.generation = 0
        """Bumped by every write through this store that a report reads (curated rows, bugs,
        harvest states): what a memo of answers built from those reads is keyed on."""

    @property
    def is_postgres(self) -> bool:
        return self._dialect == "postgresql"

    def _insert(self, table: Any) -> Any:
        return insert_for(self._dialect, table)

    async def _write(self, what: str, statements: Sequence[Any]) -> None:
        try:
            async with self._engine.begin() as conn:
                for stmt in statements:
                    if isinstance(stmt, tuple):
                        await conn.execute(stmt[0], stmt[1])
                    else:
                        await conn.execute(stmt)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not write {what}: {exc.__class__.__name__}") from exc

    # -- curated ---------------------------------------------------------------------------
    async def replace_curated(self, rows: Sequence[CuratedRow]) -> int:
        """Replace every curated entry with `rows` in one transaction."""
        values = [
            {
                "kind": r.kind,
                "ecosystem": r.ecosystem.value,
                "package": r.package,
                "target": r.target,
                "payload": orjson.dumps(r.payload).decode(),
                "source": r.source,
                "origin": "curated",
                "loaded_at": r.loaded_at,
            }
            for r in rows
        ]
        stmts: list[Any] = [delete(knowledge_entry).where(knowledge_entry.c.origin == "curated")]
        if values:
            stmts.append((knowledge_entry.insert(), values))
        try:
            await self._write("curated knowledge", stmts)
        finally:
            self._reads.clear()
            self.generation += 1
        return len(values)

    @staticmethod
    def _curated(row: Any) -> CuratedRow:
        return CuratedRow(
            row.kind,
            Ecosystem(row.ecosystem),
            row.package,
            row.target,
            orjson.loads(row.payload),
            row.source,
            _aware(row.loaded_at) or datetime.now(UTC),
        )

    async def curated(
        self,
        kind: str,
        ecosystem: Ecosystem | None = None,
        package: str | None = None,
        target: str | None = None,
        limit: int | None = None,
    ) -> list[CuratedRow]:
        memo_key = ("curated", kind, ecosystem, package, target, limit)
        per_package = ecosystem is not None and package is not None
        if per_package:
            found = self._reads.get(memo_key)
            if isinstance(found, tuple):
                return list(found)
        c = knowledge_entry.c
        stmt = select(knowledge_entry).where(c.kind == kind)
        if ecosystem is not None:
            stmt = stmt.where(c.ecosystem == ecosystem.value)
        if package is not None:
            stmt = stmt.where(c.package == package)
        if target is not None:
            stmt = stmt.where(c.target == target)
        stmt = stmt.order_by(c.ecosystem, c.package, c.target)
        if limit is not None:
            stmt = stmt.limit(limit)
        async with self._engine.connect() as conn:
            rows = [self._curated(r) for r in (await conn.execute(stmt)).all()]
        if per_package:
            self._reads.set(memo_key, tuple(rows))
        return rows

    async def curated_count(self) -> int:
        async with self._engine.connect() as conn:
            return int(
                (await conn.execute(select(func.count()).select_from(knowledge_entry))).scalar_one()
            )

    # -- release notes ---------------------------------------------------------------------
    async def replace_sections(
        self,
        ecosystem: Ecosystem,
        package: str,
        origin: str,
        sections: Sequence[ReleaseSection],
        now: datetime,
    ) -> int:
        """Replace the package's sections of one origin (the newest harvest wins)."""
        c = release_section.c
        seen: dict[str, ReleaseSection] = {}
        for s in sections:
            seen.setdefault(s.version, s)
        values = [
            {
                "ecosystem": ecosystem.value,
                "package": package,
                "origin": origin,
                "version": s.version[:128],
                "title": s.title,
                "url": s.url,
                "published_at": s.published_at,
                "prerelease": s.prerelease,
                "entries": orjson.dumps(list(s.entries)).decode(),
                "breaking": _breaking_json(s.breaking),
                "harvested_at": now,
            }
            for s in seen.values()
        ]
        stmts: list[Any] = [
            delete(release_section).where(
                c.ecosystem == ecosystem.value, c.package == package, c.origin == origin
            )
        ]
        if values:
            stmts.append((release_section.insert(), values))
        await self._write("release notes", stmts)
        return len(values)

    @staticmethod
    def _section(row: Any) -> ReleaseSection:
        published = _aware(row.published_at)
        breaking = tuple(
            BreakingChange(
                row.version,
                b["text"],
                b["kind"],
                b.get("url") or row.url,
                row.origin,
                b.get("hint"),
                published,
            )
            for b in orjson.loads(row.breaking)
        )
        return ReleaseSection(
            row.version,
            row.title,
            row.url,
            row.origin,
            published,
            tuple(orjson.loads(row.entries)),
            breaking,
            bool(row.prerelease),
        )

    async def sections(self, ecosystem: Ecosystem, package: str) -> list[ReleaseSection]:
        c = release_section.c
        stmt = select(release_section).where(c.ecosystem == ecosystem.value, c.package == package)
        async with self._engine.connect() as conn:
            return [self._section(r) for r in (await conn.execute(stmt)).all()]

    async def recent_breaking_sections(
        self, limit: int
    ) -> list[tuple[Ecosystem, str, ReleaseSection]]:
        """Harvested sections with breaking entries, newest publication first."""
        c = release_section.c
        stmt = (
            select(release_section)
            .where(c.breaking != "[]")
            .order_by(c.published_at.desc().nulls_last())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [(Ecosystem(r.ecosystem), r.package, self._section(r)) for r in rows]

    # -- bugs ------------------------------------------------------------------------------
    async def replace_bugs(
        self, ecosystem: Ecosystem, package: str, bugs: Sequence[BugReport], now: datetime
    ) -> int:
        c = known_bug.c
        unique = {b.number: b for b in bugs}
        values = [
            {
                "ecosystem": ecosystem.value,
                "package": package,
                "number": b.number,
                "title": b.title,
                "state": b.state,
                "severity": b.severity,
                "labels": orjson.dumps(list(b.labels)).decode(),
                "versions": orjson.dumps(list(b.versions)).decode(),
                "fixed_in": b.fixed_in,
                "url": b.url,
                "created_at": b.created_at,
                "closed_at": b.closed_at,
                "excerpt": b.excerpt,
                "comments": b.comments,
                "harvested_at": now,
            }
            for b in unique.values()
        ]
        stmts: list[Any] = [
            delete(known_bug).where(c.ecosystem == ecosystem.value, c.package == package)
        ]
        if values:
            stmts.append((known_bug.insert(), values))
        try:
            await self._write("known bugs", stmts)
        finally:
            self._reads.pop(("bugs", ecosystem, package))
            self.generation += 1
        return len(values)

    @staticmethod
    def _bug(row: Any) -> StoredBug:
        return StoredBug(
            Ecosystem(row.ecosystem),
            row.package,
            BugReport(
                number=row.number,
                title=row.title,
                state=row.state,
                labels=tuple(orjson.loads(row.labels)),
                severity=row.severity,
                versions=tuple(orjson.loads(row.versions)),
                url=row.url,
                created_at=_aware(row.created_at),
                closed_at=_aware(row.closed_at),
                excerpt=row.excerpt,
                comments=row.comments,
                fixed_in=row.fixed_in,
            ),
            _aware(row.harvested_at) or datetime.now(UTC),
        )

    async def bugs(self, ecosystem: Ecosystem, package: str) -> list[StoredBug]:
        found = self._reads.get(("bugs", ecosystem, package))
        if isinstance(found, tuple):
            return list(found)
        c = known_bug.c
        stmt = (
            select(known_bug)
            .where(c.ecosystem == ecosystem.value, c.package == package)
            .order_by(c.number.desc())
        )
        async with self._engine.connect() as conn:
            bugs = [self._bug(r) for r in (await conn.execute(stmt)).all()]
        self._reads.set(("bugs", ecosystem, package), tuple(bugs))
        return bugs

    async def search_bugs(self, query: str, limit: int) -> list[StoredBug]:
        """Bugs whose title or excerpt match every token of `query` (prefix match), best first."""
        tokens = query_tokens(query)
        if not tokens:
            return []
        if self.is_postgres:
            tsq = " & ".join(f"{t}:*" for t in tokens)
            vec = func.to_tsvector(
                literal_column("'english'"), known_bug.c.title + " " + known_bug.c.excerpt
            )
            q = func.to_tsquery(literal_column("'english'"), tsq)
            stmt: Any = (
                select(known_bug)
                .where(vec.op("@@")(q))
                .order_by(func.ts_rank(vec, q).desc(), known_bug.c.id.desc())
                .limit(limit)
            )
            params: dict[str, Any] = {}
        else:
            match = " ".join(f'"{t}"*' for t in tokens)
            stmt = text(
                "SELECT known_bug.* FROM known_bug_fts CROSS JOIN known_bug ON known_bug.id = known_bug_fts.rowid "
                "WHERE known_bug_fts MATCH :match ORDER BY bm25(known_bug_fts, 4.0, 1.0) LIMIT :limit"
            ).columns(*known_bug.columns)
            params = {"match": match, "limit": limit}
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt, params)).all()
        return [self._bug(r) for r in rows]

    async def bug_counts(self, limit: int) -> list[tuple[Ecosystem, str, int, int]]:
        """(ecosystem, package, bugs, open bugs) for the packages with the most recorded bugs."""
        c = known_bug.c
        open_count = func.sum(case((c.state == "open", 1), else_=0))
        stmt = (
            select(c.ecosystem, c.package, func.count().label("n"), open_count.label("open"))
            .group_by(c.ecosystem, c.package)
            .order_by(func.count().desc(), c.ecosystem, c.package)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [(Ecosystem(r.ecosystem), r.package, int(r.n), int(r.open or 0)) for r in rows]

    # -- harvest state ---------------------------------------------------------------------
    async def save_harvest(self, state: HarvestState) -> None:
        values = {
            "ecosystem": state.ecosystem.value,
            "package": state.package,
            "kind": state.kind,
            "repository": state.repository,
            "status": state.status,
            "detail": state.detail,
            "items": state.items,
            "harvested_at": state.harvested_at,
        }
        stmt = self._insert(harvest_state).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "package", "kind"],
            set_={k: v for k, v in values.items() if k not in ("ecosystem", "package", "kind")},
        )
        try:
            await self._write("harvest state", [stmt])
        finally:
            self._reads.pop(("harvest", state.ecosystem, state.package))
            self.generation += 1

    async def harvest_states(self, ecosystem: Ecosystem, package: str) -> dict[str, HarvestState]:
        found = self._reads.get(("harvest", ecosystem, package))
        if isinstance(found, dict):
            return dict(found)
        c = harvest_state.c
        stmt = select(harvest_state).where(c.ecosystem == ecosystem.value, c.package == package)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        states = {
            r.kind: HarvestState(
                Ecosystem(r.ecosystem),
                r.package,
                r.kind,
                r.repository,
                r.status,
                r.detail,
                r.items,
                _aware(r.harvested_at) or datetime.now(UTC),
            )
            for r in rows
        }
        self._reads.set(("harvest", ecosystem, package), states)
        return dict(states)

    # -- repositories ----------------------------------------------------------------------
    async def upsert_repository(
        self, ecosystem: Ecosystem, name: str, display_name: str, repository: str, now: datetime
    ) -> None:
        stmt = self._insert(package_repository).values(
            ecosystem=ecosystem.value,
            name=name,
            display_name=display_name,
            repository=repository[:512],
            seen_at=now,
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=["ecosystem", "name"],
            set_={
                "display_name": stmt.excluded.display_name,
                "repository": stmt.excluded.repository,
                "seen_at": stmt.excluded.seen_at,
            },
        )
        await self._write("package repository", [stmt])

    async def repository_of(self, ecosystem: Ecosystem, name: str) -> str | None:
        c = package_repository.c
        stmt = select(c.repository).where(c.ecosystem == ecosystem.value, c.name == name)
        async with self._engine.connect() as conn:
            return (await conn.execute(stmt)).scalar_one_or_none()

    async def packages_with_repository(
        self, repository: str
    ) -> list[tuple[Ecosystem, str, datetime]]:
        c = package_repository.c
        stmt = select(c.ecosystem, c.display_name, c.seen_at).where(c.repository == repository)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            (Ecosystem(r.ecosystem), r.display_name, _aware(r.seen_at) or datetime.now(UTC))
            for r in rows
        ]

    # -- usage log -------------------------------------------------------------------------
    async def write_usage(self, events: Sequence[UsageEvent]) -> int:
        """Append `events` in one transaction. On SQLite the batch goes to the driver as one JSON
        array in one statement (`_SQLITE_USAGE_INSERT`: no per-row parameter processing in the
        expression layer, no per-row GIL handoff in the driver; every API call writes one row);
        the stored forms are the ones the `DateTime` and `Boolean` types write there, so reads are
        unchanged."""
        if not events:
            return 0
        if self._dialect == "sqlite":
            rows = [
                (
                    _sqlite_datetime(e.at),
                    e.source[:128],
                    e.ecosystem,
                    e.package[:256] if e.package else None,
                    e.ua_class,
                    e.client[:32],
                    e.status,
                    None if e.found is None else int(e.found),
                    e.latency_ms,
                    e.cache[:16] if e.cache else None,
                    e.account_id,
                    e.key_id,
                )
                for e in events
            ]
            try:
                async with self._engine.begin() as conn:
                    await conn.exec_driver_sql(_SQLITE_USAGE_INSERT, (orjson.dumps(rows).decode(),))
            except SQLAlchemyError as exc:
                raise StorageError(
                    f"could not write usage events: {exc.__class__.__name__}"
                ) from exc
            return len(rows)
        values = [
            {
                "at": e.at,
                "source": e.source[:128],
                "ecosystem": e.ecosystem,
                "package": e.package[:256] if e.package else None,
                "ua_class": e.ua_class,
                "client": e.client[:32],
                "status": e.status,
                "found": e.found,
                "latency_ms": e.latency_ms,
                "cache": e.cache[:16] if e.cache else None,
                "account_id": e.account_id,
                "key_id": e.key_id,
            }
            for e in events
        ]
        await self._write("usage events", [(usage_event.insert(), values)])
        return len(values)

    async def prune_usage(self, before: datetime) -> int:
        try:
            async with self._engine.begin() as conn:
                result = await conn.execute(delete(usage_event).where(usage_event.c.at < before))
        except SQLAlchemyError as exc:
            raise StorageError(f"could not prune usage events: {exc.__class__.__name__}") from exc
        return int(result.rowcount or 0)

    async def usage_for_client(self, client: str) -> list[UsageEvent]:
        c = usage_event.c
        stmt = select(usage_event).where(c.client == client).order_by(c.at)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            UsageEvent(
                _aware(r.at) or datetime.now(UTC),
                r.source,
                r.ecosystem,
                r.package,
                r.ua_class,
                r.client,
                r.status,
                r.found,
                r.latency_ms,
                r.cache,
                r.account_id,
                r.key_id,
            )
            for r in rows
        ]

    async def package_counts(
        self,
        start: datetime,
        end: datetime,
        *,
        ecosystem: str | None,
        exclude_classes: Sequence[str],
        exclude_sources: Sequence[str],
        limit: int | None = None,
    ) -> dict[tuple[str, str], tuple[int, int]]:
        """(ecosystem, package) → (calls, distinct clients) in [start, end)."""
        c = usage_event.c
        conds = [c.at >= start, c.at < end, c.package.is_not(None), c.ecosystem.is_not(None)]
        # Answered calls only: a name that does not exist is the hallucination corpus, not a trend.
        conds += [
            or_(c.status.is_(None), c.status < 400),
            or_(c.found.is_(None), c.found.is_(True)),
        ]
        if ecosystem:
            conds.append(c.ecosystem == ecosystem)
        if exclude_classes:
            conds.append(c.ua_class.not_in(list(exclude_classes)))
        if exclude_sources:
            conds.append(c.source.not_in(list(exclude_sources)))
        stmt = (
            select(
                c.ecosystem,
                c.package,
                func.count().label("n"),
                func.count(func.distinct(c.client)).label("clients"),
            )
            .where(and_(*conds))
            .group_by(c.ecosystem, c.package)
            .order_by(func.count().desc())
        )
        if limit is not None:
            stmt = stmt.limit(limit)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return {(r.ecosystem, r.package): (int(r.n), int(r.clients)) for r in rows}

    async def usage_by_class(
        self, start: datetime, end: datetime, bucket: str
    ) -> list[tuple[datetime, str, int, int]]:
        """(bucket start, ua_class, calls, distinct clients) per `bucket` (`hour` or `day`)."""
        c = usage_event.c
        if self.is_postgres:
            key = func.date_trunc(bucket, c.at)
        else:
            fmt = "%Y-%m-%d %H:00:00" if bucket == "hour" else "%Y-%m-%d 00:00:00"
            key = func.strftime(fmt, c.at)
        stmt = (
            select(
                key.label("bucket"),
                c.ua_class,
                func.count().label("n"),
                func.count(func.distinct(c.client)).label("clients"),
            )
            .where(c.at >= start, c.at < end)
            .group_by(key, c.ua_class)
            .order_by(key, c.ua_class)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        out = []
        for r in rows:
            when = (
                r.bucket
                if isinstance(r.bucket, datetime)
                else datetime.fromisoformat(str(r.bucket))
            )
            out.append((_aware(when) or when, r.ua_class, int(r.n), int(r.clients)))
        return out

    # -- name search -----------------------------------------------------------------------
    async def search_names(
        self, ecosystem: Ecosystem, query: str, limit: int, *, candidates: int = NAME_CANDIDATES
    ) -> list[tuple[NameEntry, float]]:
        """
        Name-index entries matching every token of `query` (prefix match on names and summaries): the
        first `candidates` full-text matches, then names containing the longest token first, then by
        popularity (download rank, monthly downloads). The cost is bounded by `candidates`, so a
        common word cannot make the query slow; the most popular matches come from the service's
        in-memory pool (`DiscoveryService`), this query finds the long tail. Score 1.0 marks a match in
        the name, 0.5 one in the summary only.
        """
        tokens = query_tokens(query)
        if not tokens:
            return []
        longest = max(tokens, key=len)
        if self.is_postgres:
            sql, match = _PG_NAME_SEARCH, " & ".join(f"{t}:*" for t in tokens)
        else:
            sql, match = _SQLITE_NAME_SEARCH, " ".join(f'"{t}"*' for t in tokens)
        stmt = text(sql).columns(*package_name.columns, column("score", Float))
        params = {
            "match": match,
            "eco": ecosystem.value,
            "tok": longest,
            "candidates": candidates,
            "limit": limit,
        }
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt, params)).all()
        return [
            (
                NameEntry(
                    ecosystem=Ecosystem(r.ecosystem),
                    name=r.name,
                    display_name=r.display_name,
                    latest_version=r.latest_version,
                    monthly_downloads=r.monthly_downloads,
                    popularity_rank=r.popularity_rank,
                    summary=r.summary,
                    source=r.source,
                ),
                float(r.score or 0.0),
            )
            for r in rows
        ]
