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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from rapidfuzz import fuzz
from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.key_filter import KeyFilter
from pkgintel.domain.names.near import NamePool, close_matches
from pkgintel.domain.names.rules import (
    SNAPSHOT_ROW_SOURCE,
    NameEntry,
    NameIndexState,
    normalise_name,
)
from pkgintel.domain.names.scoped_parts import ScopedParts
from pkgintel.domain.names.typosquat import (
    SLIP_TECHNIQUES,
    BrandIndex,
    BrandVariant,
    Variant,
    VariantIndex,
    classify_edit,
    digits_only,
    ecosystem_bases,
    install_confusion,
    one_edit_keys,
    scope_keys,
    scoped_part_distinct,
    skeleton,
    unpopular_slip,
)
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.knowledge.import_names import ImportName, provided_as
from pkgintel.knowledge.install_confusion import install_files
from pkgintel.knowledge.slopsquats import HallucinatedName, hallucinated
from pkgintel.scoring.typosquat import (
    ESTABLISHED_GAP,
    Gap,
    Popularity,
    popularity_gap,
    suspected_by,
    young,
)
from pkgintel.scoring.verdicts import established
from pkgintel.storage.base import NameStore

logger = logging.getLogger(__name__)
ANSWER_TTL_S = 60.0
"""How long one process reuses an `exists` answer (ingestion and live sightings clear it sooner)."""
ANSWER_ENTRIES = 50000
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
SCOPED_FLOOR = 100
"""A package under a common scope (`SCOPE_MIN_NAMES`, such as `@azure`) is the original of its name
without the scope from this many downloads a month: its users drop an organisation's scope by
habit, whatever the package's own traffic. Under `WIDE_FLOOR` only a new name is judged by it."""
SCOPE_MIN_NAMES = 3
"""A scope counts as common (`scope_keys`) when at least this many popular names carry it."""
SCOPE_LIMIT = 500
MIXED_CASE_LIMIT = 10000
"""How many names with capitals (npm's legacy names) are kept per pool for case twins."""
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
class TyposquatTarget:
    """A popular name the checked name imitates, with the evidence for and against suspicion."""

    name: str
    technique: str
    """See `domain.names.typosquat` (omission, repetition, transposition, adjacent_key, homoglyph,
    delimiter, insertion, substitution, two_edits, scope_confusion, combosquat, version_suffix)."""
    edit_distance: int
    similarity: float
    """rapidfuzz ratio, 0-100."""
    detail: str
    popularity: str
    """The target's popularity in words (downloads or rank)."""
    monthly_downloads: int | None
    rank: int | None
    popularity_ratio: float | None
    """Target over suspect (downloads, or ranks as a stand-in); None when not measurable."""
    gap_basis: str
    """`downloads`, `rank` or `unknown`."""
    suspected: bool
    why: str
    ecosystem: str | None = None
    """The target's ecosystem when it is another one (`cross_ecosystem`); None: the same."""
    outside_pool: bool = False
    """The target was found in the whole name index, outside the `POPULAR_POOL` popular names."""


@dataclass(frozen=True, slots=True)
class Slopsquat:
    """The name was publicly reported as invented by language models (`knowledge.slopsquats`)."""

    report: HallucinatedName
    registered: bool | None
    """True: the registry (or the name index) has it; None: unknown (no index loaded)."""
    registered_after_report: bool | None
    """From the first release date when known; None when either date is unknown."""


@dataclass(frozen=True, slots=True)
class TyposquatHint:
    """Whether a name looks like a misspelling of a much more popular one."""

    is_suspected: bool
    checked: bool
    targets: tuple[tuple[str, int], ...] = ()
    """(popular name, edit distance) of the targets that make it a suspect."""
    reason: str = ""
    matches: tuple[TyposquatTarget, ...] = ()
    """Every popular name it imitates, suspected or not, with the evidence."""
    suspect_popularity: str | None = None
    status: str = "ok"
    """`ok`, or `unavailable` when no popularity data is loaded for the ecosystem."""
    index: NameIndexState | None = None
    slopsquat: Slopsquat | None = None
    established: str | None = None
    """Why the name is established (and so not a suspect), when it is."""


@dataclass(slots=True)
class _Pool:
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
    outside the pool (`NameService._wide_variants`)."""
    scopes: tuple[str, ...] = ()
    """Scopes carried by at least `SCOPE_MIN_NAMES` popular names, most common first (not
    `@types`, whose packages are named after the real, unscoped one)."""
    scoped_parts: ScopedParts | None = None
    """Which scopes publish each package part, over the names with at least `WIDE_FLOOR` downloads
    a month (`domain.names.scoped_parts`): an unscoped name is probed as that part under any scope."""
    targets: KeyFilter | None = None
    """Every key of the whole index as loaded with the pool (`domain.names.key_filter`): the whole-index
    probe asks the store only about spellings that pass. A name the index learns later (a report's
    live sighting) counts from the next load, within `_POOL_TTL_S`."""
    index_loaded_at: datetime | None = None
    """When the name index the pool was built from was loaded: a reload of the pool over the same
    index keeps `targets` and adds the live sightings to it (`NameService._key_filter`)."""


@dataclass(frozen=True, slots=True)
class _WidePlan:
    """The whole-index probe of one key (`NameService._wide_plan`): what to look up and how each
    found name relates to the key."""

    key: str
    lowered: str
    scoped: frozenset[str]
    """Scoped names under a common scope, or the key's first word as a scope (a slip)."""
    rare: frozenset[str]
    """The key as the package part under a scope few popular names carry (not a slip)."""
    probes: frozenset[str]
    """Keys to look up: those the pool's key filter passes."""


def _indexed_pool(
    names: list[str], foreign: list[str]
) -> tuple[NamePool, VariantIndex, BrandIndex | None]:
    """A `NamePool` with the segment indexes `typosquat` and `suggest` use (k = 1 and 2) built,
    the typosquat variant index over it, and the brand index of the other ecosystem's popular
    `foreign` names (None when there are none)."""
    pool = NamePool(names)
    pool.prepare(1, 2)
    brands = BrandIndex(foreign, names) if foreign else None
    return pool, VariantIndex(names, pool), brands


def _common_scopes(names: Iterable[str]) -> tuple[str, ...]:
    """See `_Pool.scopes`."""
    counts: dict[str, int] = {}
    for name in names:
        if name.startswith("@") and "/" in name:
            scope = name.partition("/")[0]
            counts[scope] = counts.get(scope, 0) + 1
    common = [s for s, n in counts.items() if n >= SCOPE_MIN_NAMES and s != "@types"]
    common.sort(key=lambda s: -counts[s])
    return tuple(common[:SCOPE_LIMIT])


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
        self._refreshing: dict[Ecosystem, asyncio.Task[None]] = {}
        # Bumped by `_forget`: a pool load that began before is not kept.
        self._generation: dict[Ecosystem, int] = {}
        self._states: dict[Ecosystem, tuple[float, NameIndexState | None]] = {}
        self._ingesting: dict[Ecosystem, str] = {}
        """Ecosystem → source of a list this process is loading now (answers say so)."""
        # (when, answer, whether an absent name's suggestions were looked for)
        self._answers: OrderedDict[tuple[Ecosystem, str], tuple[float, ExistsAnswer, bool]] = (
            OrderedDict()
        )

    async def exists(
        self, ecosystem: Ecosystem, name: str, *, suggestions: bool = True
    ) -> ExistsAnswer:
        """
        Look the name up in the index. See the module docstring for the `None` case.

        Answers are reused by this process for up to `ANSWER_TTL_S` seconds (popular names are asked
        for constantly); an ingestion or a live sighting in this process clears them at once.
        `suggestions` False is for callers that do not show the "did you mean" names of an absent
        name (a range scan of the index, ~3 ms): such an answer has none until a caller that shows
        them asks.
        """
        key = normalise_name(ecosystem, name)
        now = self._clock()
        cached = self._answers.get((ecosystem, key))
        if cached is not None and now - cached[0] < ANSWER_TTL_S and (cached[2] or not suggestions):
            self._answers.move_to_end((ecosystem, key))
            answer = cached[1]
            return answer if answer.package == name else _renamed(answer, name)
        answer = await self._lookup(ecosystem, name, key, suggestions=suggestions)
        self._answers[(ecosystem, key)] = (now, answer, suggestions or answer.exists is not False)
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

    async def _lookup(
        self, ecosystem: Ecosystem, name: str, key: str, *, suggestions: bool = True
    ) -> ExistsAnswer:
        entry = await self._store.get_name(ecosystem, key)
        state = await self.index_state(ecosystem)
        if entry is not None:
            how = {
                "ingest": "the loaded name index",
                SNAPSHOT_ROW_SOURCE: "the popularity snapshot shipped with pkgintel",
            }.get(entry.source, "a live registry lookup")
            return ExistsAnswer(ecosystem, name, key, True, f"found in {how}", entry, state)
        if state is not None and state.partial:
            similar = await self.suggest(ecosystem, name) if suggestions else []
            return ExistsAnswer(
                ecosystem,
                name,
                key,
                None,
                f"not among the {state.names_count:,} most popular {ecosystem.value} names of the "
                f"popularity snapshot ({state.source}), which is all the name index holds yet: "
                "absence proves nothing; use "
                f"/api/check/{ecosystem.value}/... for a live answer",
                None,
                state,
                tuple(similar),
            )
        if state is None:
            return ExistsAnswer(
                ecosystem,
                name,
                key,
                None,
                f"{self._not_loaded(ecosystem)}, so absence proves nothing; "
                f"use /api/check/{ecosystem.value}/... for a live answer",
                None,
                None,
            )
        similar = await self.suggest(ecosystem, name) if suggestions else []
        return ExistsAnswer(
            ecosystem,
            name,
            key,
            False,
            f"not in the {ecosystem.value} name index loaded {state.loaded_at.date().isoformat()} "
            f"({state.names_count:,} names); a package published since may be missing",
            None,
            state,
            tuple(similar),
        )

    def _not_loaded(self, ecosystem: Ecosystem) -> str:
        """Why there is no index: none loaded, or one being loaded by this process now."""
        loading = self._ingesting.get(ecosystem)
        if loading is not None:
            return (
                f"the {ecosystem.value} name index is being loaded ({loading}); ask again shortly"
            )
        return f"no {ecosystem.value} name index is loaded"

    def _fresh_pool(self, ecosystem: Ecosystem) -> _Pool | None:
        cached = self._pools.get(ecosystem)
        if cached is not None and self._clock() - cached.loaded_at < _POOL_TTL_S:
            return cached
        return None

    async def _pool(self, ecosystem: Ecosystem) -> _Pool:
        """
        The popular-name pool; one load per ecosystem at a time (concurrent callers wait for it).
        A pool past `_POOL_TTL_S` keeps answering while one background load replaces it (a load
        takes ~2 s for npm); a pool dropped by `_forget` (the index was loaded again) is not kept.
        """
        pool = self._fresh_pool(ecosystem)
        if pool is not None:
            return pool
        stale = self._pools.get(ecosystem)
        if stale is not None:
            task = self._refreshing.get(ecosystem)
            if task is None or task.done():
                self._refreshing[ecosystem] = asyncio.create_task(self._refresh(ecosystem))
            return stale
        return await self._load_pool(ecosystem)

    async def _refresh(self, ecosystem: Ecosystem) -> None:
        try:
            await self._load_pool(ecosystem)
        except Exception:  # the stale pool keeps answering; the next call tries again
            logger.warning("reloading the %s name pool failed", ecosystem.value, exc_info=True)

    async def _load_pool(self, ecosystem: Ecosystem) -> _Pool:
        async with self._pool_locks.setdefault(ecosystem, asyncio.Lock()):
            pool = self._fresh_pool(ecosystem)
            if pool is not None:
                return pool
            generation = self._generation.get(ecosystem, 0)
            entries = await self._store.list_popular_names(ecosystem, POPULAR_POOL)
            other = CROSS_ECOSYSTEM.get(ecosystem)
            foreign = (
                await self._store.list_popular_names(other, BRAND_TOP)
                if other is not None and entries and await self.index_state(other) is not None
                else []
            )
            mixed = (
                await self._store.list_mixed_case_names(ecosystem, MIXED_CASE_LIMIT)
                if entries
                else []
            )
            # Read afresh, not from `index_state`'s few-second cache: the key filter is kept only
            # when this is still the index it was built from.
            state = await self._store.get_index_state(ecosystem)
            index_loaded_at = state.loaded_at if state is not None else None
            # Indexing 20,000 names takes ~200 ms of CPU: done in a thread, off the event loop.
            names, variants, brands = await asyncio.to_thread(
                _indexed_pool, [e.name for e in entries], [e.name for e in foreign]
            )
            targets = await self._key_filter(ecosystem, index_loaded_at, bool(entries))
            scoped_parts = None
            if entries and ecosystem is Ecosystem.NPM:
                used = await self._store.list_names_with_downloads(ecosystem, WIDE_FLOOR)
                scoped_parts = await asyncio.to_thread(ScopedParts, used)
            pool = _Pool(
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
                scopes=_common_scopes(e.name for e in entries),
                targets=targets,
                scoped_parts=scoped_parts,
                index_loaded_at=index_loaded_at,
            )
            if self._generation.get(ecosystem, 0) == generation:
                # Not kept when the index was loaded again meanwhile: the next call reads the new one.
                self._pools[ecosystem] = pool
            return pool

    async def _key_filter(
        self, ecosystem: Ecosystem, index_loaded_at: datetime | None, has_pool: bool
    ) -> KeyFilter:
        """
        The pool's filter of every index key (`_Pool.targets`). Built from all keys on the first
        load of an index (npm's full registry: ~3.5 M keys, seconds of CPU); a reload of the pool
        over the same index keeps the previous filter and adds only the names live lookups have
        added since (source `live`), so every key of the index still passes it.
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
        first_release: datetime | None = None,
        lookup: bool = True,
        use_established: bool = True,
    ) -> TyposquatHint:
        """
        Which popular names of the ecosystem `name` imitates (`domain.names.typosquat`, against the
        `POPULAR_POOL` most popular names), and whether that makes it a suspect
        (`scoring.typosquat`): the target must be far more popular (popularity gap), and `name`
        must not be established (`scoring.verdicts.established`, from its name-index `entry` —
        looked up when not given, unless `lookup` is False because the caller knows there is none —
        and the registry facts a report passes). A name publicly reported as invented by language
        models (`knowledge.slopsquats`) that is registered is a suspect whatever its popularity.

        `status` is `unavailable` (and `checked` False) when the ecosystem has no popularity data
        loaded: which of two similar names is the original cannot then be told. `use_established`
        False skips the established-package rule (the benchmark uses it to measure the name model
        and the popularity gap on their own). Variants are computed once per name and pool load.
        """
        key = normalise_name(ecosystem, name)
        pool = await self._pool(ecosystem)
        if entry is None and lookup:
            entry = (await self.exists(ecosystem, name, suggestions=False)).entry
        state = await self.index_state(ecosystem)
        slop = self._slopsquat(ecosystem, name, entry, state, first_release)
        if not len(pool.names) or pool.variants is None:
            reason = (
                self._not_loaded(ecosystem)
                if state is None
                else f"the {ecosystem.value} name index holds no popularity data (downloads or "
                "rank), so which of two similar names is the original cannot be told"
            )
            return self._with_slop(
                TyposquatHint(False, False, reason=reason, status="unavailable", index=state),
                slop,
            )
        variants = self._pool_variants(pool, key)
        monthly = entry.monthly_downloads if entry is not None else None
        if monthly is None and weekly_downloads is not None:
            monthly = round(weekly_downloads * 30.44 / 7)
        suspect_pop: Popularity | None = None
        if entry is not None or weekly_downloads is not None:
            suspect_pop = Popularity(
                monthly,
                entry.popularity_rank if entry is not None else None,
                pool.ranked_count or None,
            )
        described = (
            suspect_pop.describe()
            if suspect_pop is not None
            else "not among the popular names of the shipped snapshot, which is all the name "
            "index holds yet: popularity unknown"
            if state is not None and state.partial
            else "not in the name index: popularity unknown"
        )
        why_established = (
            established(
                monthly_downloads=entry.monthly_downloads if entry is not None else None,
                popularity_rank=entry.popularity_rank if entry is not None else None,
                weekly_downloads=weekly_downloads,
                release_count=release_count,
                first_release_days=first_release_days,
            )
            if use_established
            else None
        )
        is_young = young(release_count, first_release_days)
        # What is known of the name beyond its shape: a row of a loaded list (its popularity, or
        # its absence from the ranking) or the registry's facts in a report. A live sighting alone
        # says it exists, nothing more.
        listed = (entry is not None and entry.listed) or any(
            fact is not None for fact in (weekly_downloads, release_count, first_release_days)
        )
        matches = tuple(
            self._judge(pool, v, suspect_pop, why_established, listed=listed, is_young=is_young)
            for v in variants
        )
        matches += self._install_confusions(ecosystem, key, why_established)
        for module, known in self._import_names(ecosystem, key):
            found = await self._entry_of(ecosystem, pool, known.project)
            if found is None:
                continue
            target_entry, position = found
            matches += (
                self._judge_entry(
                    pool,
                    target_entry,
                    position,
                    "import_name",
                    int(module != skeleton(key)),
                    round(float(fuzz.ratio(key, target_entry.name)), 1),
                    f"the module name {known.module!r}, which {known.project} installs "
                    f"({known.source})",
                    suspect_pop,
                    why_established,
                    listed=listed,
                    is_young=is_young,
                ),
            )
        if not any(m.suspected for m in matches) and why_established is None:
            wide = await self._wide_variants(ecosystem, pool, key)
            matches += tuple(
                self._judge_entry(
                    pool,
                    target,
                    POPULAR_POOL,
                    technique,
                    distance,
                    round(float(fuzz.ratio(key, target.name)), 1),
                    (
                        "the same name in another case"
                        if technique == "case_twin"
                        else f"{target.display_name} without its scope"
                        if technique == "scope_confusion"
                        else f"{distance} edit{'s' if distance > 1 else ''} from "
                        f"{target.display_name}"
                    )
                    + f", a name outside the {POPULAR_POOL:,} most popular",
                    suspect_pop,
                    why_established,
                    listed=listed,
                    is_young=is_young,
                    typo_traffic=slip,
                )
                for target, technique, distance, slip in wide
            )
        if not any(m.suspected for m in matches):
            borrowed = self._brand_variants(pool, key)
            local = await self._brand_counterparts(ecosystem, pool, [b.brand for b in borrowed])
            matches += tuple(
                self._judge_brand(
                    pool,
                    b,
                    local.get(b.brand) if b.brand != skeleton(key) else None,
                    suspect_pop,
                    why_established,
                    listed=listed,
                    is_young=is_young,
                )
                for b in borrowed
            )
        suspects = [m for m in matches if m.suspected]
        if suspects:
            reason = "imitates " + "; ".join(
                f"{m.name} ({m.technique}, {m.why})" for m in suspects[:3]
            )
        elif why_established is not None and matches:
            reason = f"an established package ({why_established}), not a suspect"
        elif matches:
            reason = "resembles popular names, but none is far more popular than this one"
        elif len(key) < 4:
            reason = (
                "no popular name it imitates (names under 4 characters are compared by "
                "separators and look-alike characters only)"
            )
        else:
            reason = "no popular name it imitates"
        hint = TyposquatHint(
            bool(suspects),
            True,
            tuple((m.name, m.edit_distance) for m in suspects),
            reason,
            matches,
            described,
            "ok",
            state,
            None,
            why_established,
        )
        return self._with_slop(hint, slop)

    @classmethod
    def _judge(
        cls,
        pool: _Pool,
        v: Variant,
        suspect: Popularity | None,
        why_established: str | None,
        *,
        listed: bool,
        is_young: bool | None,
    ) -> TyposquatTarget:
        return cls._judge_entry(
            pool,
            pool.entries[v.index],
            v.index,
            v.technique,
            v.edit_distance,
            v.similarity,
            v.detail,
            suspect,
            why_established,
            listed=listed,
            is_young=is_young,
            typo_traffic=v.typo_traffic,
        )

    @staticmethod
    def _judge_entry(
        pool: _Pool,
        target_entry: NameEntry,
        position: int,
        technique: str,
        edit_distance: int,
        similarity: float,
        detail: str,
        suspect: Popularity | None,
        why_established: str | None,
        *,
        listed: bool,
        is_young: bool | None,
        typo_traffic: bool = True,
    ) -> TyposquatTarget:
        """One target judged by the popularity gap (`scoring.typosquat.suspected_by`);
        `position` is its place among the popular names (`POPULAR_POOL` or more: outside);
        `typo_traffic` as `domain.names.typosquat.Variant.typo_traffic`."""
        target = Popularity(
            target_entry.monthly_downloads, target_entry.popularity_rank, pool.ranked_count or None
        )
        gap = popularity_gap(target, suspect)
        firm = why_established is not None
        suspected = suspected_by(
            technique,
            position,
            gap,
            established=firm,
            listed=listed,
            is_young=is_young,
            typo_traffic=typo_traffic,
        )
        if firm and not typo_traffic:
            why = (
                f"not a suspect: established ({why_established}), and nobody reaches this "
                "name by a slip when meaning the target, so its downloads are its own"
            )
        elif not typo_traffic and not suspected and listed and not is_young:
            why = (
                "not a suspect: nobody reaches this name by a slip when meaning the target, so "
                "its listed downloads are its own, and nothing shows it young with few releases"
            )
        elif firm and suspected:
            why = (
                f"the target is {gap.ratio:,g} times as popular: this name's own traffic "
                f"({why_established}) is what typos of it would draw"
            )
        elif firm:
            why = f"not a suspect: established ({why_established}) and the gap is under " + (
                f"{ESTABLISHED_GAP:,}x" if gap.ratio is not None else "measurable"
            )
        elif gap.holds is False:
            why = (
                f"not a suspect: the target is only {gap.ratio:g} times as popular"
                if gap.ratio is not None
                else "not a suspect: the target is not far more popular"
            )
        elif gap.holds is True:
            unit = "downloads" if gap.basis == "downloads" else "rank (as a stand-in for downloads)"
            why = f"the target is {gap.ratio:,g} times as popular by {unit}"
        elif suspected:
            why = f"target {target.describe()}; this name's popularity is not measurable" + (
                ", and it is young with few releases" if is_young else ""
            )
        elif listed and not is_young:
            why = (
                f"not a suspect: target {target.describe()}, this name {suspect.describe() if suspect else 'listed'}; "
                "the gap is not measurable and nothing shows it young with few releases"
            )
        else:
            why = (
                "not a suspect: an affix variant of a name outside the most popular "
                "(popularity gap not measurable)"
            )
        return TyposquatTarget(
            target_entry.display_name,
            technique,
            edit_distance,
            similarity,
            detail,
            target.describe(),
            target.monthly_downloads,
            target.rank,
            gap.ratio,
            gap.basis,
            suspected,
            why,
            outside_pool=position >= POPULAR_POOL,
        )

    async def _wide_variants(
        self, ecosystem: Ecosystem, pool: _Pool, key: str
    ) -> tuple[tuple[NameEntry, str, int, bool], ...]:
        """
        Names of the whole index, outside the popular pool, that `key` misspells by one edit or
        by case alone (npm's legacy `localforage-memoryStorageDriver`), or that it is without a
        scope, with at least `WIDE_FLOOR` downloads a month: (target, technique, edits, whether a
        slip). The ~77·n keys `one_edit_keys` lists, of which only those the pool's `targets`
        filter passes (the real ones and ~1.4 % of the rest) are looked up, in one query. Cached
        per pool (`prefetch_wide` fills the cache for many names with one query).
        """
        found = pool.wide_hints.get(key)
        if found is not None:
            return found
        plan = self._wide_plan(pool, key)
        entries = await self._store.get_names(ecosystem, sorted(plan.probes)) if plan.probes else {}
        return self._wide_found(pool, plan, entries)

    async def prefetch_wide(
        self, ecosystem: Ecosystem, items: Sequence[tuple[str, NameEntry | None]]
    ) -> int:
        """
        Run the whole-index probe of `_wide_variants` for every name of `items` (name, its index
        entry) that will need it — not in the index, not cached, and no variant of a popular name —
        with one query for all of them (`check_bulk`). Returns how many names it probed. Answers
        are the same as one probe each.
        """
        pool = await self._pool(ecosystem)
        if pool.variants is None:
            return 0
        plans: dict[str, _WidePlan] = {}
        for name, entry in items:
            key = normalise_name(ecosystem, name)
            if entry is not None or key in plans or key in pool.wide_hints or len(key) < 2:
                continue
            if self._pool_variants(pool, key):
                continue
            plans[key] = self._wide_plan(pool, key)
        wanted = sorted(set().union(*(plan.probes for plan in plans.values())))
        entries = await self._store.get_names(ecosystem, wanted) if wanted else {}
        for plan in plans.values():
            self._wide_found(pool, plan, entries)
        return len(plans)

    @staticmethod
    def _pool_variants(pool: _Pool, key: str) -> tuple[Variant, ...]:
        """The variants of popular names `key` is (`domain.names.typosquat`), computed once per pool."""
        variants = pool.hints.get(key)
        if variants is None:
            found = pool.variants.variants(key) if pool.variants is not None else []
            variants = tuple(found) if len(key) >= 2 else ()
            pool.hints[key] = variants
            if len(pool.hints) > HINT_ENTRIES:
                pool.hints.popitem(last=False)
        return variants

    @staticmethod
    def _wide_plan(pool: _Pool, key: str) -> _WidePlan:
        # npm keys keep their case (legacy `Arm-hanaonazure`); neighbours are probed lower-cased.
        lowered = key.lower()
        scoped = scope_keys(lowered, pool.scopes)
        # The same part under a scope few popular names carry: a slip for nobody (users of such a
        # scope type it), so judged only when the name is new or young (`Variant.typo_traffic`).
        rare: set[str] = set()
        if pool.scoped_parts is not None and scoped_part_distinct(lowered):
            rare = set(pool.scoped_parts.names_for(lowered)) - set(scoped)
        probes = one_edit_keys(lowered) | set(scoped) | rare
        if lowered != key:
            probes.add(lowered)
        if pool.targets is not None:
            probes = set(pool.targets.candidates(probes))
        return _WidePlan(key, lowered, frozenset(scoped), frozenset(rare), frozenset(probes))

    @staticmethod
    def _wide_found(
        pool: _Pool, plan: _WidePlan, entries: Mapping[str, NameEntry]
    ) -> tuple[tuple[NameEntry, str, int, bool], ...]:
        """The targets among `entries` (a lookup covering `plan.probes`), cached for the key."""
        key, lowered = plan.key, plan.lowered
        out: list[tuple[NameEntry, str, int, bool]] = []
        twin = pool.mixed_case.get(lowered)
        if twin is not None and twin.name != key:
            out.append((twin, "case_twin", 0, True))
        for name in sorted(plan.probes):
            entry = entries.get(name)
            if entry is None or name == key:
                continue
            used = (entry.monthly_downloads or 0) >= WIDE_FLOOR
            in_pool = pool.variants is not None and name in pool.variants
            distance = int(DamerauLevenshtein.distance(lowered, name))
            if name in plan.scoped:
                # An organisation's scope carries its reputation (`arm-mixedreality` /
                # `@azure/arm-mixedreality`): its package counts from `SCOPED_FLOOR`, and below
                # `WIDE_FLOOR` judges only new names.
                if (entry.monthly_downloads or 0) >= SCOPED_FLOOR:
                    out.append((entry, "scope_confusion", distance, used))
            elif not used:
                # Popularity low or unknown (PyPI outside its ranking): only a long name one
                # slip-shaped edit away counts, and only when new (`unpopular_slip`).
                technique = unpopular_slip(lowered, name) if distance == 1 else None
                if technique is not None and not in_pool:
                    out.append((entry, technique, 1, False))
            elif name == lowered:
                if not in_pool:  # the pool's own case twin is a `delimiter` variant
                    out.append((entry, "case_twin", 0, True))
            elif name in plan.rare:
                out.append((entry, "scope_confusion", distance, False))
            elif distance == 1:
                if not in_pool:  # one edit from a pool name: the variant model has it
                    technique = classify_edit(lowered, name)
                    # A number changed is a sibling's version (`@unicode/unicode-11.0.0` /
                    # `-17.0.0`, `webpack5-plugin`), not a slip: judged for new names only.
                    slip = technique in SLIP_TECHNIQUES and not digits_only(lowered, name)
                    out.append((entry, technique, 1, slip))
            else:
                out.append((entry, "delimiter_typo", distance, False))
        out.sort(key=lambda item: -(item[0].monthly_downloads or 0))
        found = tuple(out[:5])
        pool.wide_hints[key] = found
        if len(pool.wide_hints) > HINT_ENTRIES:
            pool.wide_hints.popitem(last=False)
        return found

    @staticmethod
    def _import_names(ecosystem: Ecosystem, key: str) -> list[tuple[str, ImportName]]:
        """(module key, entry) for each module name `key` is, with or without an ecosystem affix
        (`python-mysqldb` → `MySQLdb` of mysqlclient); the project itself is left out."""
        out: list[tuple[str, ImportName]] = []
        for i, base in enumerate(ecosystem_bases(key)):
            module = skeleton(base)
            if i and len(module) < 4:  # `py` + `dns`: too short to carry meaning with an affix
                continue
            for known in provided_as(ecosystem, module):
                if normalise_name(ecosystem, known.project) != key:
                    out.append((module, known))
        return out

    async def _entry_of(
        self, ecosystem: Ecosystem, pool: _Pool, name: str
    ) -> tuple[NameEntry, int] | None:
        """The index entry of `name` and its place among the popular names: from the pool, else
        from the store with place `POPULAR_POOL` (outside); None when the index lacks it."""
        key = normalise_name(ecosystem, name)
        position = pool.variants.position(key) if pool.variants is not None else None
        if position is not None:
            return pool.entries[position], position
        entry = await self._store.get_name(ecosystem, key)
        return None if entry is None else (entry, POPULAR_POOL)

    @staticmethod
    def _install_confusions(
        ecosystem: Ecosystem, key: str, why_established: str | None
    ) -> tuple[TyposquatTarget, ...]:
        """Files users type as a package name (`knowledge.install_confusion`) that `key` is or
        misspells. A suspect unless the package is established: no legitimate project needs the
        name of a requirements file."""
        out = []
        for known in install_files(ecosystem):
            distance = install_confusion(key, known.file_name)
            if distance is None:
                continue
            suspected = why_established is None
            what = (
                f"named like the file {known.file_name}"
                if distance == 0
                else f"{distance} edit{'s' if distance > 1 else ''} from the file {known.file_name}"
            )
            out.append(
                TyposquatTarget(
                    known.file_name,
                    "install_confusion",
                    distance,
                    round(float(fuzz.ratio(skeleton(key), skeleton(known.file_name))), 1),
                    f"{what}: a user who meant `{known.meant}` installs this package",
                    "a file, not a package",
                    None,
                    None,
                    None,
                    "not_a_package",
                    suspected,
                    (
                        f"{what}, which users type as a package name when they mean "
                        f"`{known.meant}` ({known.source})"
                        if suspected
                        else f"not a suspect: established ({why_established})"
                    ),
                )
            )
        return tuple(out)

    @staticmethod
    def _brand_variants(pool: _Pool, key: str) -> tuple[BrandVariant, ...]:
        """Cross-ecosystem brands `key` borrows (cached per pool). Looked for only when no popular
        name of its own ecosystem makes it a suspect, which is the stronger evidence."""
        if pool.brands is None:
            return ()
        found = pool.brand_hints.get(key)
        if found is None:
            found = tuple(pool.brands.variants(key))
            pool.brand_hints[key] = found
            if len(pool.brand_hints) > HINT_ENTRIES:
                pool.brand_hints.popitem(last=False)
        return found

    async def _brand_counterparts(
        self, ecosystem: Ecosystem, pool: _Pool, brands: list[str]
    ) -> dict[str, NameEntry | None]:
        """The index entry (or None) of each brand as a name of this ecosystem (npm's own
        `ffmpeg`, outside its popular pool), cached per pool: it is the original the gap is
        measured against."""
        missing = [b for b in brands if b not in pool.brand_local]
        if missing:
            found = await self._store.get_names(ecosystem, missing)
            for b in missing:
                pool.brand_local[b] = found.get(b)
        return {b: pool.brand_local[b] for b in brands}

    @staticmethod
    def _judge_brand(
        pool: _Pool,
        b: BrandVariant,
        local: NameEntry | None,
        suspect: Popularity | None,
        why_established: str | None,
        *,
        listed: bool,
        is_young: bool | None,
    ) -> TyposquatTarget:
        """
        A cross-ecosystem brand. Popularity across registries is not comparable; when the brand is
        also a (less popular) name of this ecosystem (`local`), the gap is measured against that
        name, with the same thresholds as any variant. Otherwise only a name that is not in the
        index, or is young with few releases, and not established, is suspected
        (`scoring.typosquat.suspected_by`).
        """
        entry = pool.brand_entries[b.index]
        target = Popularity(entry.monthly_downloads, entry.popularity_rank, None)
        gap = Gap(None, None, "other_ecosystem")
        here = ""
        if local is not None:
            local_pop = Popularity(
                local.monthly_downloads, local.popularity_rank, pool.ranked_count or None
            )
            measured = popularity_gap(local_pop, suspect)
            if measured.ratio is not None and measured.holds is not None:
                gap = measured
                here = f"; here {local.display_name} has {local_pop.describe()}"
        suspected = suspected_by(
            "cross_ecosystem",
            b.index,
            gap,
            established=why_established is not None,
            listed=listed,
            is_young=is_young,
        )
        # One edit from a foreign brand is weak alone (`tslib` / PyPI's `tblib`): it needs an
        # ecosystem affix around it (`node-opensl`) or a gap measured against the name here.
        weak = b.edit_distance > 0 and not b.affixed and gap.ratio is None
        suspected = suspected and not weak
        where = f"{entry.ecosystem.value}'s {entry.display_name} ({target.describe()}){here}"
        if weak:
            why = (
                f"not a suspect: one edit from the brand {b.brand!r} of {entry.ecosystem.value}'s "
                f"{entry.display_name}, with no ecosystem affix and no measurable gap here"
            )
        elif gap.ratio is not None:
            why = (
                f"borrows the brand {b.brand!r} of {where}, {gap.ratio:,g} times as popular as this "
                "name"
                if suspected
                else f"not a suspect: shares the brand {b.brand!r} of {where}, only "
                f"{gap.ratio:,g} times as popular as this name"
                + (f" (established: {why_established})" if why_established else "")
            )
        elif why_established is not None:
            why = f"not a suspect: established ({why_established})"
        elif suspected:
            why = (
                f"borrows the brand {b.brand!r} of {where}, which is not a popular "
                f"{'package here' if not listed else 'name here'}; this name is "
                + ("young with few releases" if is_young else "not in the name index")
            )
        else:
            why = (
                f"not a suspect: shares the brand {b.brand!r} of {where}, but it is listed "
                "and nothing shows it young with few releases"
            )
        return TyposquatTarget(
            entry.display_name,
            "cross_ecosystem",
            b.edit_distance,
            round(float(fuzz.ratio(b.brand, skeleton(entry.name))), 1),
            b.detail,
            target.describe(),
            target.monthly_downloads,
            target.rank,
            gap.ratio,
            gap.basis,
            suspected,
            why,
            entry.ecosystem.value,
        )

    def _slopsquat(
        self,
        ecosystem: Ecosystem,
        name: str,
        entry: NameEntry | None,
        state: NameIndexState | None,
        first_release: datetime | None,
    ) -> Slopsquat | None:
        report = hallucinated(ecosystem, name)
        if report is None:
            return None
        registered: bool | None
        if entry is not None or first_release is not None:
            registered = True
        elif state is not None and not state.partial:
            registered = False
        else:
            registered = None
        after: bool | None = None
        if first_release is not None and report.reported_in:
            month = first_release.strftime("%Y-%m")
            after = None if month == report.reported_in else month > report.reported_in
        return Slopsquat(report, registered, after)

    @staticmethod
    def _with_slop(hint: TyposquatHint, slop: Slopsquat | None) -> TyposquatHint:
        """A registered name reported as LLM-invented is a suspect whatever its popularity:
        its downloads come from the invented recommendations themselves."""
        if slop is None:
            return hint
        if slop.registered:
            why = (
                f"a name language models were reported to invent ({slop.report.source}), "
                "now registered"
                + (" after the report" if slop.registered_after_report else "")
                + (f"; the real package is {slop.report.meant}" if slop.report.meant else "")
            )
            return replace(hint, is_suspected=True, slopsquat=slop, reason=why)
        return replace(
            hint,
            slopsquat=slop,
            reason=hint.reason
            + (
                "; language models were reported to invent this name and it is not registered"
                if slop.registered is False
                else ""
            ),
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
        over_partial_only: bool = False,
    ) -> int:
        """Load `entries` (already normalised) in batches; mark the index loaded; returns the count.
        `over_partial_only` (the shipped snapshot): the index is not marked as loaded from `source`
        when a complete list was loaded meanwhile (by a job or another process), whose state wins."""
        total = 0
        batch: list[NameEntry] = []
        self._ingesting[ecosystem] = source
        try:
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
        finally:
            self._ingesting.pop(ecosystem, None)
        if over_partial_only:
            now = await self._store.get_index_state(ecosystem)
            if now is not None and not now.partial:
                self._forget(ecosystem)
                return total
        await self._store.save_index_state(
            NameIndexState(ecosystem, source, datetime.fromtimestamp(self._clock(), UTC), total)
        )
        self._forget(ecosystem)
        return total

    def _forget(self, ecosystem: Ecosystem) -> None:
        self._pools.pop(ecosystem, None)
        self._generation[ecosystem] = self._generation.get(ecosystem, 0) + 1
        for borrower, lender in CROSS_ECOSYSTEM.items():
            if lender is ecosystem:  # its brands come from the reloaded index
                self._pools.pop(borrower, None)
                self._generation[borrower] = self._generation.get(borrower, 0) + 1
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
