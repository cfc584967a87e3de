"""
The whole-index typosquat probe: names outside the popular pool that a name misspells by one edit,
by case alone, or is without a scope.

`wide_variants` probes one key, `prefetch_wide` many keys with one query; both ask the store only
about the spellings the pool's key filter passes, and cache what they find on the pool
(`PopularPool.wide_hints`). `wide_plan` (what to look up) and `wide_found` (how each found name
relates to the key) are the pure halves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import DamerauLevenshtein

from pkgintel.domain.names.edits import classify_edit, digits_only, unpopular_slip
from pkgintel.domain.names.probe_keys import one_edit_keys, scope_keys, scoped_part_distinct
from pkgintel.domain.names.rules import NameEntry, normalise_name
from pkgintel.domain.names.typosquat import SLIP_TECHNIQUES
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.names.pools import HINT_ENTRIES, WIDE_FLOOR, PopularPool
from pkgintel.storage.base import NameStore

SCOPED_FLOOR = 100
"""A package under a common scope (`SCOPE_MIN_NAMES`, such as `@azure`) is the original of its name
without the scope from this many downloads a month: its users drop an organisation's scope by
habit, whatever the package's own traffic. Under `WIDE_FLOOR` only a new name is judged by it."""


@dataclass(frozen=True, slots=True)
class WidePlan:
    """The whole-index probe of one key (`wide_plan`): what to look up and how each
    found name relates to the key."""

    key: str
    lowered: str
    scoped: frozenset[str]
    """Scoped names under a common scope, or the key's first word as a scope (a slip)."""
    rare: frozenset[str]
    """The key as the package part under a scope few popular names carry (not a slip)."""
    probes: frozenset[str]
    """Keys to look up: those the pool's key filter passes."""


async def wide_variants(
    store: NameStore, ecosystem: Ecosystem, pool: PopularPool, key: str
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
    plan = wide_plan(pool, key)
    entries = await store.get_names(ecosystem, sorted(plan.probes)) if plan.probes else {}
    return wide_found(pool, plan, entries)


async def prefetch_wide(
    store: NameStore,
    ecosystem: Ecosystem,
    pool: PopularPool,
    items: Sequence[tuple[str, NameEntry | None]],
) -> int:
    """
    Run the whole-index probe of `wide_variants` for every name of `items` (name, its index
    entry) that will need it — not in the index, not cached, and no variant of a popular name —
    with one query for all of them (`check_bulk`). Returns how many names it probed. Answers
    are the same as one probe each.
    """
    if pool.variants is None:
        return 0
    plans: dict[str, WidePlan] = {}
    for name, entry in items:
        key = normalise_name(ecosystem, name)
        if entry is not None or key in plans or key in pool.wide_hints or len(key) < 2:
            continue
        if pool.variants_of(key):
            continue
        plans[key] = wide_plan(pool, key)
    wanted = sorted(set().union(*(plan.probes for plan in plans.values())))
    entries = await store.get_names(ecosystem, wanted) if wanted else {}
    for plan in plans.values():
        wide_found(pool, plan, entries)
    return len(plans)


def wide_plan(pool: PopularPool, key: str) -> WidePlan:
    """What to look up for `key` and how each found name relates to it."""
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
    return WidePlan(key, lowered, frozenset(scoped), frozenset(rare), frozenset(probes))


def wide_found(
    pool: PopularPool, plan: WidePlan, entries: Mapping[str, NameEntry]
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
