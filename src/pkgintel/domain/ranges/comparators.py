"""
Plain comparators over an ecosystem's ordering, shared by the grammars that desugar into them
(RubyGems, Maven, NuGet, Composer, Pub, Hex).

A `ComparatorRange` is a union (OR) of groups; a group is an intersection (AND) of
`Comparator`s `<`, `<=`, `>`, `>=`, `==`, `!=` against a bound's `sort_key` from
`pkgintel.domain.versions`, so a range and the ecosystem's ordering can never disagree. The
pre-release rule is the grammar's: `allow_prerelease` False makes every pre-release version
(`versions.is_prerelease`) fall outside the range; `exclude` is an optional extra test a grammar
uses for a rule the comparators cannot express (pub's `<2.0.0` excluding `2.0.0-dev`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease, sort_key

Key = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Comparator:
    """`version <op> bound` under the ecosystem's ordering."""

    op: str
    bound: str
    key: Key

    def admits(self, key: Key) -> bool:
        op = self.op
        if op == "==":
            return key == self.key
        if op == "!=":
            return key != self.key
        if op == ">=":
            return key >= self.key
        if op == ">":
            return key > self.key
        if op == "<=":
            return key <= self.key
        return key < self.key  # "<"


def comparator(ecosystem: Ecosystem, op: str, bound: str) -> Comparator:
    """A comparator whose bound is ordered by `ecosystem`'s `sort_key`."""
    return Comparator(op, bound, sort_key(ecosystem, bound))


@dataclass(frozen=True, slots=True)
class ComparatorRange:
    """An OR of AND-groups of comparators; an empty group admits every version."""

    text: str
    ecosystem: Ecosystem
    groups: tuple[tuple[Comparator, ...], ...]
    allow_prerelease: bool
    exclude: Callable[[str, Key], bool] | None = None

    def contains(self, version: str) -> bool:
        if len(version) > MAX_VERSION_LENGTH:
            return False
        try:
            key = sort_key(self.ecosystem, version)
            if key[0] != 1:
                return False
            if not self.allow_prerelease and is_prerelease(self.ecosystem, version):
                return False
            if self.exclude is not None and self.exclude(version, key):
                return False
            return any(all(c.admits(key) for c in group) for group in self.groups)
        except (TypeError, ValueError):  # pragma: no cover - keys of one scheme always compare
            return False
