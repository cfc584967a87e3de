"""
`PopularPools`: the popular names of each ecosystem held in memory, with the indexes the typosquat
judgement and the did-you-mean suggestions search, and the answers cached on them.

A pool holds the `POPULAR_POOL` most popular names of one ecosystem (`PopularPool`), the brands of the
other ecosystem's `BRAND_TOP` most popular names (`CROSS_ECOSYSTEM`), the names with capitals, the
common scopes, and a filter of every key of the whole index. `get(ecosystem)` loads it once per
ecosystem at a time; a pool past `POOL_TTL_S` keeps answering while one background load replaces it;
`forget(ecosystem)` drops it (and the pools that borrow its brands) when the index is loaded again,
and a load begun before is then not kept.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from pkgintel.domain.names.brands import BrandIndex, BrandVariant
from pkgintel.domain.names.key_filter import KeyFilter
from pkgintel.domain.names.near import NamePool
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.names.scoped_parts import ScopedParts
from pkgintel.domain.names.typosquat import Variant, VariantIndex
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names.states import IndexStates
from pkgintel.storage.base import NameStore

logger = logging.getLogger(__name__)
POPULAR_POOL = 20000
"""How many of the most popular names are kept in memory per ecosystem for suggestions."""
BRAND_TOP = 5000
"""How many of the other ecosystem's most popular names lend their brand (`cross_ecosystem`)."""
CROSS_ECOSYSTEM: dict[Ecosystem, Ecosystem] = {
    Ecosystem.NPM: Ecosystem.PYPI,
    Ecosystem.PYPI: Ecosystem.NPM,
}
"""Ecosystems whose famous names are borrowed by squats in the other (the 2017 npm campaign's
`opencv.js`, `node-openssl`): npm and PyPI, the two whose name lists carry popularity."""
WIDE_FLOOR = 1000
"""A name outside the popular pool is a typosquat target (`one_edit_keys` probes of the whole
index) only with at least this many downloads a month: a package in real use."""
SCOPE_MIN_NAMES = 3
"""A scope counts as common (`scope_keys`) when at least this many popular names carry it."""
SCOPE_LIMIT = 500
MIXED_CASE_LIMIT = 10000
"""How many names with capitals (npm's legacy names) are kept per pool for case twins."""
POOL_TTL_S = 600.0
HINT_ENTRIES = 20000
"""Typosquat hints kept per ecosystem pool (dropped with the pool when it is reloaded)."""


@dataclass(slots=True)
class PopularPool:
    """The popular names of one ecosystem as loaded at `loaded_at`, with the variants found on them."""

    loaded_at: float
    entries: list[NameEntry]
    names: NamePool
    hints: OrderedDict[str, tuple[Variant, ...]]
    popularity: dict[str, int | None] = field(default_factory=dict)
    """Display name → monthly downloads, for the popularity-gap rule."""
    variants: VariantIndex | None = None
    ranked_count: int = 0
    """How many pool names carry a registry rank (PyPI: the top-15,000 list)."""
    brands: BrandIndex | None = None
    """Brands of the other ecosystem's `BRAND_TOP` most popular names (`CROSS_ECOSYSTEM`)."""
    brand_entries: list[NameEntry] = field(default_factory=list)
    brand_hints: OrderedDict[str, tuple[BrandVariant, ...]] = field(default_factory=OrderedDict)
    brand_local: dict[str, NameEntry | None] = field(default_factory=dict)
    mixed_case: dict[str, NameEntry] = field(default_factory=dict)
    """Lower-cased key → entry of each name with capitals and downloads (npm's legacy names)."""
    wide_hints: OrderedDict[str, tuple[tuple[NameEntry, str, int, bool], ...]] = field(
        default_factory=OrderedDict
    )
    """Key → (target, technique, edits, whether users reach it by a slip) found in the whole index
    outside the pool (`names.wide.wide_variants`)."""
    scopes: tuple[str, ...] = ()
    """Scopes carried by at least `SCOPE_MIN_NAMES` popular names, most common first (not
    `@types`, whose packages are named after the real, unscoped one)."""
    scoped_parts: ScopedParts | None = None
    """Which scopes publish each package part, over the names with at least `WIDE_FLOOR` downloads
    a month (`domain.names.scoped_parts`): an unscoped name is probed as that part under any scope."""
    targets: KeyFilter | None = None
    """Every key of the whole index as loaded with the pool (`domain.names.key_filter`): the whole-index
    probe asks the store only about spellings that pass. A name the index learns later (a report's
    live sighting) counts from the next load, within `POOL_TTL_S`."""
    index_loaded_at: datetime | None = None
    """When the name index the pool was built from was loaded: a reload of the pool over the same
    index keeps `targets` and adds the live sightings to it (`PopularPools._key_filter`)."""
    limit: int = POPULAR_POOL
    """How many popular names were asked for (`POPULAR_POOL` at load): a target at this place or
    beyond is outside the pool."""

    def variants_of(self, key: str) -> tuple[Variant, ...]:
        """The variants of popular names `key` is (`domain.names.typosquat`), computed once per pool."""
        variants = self.hints.get(key)
        if variants is None:
            found = self.variants.variants(key) if self.variants is not None else []
            variants = tuple(found) if len(key) >= 2 else ()
            self.hints[key] = variants
            if len(self.hints) > HINT_ENTRIES:
                self.hints.popitem(last=False)
        return variants


def indexed_pool(
    names: list[str], foreign: list[str]
) -> tuple[NamePool, VariantIndex, BrandIndex | None]:
    """A `NamePool` with the segment indexes `typosquat` and `suggest` use (k = 1 and 2) built,
    the typosquat variant index over it, and the brand index of the other ecosystem's popular
    `foreign` names (None when there are none)."""
    pool = NamePool(names)
    pool.prepare(1, 2)
    brands = BrandIndex(foreign, names) if foreign else None
    return pool, VariantIndex(names, pool), brands


def common_scopes(names: Iterable[str]) -> tuple[str, ...]:
    """See `PopularPool.scopes`."""
    counts: dict[str, int] = {}
    for name in names:
        if name.startswith("@") and "/" in name:
            scope = name.partition("/")[0]
            counts[scope] = counts.get(scope, 0) + 1
    common = [s for s, n in counts.items() if n >= SCOPE_MIN_NAMES and s != "@types"]
    common.sort(key=lambda s: -counts[s])
    return tuple(common[:SCOPE_LIMIT])


class PopularPools:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(
        self, store: NameStore, states: IndexStates, *, clock: Callable[[], float] = time.time
    ) -> None:
        self._store = store
        self._states = states
        self._clock = clock
        self._pools: dict[Ecosystem, PopularPool] = {}
        self._pool_locks: dict[Ecosystem, asyncio.Lock] = {}
        self._refreshing: dict[Ecosystem, asyncio.Task[None]] = {}
        # Bumped by `forget`: a pool load that began before is not kept.
        self._generation: dict[Ecosystem, int] = {}

    def _fresh(self, ecosystem: Ecosystem) -> PopularPool | None:
        cached = self._pools.get(ecosystem)
        if cached is not None and self._clock() - cached.loaded_at < POOL_TTL_S:
            return cached
        return None

    async def get(self, ecosystem: Ecosystem) -> PopularPool:
        """
        The popular-name pool; one load per ecosystem at a time (concurrent callers wait for it).
        A pool past `POOL_TTL_S` keeps answering while one background load replaces it (a load
        takes ~2 s for npm); a pool dropped by `forget` (the index was loaded again) is not kept.
        """
        pool = self._fresh(ecosystem)
        if pool is not None:
            return pool
        stale = self._pools.get(ecosystem)
        if stale is not None:
            task = self._refreshing.get(ecosystem)
            if task is None or task.done():
                self._refreshing[ecosystem] = asyncio.create_task(self._refresh(ecosystem))
            return stale
        return await self.load(ecosystem)

    async def _refresh(self, ecosystem: Ecosystem) -> None:
        try:
            await self.load(ecosystem)
        except Exception:  # the stale pool keeps answering; the next call tries again
            logger.warning("reloading the %s name pool failed", ecosystem.value, exc_info=True)

    async def load(self, ecosystem: Ecosystem) -> PopularPool:
        """Load the pool now (unless a fresh one is kept); one load per ecosystem at a time."""
        async with self._pool_locks.setdefault(ecosystem, asyncio.Lock()):
            pool = self._fresh(ecosystem)
            if pool is not None:
                return pool
            generation = self._generation.get(ecosystem, 0)
            limit = POPULAR_POOL
            entries = await self._store.list_popular_names(ecosystem, limit)
            other = CROSS_ECOSYSTEM.get(ecosystem)
            foreign = (
                await self._store.list_popular_names(other, BRAND_TOP)
                if other is not None and entries and await self._states.get(other) is not None
                else []
            )
            mixed = (
                await self._store.list_mixed_case_names(ecosystem, MIXED_CASE_LIMIT)
                if entries
                else []
            )
            # Read afresh, not from `IndexStates`' few-second cache: the key filter is kept only
            # when this is still the index it was built from.
            state = await self._store.get_index_state(ecosystem)
            index_loaded_at = state.loaded_at if state is not None else None
            # Indexing 20,000 names takes ~200 ms of CPU: done in a thread, off the event loop.
            names, variants, brands = await asyncio.to_thread(
                indexed_pool, [e.name for e in entries], [e.name for e in foreign]
            )
            targets = await self._key_filter(ecosystem, index_loaded_at, bool(entries))
            scoped_parts = None
            if entries and ecosystem is Ecosystem.NPM:
                used = await self._store.list_names_with_downloads(ecosystem, WIDE_FLOOR)
                scoped_parts = await asyncio.to_thread(ScopedParts, used)
            pool = PopularPool(
                self._clock(),
                entries,
                names,
                OrderedDict(),
                {e.display_name: e.monthly_downloads for e in entries},
                variants,
                sum(1 for e in entries if e.popularity_rank is not None),
                brands,
                foreign,
                mixed_case={e.name.lower(): e for e in mixed},
                scopes=common_scopes(e.name for e in entries),
                targets=targets,
                scoped_parts=scoped_parts,
                index_loaded_at=index_loaded_at,
                limit=limit,
            )
            if self._generation.get(ecosystem, 0) == generation:
                # Not kept when the index was loaded again meanwhile: the next call reads the new one.
                self._pools[ecosystem] = pool
            return pool

    async def _key_filter(
        self, ecosystem: Ecosystem, index_loaded_at: datetime | None, has_pool: bool
    ) -> KeyFilter:
        """
        The pool's filter of every index key (`PopularPool.targets`). Built from all keys on the
        first load of an index (npm's full registry: ~3.5 M keys, seconds of CPU); a reload of the
        pool over the same index keeps the previous filter and adds only the names live lookups
        have added since (source `live`), so every key of the index still passes it.
        """
        previous = self._pools.get(ecosystem)
        if (
            previous is not None
            and previous.targets is not None
            and index_loaded_at is not None
            and previous.index_loaded_at == index_loaded_at
        ):
            live = await self._store.list_name_keys(ecosystem, live_only=True)
            await asyncio.to_thread(previous.targets.add, live)
            return previous.targets
        all_keys = await self._store.list_name_keys(ecosystem) if has_pool else []
        return await asyncio.to_thread(KeyFilter, all_keys)

    def kept(self, ecosystem: Ecosystem) -> PopularPool | None:
        """The pool kept for `ecosystem`, fresh or not, without loading one."""
        return self._pools.get(ecosystem)

    def clear(self) -> None:
        """Drop every kept pool (the next call loads afresh)."""
        self._pools.clear()

    def forget(self, ecosystem: Ecosystem) -> None:
        """Drop the pool of `ecosystem` and of those borrowing its brands; loads under way are not kept."""
        self._pools.pop(ecosystem, None)
        self._generation[ecosystem] = self._generation.get(ecosystem, 0) + 1
        for borrower, lender in CROSS_ECOSYSTEM.items():
            if lender is ecosystem:  # its brands come from the reloaded index
                self._pools.pop(borrower, None)
                self._generation[borrower] = self._generation.get(borrower, 0) + 1
