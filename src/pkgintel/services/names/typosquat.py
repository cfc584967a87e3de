"""
`TyposquatJudge`: whether a name imitates a much more popular one — the typosquat judgement over the
name index.

Candidates come from five places: variants of the ecosystem's popular names (`domain.names.typosquat`,
against the pool of `names.pools`), files users type as a package name, module names a project
installs, names of the whole index outside the pool (`names.wide`), and brands of the other
ecosystem's popular names. Each is judged by `names.judgement`; the hint's reason sums them up.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rapidfuzz import fuzz

from pkgintel.domain.names.affixes import ecosystem_bases
from pkgintel.domain.names.brands import BrandVariant
from pkgintel.domain.names.edits import skeleton
from pkgintel.domain.names.rules import NameEntry, normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.import_names import ImportName, provided_as
from pkgintel.scoring.typosquat import Popularity, young
from pkgintel.scoring.verdicts import established
from pkgintel.services.names.first_asked import FirstAsked
from pkgintel.services.names.hints import TyposquatHint
from pkgintel.services.names.index import NameIndex
from pkgintel.services.names.judgement import (
    install_confusions,
    judge_brand,
    judge_entry,
    judge_variant,
    slopsquat,
    with_slop,
)
from pkgintel.services.names.pools import HINT_ENTRIES, PopularPool, PopularPools
from pkgintel.services.names.states import IndexStates
from pkgintel.services.names.wide import prefetch_wide, wide_variants
from pkgintel.storage.base import NameStore


class TyposquatJudge:
    """See the module docstring."""

    def __init__(
        self,
        store: NameStore,
        states: IndexStates,
        pools: PopularPools,
        index: NameIndex,
        first_asked: FirstAsked | None = None,
    ) -> None:
        self._first_asked = first_asked if first_asked is not None else FirstAsked()
        self._store = store
        self._states = states
        self._pools = pools
        self._index = index

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
        `names.pools.POPULAR_POOL` most popular names), and whether that makes it a suspect
        (`scoring.typosquat`): the target must be far more popular (popularity gap), and `name`
        must not be established (`scoring.verdicts.established`, from its name-index `entry` —
        looked up when not given, unless `lookup` is False because the caller knows there is none —
        and the registry facts a report passes). A name publicly reported as invented by language
        models (`knowledge.slopsquats`), or first asked for by our callers while it did not exist
        (`names.first_asked`, the usage log), that is registered is a suspect whatever its
        popularity (a slopsquat, with the evidence and the first release date when known).

        `status` is `unavailable` (and `checked` False) when the ecosystem has no popularity data
        loaded: which of two similar names is the original cannot then be told. `use_established`
        False skips the established-package rule (the benchmark uses it to measure the name model
        and the popularity gap on their own). Variants are computed once per name and pool load.
        """
        key = normalise_name(ecosystem, name)
        pool = await self._pools.get(ecosystem)
        if entry is None and lookup:
            entry = (await self._index.exists(ecosystem, name, suggestions=False)).entry
        state = await self._states.get(ecosystem)
        asked = (
            await self._first_asked.get(ecosystem.value, key)
            if entry is not None or first_release is not None
            else None
        )
        slop = slopsquat(ecosystem, name, entry, state, first_release, asked)
        if not len(pool.names) or pool.variants is None:
            reason = (
                self._states.not_loaded(ecosystem)
                if state is None
                else f"the {ecosystem.value} name index holds no popularity data (downloads or "
                "rank), so which of two similar names is the original cannot be told"
            )
            return with_slop(
                TyposquatHint(False, False, reason=reason, status="unavailable", index=state),
                slop,
            )
        variants = pool.variants_of(key)
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
            judge_variant(pool, v, suspect_pop, why_established, listed=listed, is_young=is_young)
            for v in variants
        )
        matches += install_confusions(ecosystem, key, why_established)
        for module, known in self._import_names(ecosystem, key):
            found = await self._entry_of(ecosystem, pool, known.project)
            if found is None:
                continue
            target_entry, position = found
            matches += (
                judge_entry(
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
            wide = await wide_variants(self._store, ecosystem, pool, key)
            matches += tuple(
                judge_entry(
                    pool,
                    target,
                    pool.limit,
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
                    + f", a name outside the {pool.limit:,} most popular",
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
                judge_brand(
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
        return with_slop(hint, slop)

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
        self, ecosystem: Ecosystem, pool: PopularPool, name: str
    ) -> tuple[NameEntry, int] | None:
        """The index entry of `name` and its place among the popular names: from the pool, else
        from the store with place `pool.limit` (outside); None when the index lacks it."""
        key = normalise_name(ecosystem, name)
        position = pool.variants.position(key) if pool.variants is not None else None
        if position is not None:
            return pool.entries[position], position
        entry = await self._store.get_name(ecosystem, key)
        return None if entry is None else (entry, pool.limit)

    @staticmethod
    def _brand_variants(pool: PopularPool, key: str) -> tuple[BrandVariant, ...]:
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
        self, ecosystem: Ecosystem, pool: PopularPool, brands: list[str]
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

    async def prefetch_wide(
        self, ecosystem: Ecosystem, items: Sequence[tuple[str, NameEntry | None]]
    ) -> int:
        """See `names.wide.prefetch_wide`: the whole-index probe of many names with one query."""
        pool = await self._pools.get(ecosystem)
        return await prefetch_wide(self._store, ecosystem, pool, items)
