"""
`NameService`: the per-ecosystem name index — existence, did-you-mean, typosquat hints, ingestion.

Existence is answered from the database only. When an ecosystem's index has never been loaded and
the name has not been seen by a live report, the answer is `exists: None` ("we do not know"), never
"no".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names import NameEntry, NameIndexState, normalise_name
from pkgintel.domain.near_names import NamePool, close_matches
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.scoring.verdicts import established, far_more_popular, scope_compatible
from pkgintel.storage.base import NameStore

logger = logging.getLogger(__name__)
ANSWER_TTL_S = 60.0
"""How long one process reuses an `exists` answer (ingestion and live sightings clear it sooner)."""
ANSWER_ENTRIES = 50000
POPULAR_POOL = 20000
"""How many of the most popular names are kept in memory per ecosystem for suggestions."""
_POOL_TTL_S = 600.0
HINT_ENTRIES = 20000
"""Typosquat hints kept per ecosystem pool (dropped with the pool when it is reloaded)."""


@dataclass(frozen=True, slots=True)
class ExistsAnswer:
    """Answer of `/api/exists`."""

    ecosystem: Ecosystem
    package: str
    normalized: str
    exists: bool | None
    reason: str
    entry: NameEntry | None
    index: NameIndexState | None
    did_you_mean: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TyposquatHint:
    """Whether a name looks like a misspelling of a much more popular one."""

    is_suspected: bool
    checked: bool
    targets: tuple[tuple[str, int], ...] = ()
    """(popular name, edit distance)."""
    reason: str = ""


@dataclass(slots=True)
class _Pool:
    """The popular names of one ecosystem as loaded at `loaded_at`, with the hints computed on them."""

    loaded_at: float
    entries: list[NameEntry]
    names: NamePool
    hints: OrderedDict[str, TyposquatHint]
    popularity: dict[str, int | None] = field(default_factory=dict)
    """Display name → monthly downloads, for the popularity-gap rule."""


def _indexed_pool(names: list[str]) -> NamePool:
    """A `NamePool` with the segment indexes `typosquat` and `suggest` use (k = 1 and 2) built."""
    pool = NamePool(names)
    pool.prepare(1, 2)
    return pool


def _scope_distance(a: str, b: str) -> int:
    """Edit distance between the npm scopes of two scoped names (0 when either is unscoped)."""
    if not (a.startswith("@") and b.startswith("@")):
        return 0
    return int(DamerauLevenshtein.distance(a.partition("/")[0], b.partition("/")[0]))


def _renamed(answer: ExistsAnswer, name: str) -> ExistsAnswer:
    """The same answer for another spelling of the same normalised name."""
    return replace(answer, package=name)


class NameService:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(self, store: NameStore, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        self._pools: dict[Ecosystem, _Pool] = {}
        self._pool_locks: dict[Ecosystem, asyncio.Lock] = {}
        self._states: dict[Ecosystem, tuple[float, NameIndexState | None]] = {}
        self._answers: OrderedDict[tuple[Ecosystem, str], tuple[float, ExistsAnswer]] = (
            OrderedDict()
        )

    async def exists(self, ecosystem: Ecosystem, name: str) -> ExistsAnswer:
        """
        Look the name up in the index. See the module docstring for the `None` case.

        Answers are reused by this process for up to `ANSWER_TTL_S` seconds (popular names are asked
        for constantly); an ingestion or a live sighting in this process clears them at once.
        """
        key = normalise_name(ecosystem, name)
        now = self._clock()
        cached = self._answers.get((ecosystem, key))
        if cached is not None and now - cached[0] < ANSWER_TTL_S:
            self._answers.move_to_end((ecosystem, key))
            answer = cached[1]
            return answer if answer.package == name else _renamed(answer, name)
        answer = await self._lookup(ecosystem, name, key)
        self._answers[(ecosystem, key)] = (now, answer)
        if len(self._answers) > ANSWER_ENTRIES:
            self._answers.popitem(last=False)
        return answer

    async def known_many(
        self, ecosystem: Ecosystem, names: list[str]
    ) -> tuple[dict[str, NameEntry], NameIndexState | None]:
        """Index entries of many names (by normalised key) and the index state."""
        keys = [normalise_name(ecosystem, n) for n in names]
        entries, state = await asyncio.gather(
            self._store.get_names(ecosystem, keys), self.index_state(ecosystem)
        )
        return entries, state

    async def index_state(self, ecosystem: Ecosystem) -> NameIndexState | None:
        """The ecosystem's index state, reused for `ANSWER_TTL_S` like the answers built on it."""
        now = self._clock()
        cached = self._states.get(ecosystem)
        if cached is not None and now - cached[0] < ANSWER_TTL_S:
            return cached[1]
        state = await self._store.get_index_state(ecosystem)
        self._states[ecosystem] = (now, state)
        return state

    async def _lookup(self, ecosystem: Ecosystem, name: str, key: str) -> ExistsAnswer:
        entry = await self._store.get_name(ecosystem, key)
        state = await self.index_state(ecosystem)
        if entry is not None:
            how = "the loaded name index" if entry.source == "ingest" else "a live registry lookup"
            return ExistsAnswer(ecosystem, name, key, True, f"found in {how}", entry, state)
        if state is None:
            return ExistsAnswer(
                ecosystem,
                name,
                key,
                None,
                f"the {ecosystem.value} name index has not been loaded, so absence proves nothing; "
                f"use /api/check/{ecosystem.value}/... for a live answer",
                None,
                None,
            )
        suggestions = await self.suggest(ecosystem, name)
        return ExistsAnswer(
            ecosystem,
            name,
            key,
            False,
            f"not in the {ecosystem.value} name index loaded {state.loaded_at.date().isoformat()} "
            f"({state.names_count:,} names); a package published since may be missing",
            None,
            state,
            tuple(suggestions),
        )

    def _fresh_pool(self, ecosystem: Ecosystem) -> _Pool | None:
        cached = self._pools.get(ecosystem)
        if cached is not None and self._clock() - cached.loaded_at < _POOL_TTL_S:
            return cached
        return None

    async def _pool(self, ecosystem: Ecosystem) -> _Pool:
        """The popular-name pool; one load per ecosystem at a time (concurrent callers wait for it)."""
        pool = self._fresh_pool(ecosystem)
        if pool is not None:
            return pool
        async with self._pool_locks.setdefault(ecosystem, asyncio.Lock()):
            pool = self._fresh_pool(ecosystem)
            if pool is not None:
                return pool
            entries = await self._store.list_popular_names(ecosystem, POPULAR_POOL)
            # Indexing 20,000 names takes ~100 ms of CPU: done in a thread, off the event loop.
            names = await asyncio.to_thread(_indexed_pool, [e.name for e in entries])
            pool = _Pool(
                self._clock(),
                entries,
                names,
                OrderedDict(),
                {e.display_name: e.monthly_downloads for e in entries},
            )
            self._pools[ecosystem] = pool
            return pool

    async def suggest(self, ecosystem: Ecosystem, name: str, limit: int = 5) -> list[str]:
        """Up to `limit` known names close to `name`, popular ones first (empty when nothing is close)."""
        key = normalise_name(ecosystem, name)
        pool = await self._pool(ecosystem)
        cutoff = 2 if len(key) > 4 else 1
        found: dict[str, tuple[int, int]] = {}
        for idx, dist in pool.names.near(key, cutoff, limit * 4):
            found.setdefault(pool.entries[idx].display_name, (dist, idx))
        if len(found) < limit:
            near = await self._store.list_names_near(ecosystem, key, 5000)
            # `near` holds normalised keys, `found` display names: compare keys (NuGet, cargo fold).
            seen = {normalise_name(ecosystem, shown) for shown in found}
            for idx, dist in close_matches(key, near, cutoff):
                if dist > 0 and near[idx] not in found and near[idx] not in seen:
                    found[near[idx]] = (dist, POPULAR_POOL + 1)
        ranked = sorted(found.items(), key=lambda item: (item[1][0], item[1][1]))
        return [n for n, _ in ranked[:limit]]

    async def typosquat(
        self,
        ecosystem: Ecosystem,
        name: str,
        entry: NameEntry | None = None,
        *,
        weekly_downloads: int | None = None,
        release_count: int | None = None,
        first_release_days: int | None = None,
        lookup: bool = True,
    ) -> TyposquatHint:
        """
        Suspected when `name` is within edit distance 1 (2 for names over 8 characters) of a name in the
        popular pool that is far more popular (`scoring.verdicts.far_more_popular`), while `name`
        itself is neither in that pool nor established (`scoring.verdicts.established`, from its
        name-index `entry` — looked up when not given, unless `lookup` is False because the caller
        already knows there is none — and the registry facts a report passes).
        Scoped npm names in different scopes follow the scope rule (`scope_compatible`). Not checked
        when the index is not loaded. Near-miss candidates are computed once per name and pool load.
        """
        key = normalise_name(ecosystem, name)
        pool = await self._pool(ecosystem)
        hint = pool.hints.get(key)
        if hint is None:
            hint = self._typosquat(ecosystem, key, pool)
            pool.hints[key] = hint
            if len(pool.hints) > HINT_ENTRIES:
                pool.hints.popitem(last=False)
        if not hint.is_suspected:
            return hint
        if entry is None and lookup:
            entry = (await self.exists(ecosystem, name)).entry
        monthly = entry.monthly_downloads if entry is not None else None
        why = established(
            monthly_downloads=monthly,
            popularity_rank=entry.popularity_rank if entry is not None else None,
            weekly_downloads=weekly_downloads,
            release_count=release_count,
            first_release_days=first_release_days,
        )
        if why is not None:
            return TyposquatHint(False, True, (), f"an established package ({why}), not a suspect")
        targets = tuple(
            (target, dist)
            for target, dist in hint.targets
            if far_more_popular(pool.popularity.get(target), monthly)
        )
        if not targets:
            return TyposquatHint(
                False, True, (), "near names exist, but none is far more popular than this one"
            )
        return TyposquatHint(True, True, targets, hint.reason)

    @staticmethod
    def _typosquat(ecosystem: Ecosystem, key: str, pool: _Pool) -> TyposquatHint:
        if not len(pool.names):
            return TyposquatHint(
                False, False, reason=f"no popularity data loaded for {ecosystem.value}"
            )
        if key in pool.names:
            return TyposquatHint(
                False, True, reason="the name is itself among the most popular packages"
            )
        if len(key) < 4:
            return TyposquatHint(False, True, reason="names under 4 characters are not compared")
        cutoff = 2 if len(key) > 8 else 1
        hits = pool.names.near(key, cutoff, 5)
        targets = tuple(
            (pool.entries[idx].display_name, dist)
            for idx, dist in hits
            if scope_compatible(
                key, pool.entries[idx].name, _scope_distance(key, pool.entries[idx].name)
            )
        )
        if targets:
            return TyposquatHint(
                True, True, targets, "the name is a near-miss of a much more popular package"
            )
        return TyposquatHint(
            False, True, reason="no popular package within the edit-distance threshold"
        )

    async def record_seen(self, info: PackageInfo, weekly_downloads: int | None) -> None:
        """A package seen by a live report joins the index (keeping popularity a loaded list gave)."""
        self._answers.pop((info.ecosystem, normalise_name(info.ecosystem, info.name)), None)
        await self._store.upsert_names(
            [
                NameEntry(
                    ecosystem=info.ecosystem,
                    name=normalise_name(info.ecosystem, info.name),
                    display_name=info.name,
                    latest_version=info.latest_version,
                    summary=info.description[:500] or None,
                    source="live",
                )
            ]
        )

    async def ingest(
        self,
        ecosystem: Ecosystem,
        entries: Iterable[NameEntry],
        *,
        source: str,
        batch_size: int = 20000,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Load `entries` (already normalised) in batches; mark the index loaded; returns the count."""
        total = 0
        batch: list[NameEntry] = []
        for entry in entries:
            batch.append(entry)
            if len(batch) >= batch_size:
                total += await self._store.upsert_names(batch)
                batch = []
                if progress:
                    progress(total)
        if batch:
            total += await self._store.upsert_names(batch)
            if progress:
                progress(total)
        await self._store.save_index_state(
            NameIndexState(ecosystem, source, datetime.fromtimestamp(self._clock(), UTC), total)
        )
        self._forget(ecosystem)
        return total

    def _forget(self, ecosystem: Ecosystem) -> None:
        self._pools.pop(ecosystem, None)
        self._states.pop(ecosystem, None)
        for cached in [k for k in self._answers if k[0] is ecosystem]:
            del self._answers[cached]

    async def follow_ingestions(self, interval_s: float = 1.0) -> None:
        """
        Run until cancelled: every `interval_s`, read the index states (one small query) and drop
        what this process keeps of an ecosystem whose index was loaded again since — by
        `pkgintel ingest names` in another process, or another worker — so a running service
        answers from a new name list within about `interval_s`, not after its caches expire.
        """
        seen = {s.ecosystem: s.loaded_at for s in await self._store.list_index_states()}
        while True:
            await asyncio.sleep(interval_s)
            try:
                states = await self._store.list_index_states()
            except Exception:  # the database is down for a moment: try again next time
                logger.debug("could not read the name index states", exc_info=True)
                continue
            for state in states:
                if seen.get(state.ecosystem) != state.loaded_at:
                    if state.ecosystem in seen:
                        logger.info(
                            "name index of %s reloaded; caches dropped", state.ecosystem.value
                        )
                    seen[state.ecosystem] = state.loaded_at
                    self._forget(state.ecosystem)

    async def warm(self) -> list[Ecosystem]:
        """Load the popular-name pool of every ecosystem whose index is loaded, so the first
        typosquat check or suggestion does not pay for it; returns those ecosystems."""
        warmed = []
        for state in await self._store.list_index_states():
            await self._pool(state.ecosystem)
            warmed.append(state.ecosystem)
        return warmed

    async def index_states(self) -> list[NameIndexState]:
        return await self._store.list_index_states()
