"""
RubyGems requirements, with `Gem::Requirement`'s semantics.

Grammar: one or more clauses `[op] VERSION` joined by commas (the list `Gem::Requirement.new`
takes, as gemspecs and Gemfiles write it in one string: `">= 1.4, < 2"`), all of which must be
satisfied. Operators `=` (the default), `!=`, `>`, `<`, `>=`, `<=` and `~>` (pessimistic):
`~> V` is `>= V` and, for the release part of the candidate, `< V.bump` — V's release segments
without the last one, the new last one incremented (`~> 1.4.4` → `< 1.5`, `~> 1.4` → `< 2`,
`~> 1.4.beta` → `< 2`). Versions compare with `versions.sort_key(Ecosystem.RUBYGEMS, ...)`
(`Gem::Version`: `1.0` = `1.0.0`, `1.0.a` < `1.0`).

Pre-release rule: `Gem::Requirement#satisfied_by?` has none; `gem install` and Bundler only pick a
pre-release when the requirement names one (`Gem::Requirement#prerelease?`). Without
`include_prerelease` that installer rule applies; with it, `satisfied_by?` alone decides.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, Key, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease, is_valid

_ECO = Ecosystem.RUBYGEMS
_CLAUSE = re.compile(
    r"^\s*(=|!=|>=|>|<=|<|~>)?\s*"
    r"([0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)\s*$"
)
_SEGMENT = re.compile(r"[0-9]+|[a-zA-Z]+")


def _segments(version: str) -> list[int | str]:
    return [int(s) if s.isdigit() else s for s in _SEGMENT.findall(version.replace("-", ".pre."))]


def _bump(version: str) -> str:
    """`Gem::Version#bump`: drop string segments and then the last one, increment the new last."""
    segs = _segments(version)
    first = next((i for i, s in enumerate(segs) if isinstance(s, str)), len(segs))
    nums = segs[:first]
    if len(nums) > 1:
        nums.pop()
    nums[-1] = int(nums[-1]) + 1
    return ".".join(str(n) for n in nums)


def _release(version: str) -> str:
    """`Gem::Version#release`: the segments before the first string one."""
    if not is_prerelease(_ECO, version):
        return version
    segs = _segments(version)
    first = next(i for i, s in enumerate(segs) if isinstance(s, str))
    return ".".join(str(s) for s in segs[:first]) or "0"


class RubyGemsRange(ComparatorRange):
    """Comparators, plus `~>` upper bounds tested on the candidate's release part."""

    __slots__ = ()

    def contains(self, version: str) -> bool:
        if not super().contains(version):
            return False
        ceilings = [c for g in self.groups for c in g if c.op == "~<"]
        if not ceilings:
            return True
        release = comparator(_ECO, "==", _release(version.strip())).key
        return all(release < c.key for c in ceilings)


class RubyGemsGrammar:
    """See the module contract."""

    name: ClassVar[str] = "RubyGems"

    def parse(self, text: str, *, include_prerelease: bool = False) -> ComparatorRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty requirement")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        clauses: list[Comparator] = []
        names_pre = False
        for part in raw.split(","):
            m = _CLAUSE.match(part)
            if not m or not is_valid(_ECO, m[2]):
                raise RangeSyntaxError(self.name, raw, f"{part.strip()!r} is not `[op] version`")
            op, version = m[1] or "=", m[2]
            names_pre = names_pre or is_prerelease(_ECO, version)
            if op == "~>":
                clauses.append(comparator(_ECO, ">=", version))
                clauses.append(_Ceiling("~<", version, comparator(_ECO, "<", _bump(version)).key))
            else:
                clauses.append(comparator(_ECO, "==" if op == "=" else op, version))
        return RubyGemsRange(raw, _ECO, (tuple(clauses),), include_prerelease or names_pre)


class _Ceiling(Comparator):
    """A `~>` upper bound: admits everything here, `RubyGemsRange` tests the release part."""

    __slots__ = ()

    def admits(self, key: Key) -> bool:
        return True
