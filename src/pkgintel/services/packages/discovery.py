"""
`DiscoveryService`: search, popular, trending and same-as.

- Search merges the registry's own search (adapters with the `SearchableRegistry` capability; a
  failing registry only marks its source unavailable) with full-text search over our name index
  (names and summaries). Every ecosystem answers: index-only where the registry has no search API
  or the index is all we have. Registry answers are reused for `SEARCH_TTL_S`.
- Popular: the name index ordered by downloads (or the list's download rank).
- Trending: our own query log (`TrendingLog`, which the operations usage log satisfies).
- Same-as: packages in any ecosystem whose normalised source repository equals this one's (from
  every package a live report has seen), plus a relocation the registry states (`info.extra
  ["relocated_to"]`, e.g. Maven), plus same-name entries in the paired ecosystem's name index
  (PyPI ↔ conda, npm ↔ JSR) marked as name-only evidence.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.names.rules import NameEntry, normalise_name, validate_name
from pkgintel.domain.operations.usage import Trend
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.search import SearchHit, merge_hits, query_tokens
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.ecosystems.optional import SearchableRegistry
from pkgintel.services.packages.service import PackageService
from pkgintel.storage.base import KnowledgeStore, NameStore

MAX_QUERY = 200
INDEX_SOURCE = "name_index"
SEARCH_TTL_S = 3600.0
SEARCH_ENTRIES = 2000
REGISTRY_SEARCH_TIMEOUT_S = 5.0
POOL_SIZE = 20000
"""Most popular names per ecosystem searched in memory (the database finds the long tail)."""
POOL_TTL_S = 600.0
NAME_PAIRS: Mapping[Ecosystem, Ecosystem] = {
    Ecosystem.PYPI: Ecosystem.CONDA,
    Ecosystem.CONDA: Ecosystem.PYPI,
    Ecosystem.NPM: Ecosystem.JSR,
    Ecosystem.JSR: Ecosystem.NPM,
}


class TrendingLog(Protocol):
    """The query log trending is read from (the operations usage log, `UsageLog`)."""

    async def trending(
        self, ecosystem: str | None = None, limit: int = 20
    ) -> tuple[list[Trend], datetime, datetime]:
        """Most-asked packages of the current window, and the window's start and end."""
        ...


@dataclass(frozen=True, slots=True)
class SearchAnswer:
    ecosystem: Ecosystem
    query: str
    hits: tuple[SearchHit, ...]
    sources: tuple[SourceStatus, ...]


@dataclass(frozen=True, slots=True)
class SameAs:
    ecosystem: Ecosystem
    package: str
    evidence: str
    """`same_repository`, `relocation` or `same_name`."""
    detail: str


@dataclass(frozen=True, slots=True)
class SameAsAnswer:
    ecosystem: Ecosystem
    package: str
    repository: str | None
    matches: tuple[SameAs, ...]
    note: str


def repository_key(url: str | None) -> str | None:
    """The comparable form of a repository URL (adapters already normalise to https://host/owner/repo)."""
    if not url:
        return None
    key = url.strip().lower().rstrip("/").removesuffix(".git")
    return key if key.startswith("https://") or key.startswith("http://") else None


@dataclass(frozen=True, slots=True)
class _Pool:
    """The most popular names of one ecosystem (most popular first) as one lower-cased text, one
    `name summary` line per entry, for substring search without the database."""

    loaded: float
    entries: list[NameEntry]
    text: str
    starts: list[int]

    @classmethod
    def build(cls, entries: list[NameEntry], loaded: float) -> _Pool:
        starts, parts, pos = [], [], 0
        for e in entries:
            line = f"{e.display_name} {e.summary or ''}".lower().replace("\n", " ")
            starts.append(pos)
            parts.append(line)
            pos += len(line) + 1
        return cls(loaded, entries, "\n".join(parts), starts)

    def matches(self, tokens: list[str]) -> list[tuple[NameEntry, bool]]:
        """Entries whose line holds every token, most popular first; with whether the name holds
        the longest token."""
        if not tokens or not self.entries:
            return []
        key = max(tokens, key=len)
        out: list[tuple[NameEntry, bool]] = []
        pos, text = 0, self.text
        while (i := text.find(key, pos)) >= 0:
            idx = bisect.bisect_right(self.starts, i) - 1
            end = self.starts[idx + 1] - 1 if idx + 1 < len(self.starts) else len(text)
            line = text[self.starts[idx] : end]
            if all(t in line for t in tokens):
                entry = self.entries[idx]
                out.append((entry, key in entry.display_name.lower()))
            pos = end + 1
        return out


def _entry_hit(entry: NameEntry, relevance: float = 0.0) -> SearchHit:
    return SearchHit(
        entry.display_name,
        entry.summary,
        entry.latest_version,
        entry.monthly_downloads,
        entry.popularity_rank,
        relevance,
        (INDEX_SOURCE,),
    )


class DiscoveryService:
    """See the module docstring."""

    def __init__(
        self,
        names: NameStore,
        store: KnowledgeStore,
        packages: PackageService,
        adapters: Mapping[Ecosystem, RegistryAdapter],
        usage: TrendingLog,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._names = names
        self._store = store
        self._packages = packages
        self._adapters = adapters
        self._usage = usage
        self._clock = clock
        self._pools: dict[Ecosystem, _Pool] = {}
        self._pool_locks: dict[Ecosystem, asyncio.Lock] = {}
        self._searches = MemoryLRU[tuple[Ecosystem, str, int], tuple[list[SearchHit], datetime]](
            SEARCH_ENTRIES, ttl_s=SEARCH_TTL_S
        )

    # -- search ----------------------------------------------------------------------------
    async def _pool(self, ecosystem: Ecosystem) -> _Pool:
        pool = self._pools.get(ecosystem)
        if pool is not None and time.monotonic() - pool.loaded < POOL_TTL_S:
            return pool
        async with self._pool_locks.setdefault(ecosystem, asyncio.Lock()):
            pool = self._pools.get(ecosystem)
            if pool is not None and time.monotonic() - pool.loaded < POOL_TTL_S:
                return pool
            entries = await self._names.list_popular_names(ecosystem, POOL_SIZE)
            pool = await asyncio.to_thread(_Pool.build, entries, time.monotonic())
            self._pools[ecosystem] = pool
            return pool

    async def _registry_search(
        self, adapter: SearchableRegistry, ecosystem: Ecosystem, query: str, limit: int
    ) -> tuple[list[SearchHit], SourceStatus]:
        key = (ecosystem, query.lower(), limit)
        cached = self._searches.get(key)
        if cached is not None:
            return cached[0], SourceStatus(
                adapter.search_source, "search", SourceState.OK, cached[1]
            )
        try:
            hits = await asyncio.wait_for(adapter.search(query, limit), REGISTRY_SEARCH_TIMEOUT_S)
        except (PkgIntelError, TimeoutError) as exc:
            detail = exc.message if isinstance(exc, PkgIntelError) else "timed out"
            return [], SourceStatus(
                adapter.search_source, "search", SourceState.UNAVAILABLE, None, detail
            )
        fetched = self._clock()
        self._searches.set(key, (hits, fetched))
        return hits, SourceStatus(adapter.search_source, "search", SourceState.OK, fetched)

    async def search(self, ecosystem: Ecosystem, query: str, limit: int = 10) -> SearchAnswer:
        """Packages matching `query` (see the module docstring). Raises `InvalidInput` for a query over
        `MAX_QUERY` characters."""
        query = query.strip()
        if len(query) > MAX_QUERY:
            raise InvalidInput("q", f"q must be at most {MAX_QUERY} characters")
        state = await self._names.get_index_state(ecosystem)
        index_status = (
            SourceStatus(
                INDEX_SOURCE,
                "name_index",
                SourceState.OK,
                state.loaded_at,
                f"{state.names_count:,} names",
            )
            if state
            else SourceStatus(
                INDEX_SOURCE,
                "name_index",
                SourceState.UNAVAILABLE,
                None,
                "index not loaded: only packages seen by live reports are searched",
            )
        )
        if not query:
            return SearchAnswer(ecosystem, query, (), (index_status,))
        adapter = self._adapters.get(ecosystem)
        registry_task = (
            self._registry_search(adapter, ecosystem, query, limit)
            if isinstance(adapter, SearchableRegistry)
            else None
        )
        exact_task = self._names.get_name(ecosystem, normalise_name(ecosystem, query))
        index_task = self._store.search_names(ecosystem, query, max(limit * 2, 20))
        pool = await self._pool(ecosystem)
        tokens = query_tokens(query)
        popular = pool.matches(tokens)
        popular.sort(key=lambda m: not m[1])  # names holding the query first, popularity kept
        reg_hits: list[SearchHit] = []
        reg_status: SourceStatus | None = None
        if registry_task is not None:
            exact, indexed, (reg_hits, reg_status) = await asyncio.gather(
                exact_task, index_task, registry_task
            )
        else:
            exact, indexed = await asyncio.gather(exact_task, index_task)
        index_hits = (
            ([_entry_hit(exact, 1e9)] if exact else [])
            + [_entry_hit(e, 1.0 if in_name else 0.5) for e, in_name in popular[: limit * 2]]
            + [_entry_hit(e, s) for e, s in indexed]
        )
        ranked: list[tuple[str, list[SearchHit]]] = []
        if reg_status is not None:
            ranked.append((reg_status.name, reg_hits))
        ranked.append((INDEX_SOURCE, index_hits))
        hits = merge_hits(query, ranked, lambda n: normalise_name(ecosystem, n), limit)
        sources = (index_status,) + ((reg_status,) if reg_status else ())
        return SearchAnswer(ecosystem, query, tuple(hits), sources)

    # -- popular and trending ----------------------------------------------------------------
    async def popular(
        self, ecosystem: Ecosystem | None, limit: int = 20
    ) -> list[tuple[Ecosystem, list[NameEntry], datetime]]:
        """Top packages per loaded name index (one ecosystem, or every loaded one)."""
        states = await self._names.list_index_states()
        out = []
        for state in sorted(states, key=lambda s: s.ecosystem.value):
            if ecosystem is not None and state.ecosystem is not ecosystem:
                continue
            out.append(
                (
                    state.ecosystem,
                    await self._names.list_popular_names(state.ecosystem, limit),
                    state.loaded_at,
                )
            )
        return out

    async def trending(
        self, ecosystem: Ecosystem | None, limit: int = 20
    ) -> tuple[list[Trend], datetime, datetime]:
        return await self._usage.trending(ecosystem.value if ecosystem else None, limit)

    # -- same-as ---------------------------------------------------------------------------
    async def record_seen(self, info: PackageInfo, _downloads: int | None = None) -> None:
        """Remember the package's repository (hook called by `PackageService` for every live fetch)."""
        repo = repository_key(info.repository)
        if repo is not None:
            await self._store.upsert_repository(
                info.ecosystem,
                normalise_name(info.ecosystem, info.name),
                info.name,
                repo,
                self._clock(),
            )

    async def sameas(self, ecosystem: Ecosystem, name: str) -> SameAsAnswer:
        """The same project elsewhere (see the module docstring). Raises like `get_snapshot` when the
        package's own repository is not known yet and its registry data cannot be read."""
        name = validate_name(ecosystem, name)
        key = normalise_name(ecosystem, name)
        repo = await self._store.repository_of(ecosystem, key)
        info: PackageInfo | None = None
        if repo is None and self._packages.supports(ecosystem):
            snap = await self._packages.get_snapshot(ecosystem, name)
            info = snap.info
            repo = repository_key(info.repository)
            if repo is not None:
                await self.record_seen(info)
        matches: list[SameAs] = []
        if repo is not None:
            for eco, display, seen in await self._store.packages_with_repository(repo):
                if eco is ecosystem and normalise_name(eco, display) == key:
                    continue
                matches.append(
                    SameAs(
                        eco,
                        display,
                        "same_repository",
                        f"both name {repo} (seen {seen.date().isoformat()})",
                    )
                )
        if info is not None and info.extra.get("relocated_to"):
            matches.append(
                SameAs(
                    ecosystem,
                    info.extra["relocated_to"],
                    "relocation",
                    "the registry states a relocation",
                )
            )
        pair = NAME_PAIRS.get(ecosystem)
        if pair is not None and await self._names.get_index_state(pair) is not None:
            entry = await self._names.get_name(pair, normalise_name(pair, name))
            if entry is not None and not any(m.ecosystem is pair for m in matches):
                matches.append(
                    SameAs(
                        pair,
                        entry.display_name,
                        "same_name",
                        f"same name in the {pair.value} name index; not proof it is the same project",
                    )
                )
        note = (
            "matched by source repository across every package our live reports have seen"
            if repo
            else "the package states no source repository, so only name and relocation evidence is used"
        )
        return SameAsAnswer(ecosystem, name, repo, tuple(matches), note)
