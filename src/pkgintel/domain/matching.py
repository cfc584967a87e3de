"""
Which advisories affect one version of one package (pure), per the OSV evaluation algorithm.

https://ossf.github.io/osv-schema/#evaluation, applied literally:

- An advisory affects `(ecosystem, name, version)` when any `affected[]` entry for that package
  lists the version in `versions` or includes it in any of its `ranges` (entries and ranges are
  OR-ed). Withdrawn advisories never match.
- A range is evaluated by walking its events sorted by version: `introduced` (inclusive; `"0"`
  is before every version) sets "affected", `fixed` (exclusive) and `last_affected` (inclusive)
  clear it. Several introduced/fixed pairs in one range are therefore several intervals. When a
  range has `limit` events the version must also be below one of them (`*` is infinity).
- Versions compare with the ecosystem's own ordering (`versions.sort_key`) for `ECOSYSTEM`
  ranges, and with SemVer 2.0 precedence for `SEMVER` ranges whatever the ecosystem. Where the
  ecosystem's ordering is a refinement of SemVer (Go's shorthands, Pub and Julia breaking ties
  on build metadata) that ordering is used for SEMVER ranges too: it agrees with SemVer wherever
  SemVer orders two versions, and Julia's database writes bounds that differ only in build
  metadata (`introduced 4.3.1+0, fixed 4.3.1+2`).
- `GIT` ranges are not evaluated (`AffectedRange.unevaluable_reason` says why); the record's
  `versions` list, which OSV requires alongside GIT ranges, still counts.

Decisions the schema leaves open, made here:

- Events at equal versions keep their record order (a stable sort), so `introduced X,
  last_affected X` affects exactly X and `fixed X, introduced X` re-opens at X.
- An `introduced` value that does not parse under the ordering counts as `"0"`, and a `fixed`,
  `last_affected` or `limit` value that does not parse is skipped: a record we cannot read
  precisely errs towards "affected", never towards a silent "not affected".
- A queried version that does not parse sorts before every valid version (as in `sort_key`), so
  only ranges open at `"0"` and exact `versions` entries can match it.
- Explicit `versions` match by the ecosystem's own equality (`versions.equality_key`), never
  by string: PEP 440 for PyPI (`2.0` = `2.0.0`, `1.0alpha1` = `1.0.0a1`), npm's loose reading
  (`v1.2.3` = `=1.2.3` = `1.2.3`), an optional `v` for Go, NuGet's (case, `1.0` = `1.0.0.0`,
  build metadata dropped), and the ordering's equality for every other scheme.

`deduplicate` groups advisories that share an id or alias (union-find over `id` ∪ `aliases`) and
keeps one representative per group (see `representative` for the preference order).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any

from pkgintel.domain.advisories import (
    Advisory,
    Affected,
    AffectedRange,
    RangeType,
    severity_from_osv,
)
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import (
    SCHEME_BY_ECOSYSTEM,
    SEMVER_FAMILY,
    VersionScheme,
    equality_key,
    scheme_sort_key,
    sort_key,
)

__all__ = [
    "affecting",
    "affects",
    "deduplicate",
    "fixed_versions",
    "group_by_alias",
    "range_affects",
    "representative",
    "severity_from_osv",
    "unreadable_bounds",
]

_BEFORE_ALL: tuple[Any, ...] = (-1,)
_INFINITY: tuple[Any, ...] = (2,)

Key = tuple[Any, ...]
# (sorted (key, kind) events, limit keys or None, fixed events as (key, value))
_Plan = tuple[tuple[tuple[Key, str], ...], tuple[Key, ...] | None, tuple[tuple[Key, str], ...]]


def _key_function(range_type: RangeType, ecosystem: Ecosystem) -> Callable[[str], Key]:
    scheme = SCHEME_BY_ECOSYSTEM[ecosystem]
    if range_type is RangeType.SEMVER and scheme not in SEMVER_FAMILY:
        return lambda v: scheme_sort_key(VersionScheme.SEMVER, v)
    return lambda v: sort_key(ecosystem, v)


@lru_cache(maxsize=65536)
def _plan(rng: AffectedRange, ecosystem: Ecosystem) -> _Plan | None:
    """Sorted, parsed events of an evaluable range; None for GIT ranges."""
    if rng.type is RangeType.GIT:
        return None
    key = _key_function(rng.type, ecosystem)
    events: list[tuple[Key, str]] = []
    limits: list[Key] = []
    for kind, value in rng.events:
        if kind == "limit":
            if "*" in value:
                limits.append(_INFINITY)
            elif (k := key(value))[0] == 1:
                limits.append(k)
            continue
        k = key(value)
        if kind == "introduced" and (value == "0" or k[0] != 1):
            events.append((_BEFORE_ALL, kind))  # "0", or unreadable: from the beginning
        elif k[0] == 1:
            events.append((k, kind))
        # an unreadable fixed/last_affected bound is skipped (see module docstring)
    events.sort(key=lambda e: e[0])  # stable: equal versions keep record order
    fixed = tuple(
        (key(value), value) for kind, value in rng.events if kind == "fixed" and key(value)[0] == 1
    )
    # No readable limit (none written, or none parseable) means the implicit "*".
    return tuple(events), (tuple(limits) if limits else None), fixed


def _range_contains(plan: _Plan, version_key: Key) -> bool:
    events, limits, _ = plan
    if limits is not None and not any(version_key < limit for limit in limits):
        return False
    vulnerable = False
    for event_key, kind in events:
        if event_key > version_key:
            break  # later events cannot change the outcome
        if kind == "introduced":
            vulnerable = True
        elif kind == "fixed" or (kind == "last_affected" and version_key > event_key):
            vulnerable = False
    return vulnerable


def range_affects(rng: AffectedRange, ecosystem: Ecosystem, version: str) -> bool:
    """True when `version` lies in `rng` (evaluated for `ecosystem`); False for GIT ranges."""
    plan = _plan(rng, ecosystem)
    if plan is None:
        return False
    return _range_contains(plan, _key_function(rng.type, ecosystem)(version))


def unreadable_bounds(rng: AffectedRange, ecosystem: Ecosystem) -> list[str]:
    """
    The event values of `rng` that do not parse under the ordering used for it in `ecosystem`
    (`introduced: "0"` and `*` limits excepted); empty for GIT ranges. Diagnostics for the
    "unreadable bounds" rule in the module docstring.
    """
    if rng.type is RangeType.GIT:
        return []
    key = _key_function(rng.type, ecosystem)
    return [
        value
        for kind, value in rng.events
        if not (kind == "introduced" and value == "0")
        and not (kind == "limit" and "*" in value)
        and key(value)[0] != 1
    ]


# --------------------------------------------------------------------------------------------
# Explicit versions.


@lru_cache(maxsize=16384)
def _listed(versions: frozenset[str], ecosystem: Ecosystem) -> frozenset[Key]:
    return frozenset(equality_key(ecosystem, v) for v in versions)


def _in_versions(affected: Affected, ecosystem: Ecosystem, version: str) -> bool:
    if not affected.versions:
        return False
    return version in affected.versions or equality_key(ecosystem, version) in _listed(
        affected.versions, ecosystem
    )


# --------------------------------------------------------------------------------------------
# Public API.


def _version_keys(ecosystem: Ecosystem, version: str) -> dict[RangeType, Key]:
    return {
        RangeType.ECOSYSTEM: _key_function(RangeType.ECOSYSTEM, ecosystem)(version),
        RangeType.SEMVER: _key_function(RangeType.SEMVER, ecosystem)(version),
    }


def _entry_affects(
    affected: Affected, ecosystem: Ecosystem, version: str, keys: dict[RangeType, Key]
) -> bool:
    if _in_versions(affected, ecosystem, version):
        return True
    for rng in affected.ranges:
        plan = _plan(rng, ecosystem)
        if plan is not None and _range_contains(plan, keys[rng.type]):
            return True
    return False


def _entries(
    advisory: Advisory, ecosystem: Ecosystem, normalised_name: str | None
) -> Iterable[Affected]:
    for affected in advisory.affected:
        if affected.ecosystem is ecosystem and (
            normalised_name is None or affected.name == normalised_name
        ):
            yield affected


def affects(
    target: Advisory | Affected, ecosystem: Ecosystem, version: str, name: str | None = None
) -> bool:
    """
    True when `target` affects `version` in `ecosystem`.

    For an `Advisory`, only its entries for `ecosystem` (and for package `name`, normalised,
    when given) count, and a withdrawn advisory never affects anything. For an `Affected`, its
    own ecosystem must be `ecosystem` (and its name `name`, when given).
    """
    wanted = normalise_name(ecosystem, name) if name is not None else None
    keys = _version_keys(ecosystem, version)
    if isinstance(target, Affected):
        if target.ecosystem is not ecosystem or (wanted is not None and target.name != wanted):
            return False
        return _entry_affects(target, ecosystem, version, keys)
    if target.is_withdrawn:
        return False
    return any(
        _entry_affects(a, ecosystem, version, keys) for a in _entries(target, ecosystem, wanted)
    )


def affecting(
    advisories: Iterable[Advisory], ecosystem: Ecosystem, name: str, version: str
) -> list[Advisory]:
    """The advisories (in input order) that affect `name`@`version` in `ecosystem`."""
    wanted = normalise_name(ecosystem, name)
    keys = _version_keys(ecosystem, version)
    return [
        adv
        for adv in advisories
        if not adv.is_withdrawn
        and any(
            _entry_affects(a, ecosystem, version, keys) for a in _entries(adv, ecosystem, wanted)
        )
    ]


def fixed_versions(advisory: Advisory, ecosystem: Ecosystem, name: str, version: str) -> list[str]:
    """
    The nearest fixed versions above `version`, for "fixed in": in each range of `name` that
    includes `version`, the lowest `fixed` event above it; de-duplicated, ordered by the
    ecosystem's ordering. Empty when the advisory does not affect `version`, when the affected
    ranges have no fix (open or `last_affected` only), or when only the `versions` list matched.
    """
    if advisory.is_withdrawn:
        return []
    wanted = normalise_name(ecosystem, name)
    found: dict[str, None] = {}
    for affected in _entries(advisory, ecosystem, wanted):
        for rng in affected.ranges:
            plan = _plan(rng, ecosystem)
            if plan is None:
                continue
            vkey = _key_function(rng.type, ecosystem)(version)
            if not _range_contains(plan, vkey):
                continue
            above = [(k, v) for k, v in plan[2] if k > vkey]
            if above:
                found[min(above, key=lambda kv: kv[0])[1]] = None
    return sorted(found, key=lambda v: sort_key(ecosystem, v))


# --------------------------------------------------------------------------------------------
# De-duplication by alias.


def group_by_alias(advisories: Iterable[Advisory]) -> list[list[Advisory]]:
    """
    Groups of advisories describing the same issue: two advisories are in one group when their
    `id` ∪ `aliases` sets share a member, transitively (union-find). Groups and their members
    keep input order (a group sits where its first member was).
    """
    items = list(advisories)
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, adv in enumerate(items):
        for ident in adv.ids:
            j = owner.setdefault(ident, i)
            if j != i:
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[Advisory]] = {}
    for i, adv in enumerate(items):
        groups.setdefault(find(i), []).append(adv)
    return list(groups.values())


def _preference(adv: Advisory) -> tuple[Any, ...]:
    ids = adv.ids
    data = sum(len(a.ranges) + len(a.versions) for a in adv.affected)
    return (
        not adv.is_withdrawn,
        adv.converted_from is None,
        adv.id.startswith("GHSA-"),
        adv.id.startswith("CVE-"),
        any(i.startswith(("GHSA-", "CVE-")) for i in ids),
        adv.cvss_vector is not None,
        adv.severity is not None,
        bool(adv.summary) + bool(adv.details),
        data,
        len(adv.references),
        adv.modified.timestamp() if adv.modified else 0.0,
    )


def representative(group: Sequence[Advisory]) -> Advisory:
    """
    The record that stands for a group of duplicates. Preference, in order: not withdrawn; a
    feed's own record over a third-party conversion (`converted_from`); a GHSA id; a CVE id; a
    GHSA or CVE id among its aliases; a CVSS vector; a known severity; summary and details;
    more affected data (ranges + listed versions); more references; the latest `modified`;
    finally the smallest id, so the choice is deterministic.

    The result is that record with `aliases` widened to every other id and alias of the group,
    and `is_malicious` set when any member is a malicious-package report.
    """
    if not group:
        raise ValueError("representative() of an empty group")
    best = max(sorted(group, key=lambda a: a.id), key=_preference)
    others = {i for adv in group for i in adv.ids} - {best.id}
    merged = tuple(dict.fromkeys((*best.aliases, *sorted(others - set(best.aliases)))))
    malicious = any(adv.is_malicious for adv in group)
    if merged == best.aliases and malicious == best.is_malicious:
        return best
    return dataclasses.replace(best, aliases=merged, is_malicious=malicious)


def deduplicate(advisories: Iterable[Advisory]) -> list[Advisory]:
    """One `representative` per `group_by_alias` group, in input order."""
    return [representative(group) for group in group_by_alias(advisories)]
