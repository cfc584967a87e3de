"""
Hex (Elixir/Erlang) version requirements, with the semantics of Elixir's `Version.match?`.

Grammar: clauses joined by `and` and `or` (`and` binds tighter). A clause is an operator `==`,
`!=`, `>`, `>=`, `<`, `<=` or `~>` (none means `==`) and a full SemVer version
`MAJOR.MINOR.PATCH[-PRE][+BUILD]`; `~>` also takes `MAJOR.MINOR`. `~> 2.0` is `>= 2.0.0 and
< 3.0.0-0`; `~> 2.0.1` is `>= 2.0.1 and < 2.1.0-0` (the upper bound excludes the next release's
pre-releases, as Elixir compiles it). Versions compare with
`versions.sort_key(Ecosystem.HEX, ...)` (SemVer 2.0; build metadata ignored).

Pre-release rule: `Version.match?` admits pre-releases by default (`allow_pre: true`); Hex's
resolver does not pick one unless the requirement names a pre-release. Without
`include_prerelease` that resolver rule applies (per `or` branch: the branch must name a
pre-release); with it, `Version.match?`'s default decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease

_ECO = Ecosystem.HEX
_NUM = r"(?:0|[1-9]\d*)"
_IDENT = r"[0-9A-Za-z-]+"
_PRE = rf"(?:-{_IDENT}(?:\.{_IDENT})*)?(?:\+{_IDENT}(?:\.{_IDENT})*)?"
_CLAUSE = re.compile(rf"^(==|!=|>=|>|<=|<|~>)?\s*({_NUM})\.({_NUM})(?:\.({_NUM})({_PRE}))?$")


@dataclass(frozen=True, slots=True)
class HexRange:
    """`or` branches, each an `and` of comparators with its own pre-release allowance."""

    text: str
    branches: tuple[ComparatorRange, ...]

    def contains(self, version: str) -> bool:
        return any(branch.contains(version) for branch in self.branches)


class HexGrammar:
    """See the module contract."""

    name: ClassVar[str] = "Hex"

    def parse(self, text: str, *, include_prerelease: bool = False) -> HexRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty requirement")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        branches: list[ComparatorRange] = []
        for branch in re.split(r"\s+or\s+", raw):
            group: list[Comparator] = []
            names_pre = False
            for clause in re.split(r"\s+and\s+", branch.strip()):
                comparators, operand = self._clause(clause.strip(), raw)
                group.extend(comparators)
                names_pre = names_pre or is_prerelease(_ECO, operand)
            allow = include_prerelease or names_pre
            branches.append(ComparatorRange(raw, _ECO, (tuple(group),), allow))
        return HexRange(raw, tuple(branches))

    def _clause(self, clause: str, raw: str) -> tuple[list[Comparator], str]:
        """The comparators of one clause and the version it names."""
        m = _CLAUSE.match(clause)
        if not m:
            raise RangeSyntaxError(self.name, raw, f"{clause!r} is not `[op] version`")
        op, major, minor, patch, pre = m[1] or "==", int(m[2]), int(m[3]), m[4], m[5] or ""
        if op == "~>":
            if patch is None:
                lower, upper = f"{major}.{minor}.0", f"{major + 1}.0.0-0"
            else:
                lower, upper = f"{major}.{minor}.{patch}{pre}", f"{major}.{minor + 1}.0-0"
            return [comparator(_ECO, ">=", lower), comparator(_ECO, "<", upper)], lower
        if patch is None:
            raise RangeSyntaxError(self.name, raw, f"{clause!r} needs MAJOR.MINOR.PATCH")
        operand = f"{major}.{minor}.{patch}{pre}"
        return [comparator(_ECO, op, operand)], operand
