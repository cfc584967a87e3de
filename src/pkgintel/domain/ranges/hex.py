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
from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease

_ECO = Ecosystem.HEX
_NUM = r"(?:0|[1-9]\d*)"
_IDENT = r"[0-9A-Za-z-]+"
_PRE = rf"(?:-{_IDENT}(?:\.{_IDENT})*)?(?:\+{_IDENT}(?:\.{_IDENT})*)?"
_CLAUSE = re.compile(
    rf"^(==|!=|>=|>|<=|<|~>)?\s*({_NUM})\.({_NUM})(?:\.({_NUM})({_PRE}))?$"
)


class HexRange(ComparatorRange):
    """`or` branches, each an `and` of comparators; pre-releases per branch."""

    __slots__ = ()

    def contains(self, version: str) -> bool:
        if self.allow_prerelease or not is_prerelease(_ECO, version):
            return super().contains(version)
        # Without allow_pre: only branches that name a pre-release may admit one.
        branches = tuple(g for g in self.groups if any(is_prerelease(_ECO, c.bound) for c in g))
        return ComparatorRange(self.text, _ECO, branches, True).contains(version)


class HexGrammar:
    """See the module contract."""

    name: ClassVar[str] = "Hex"

    def parse(self, text: str, *, include_prerelease: bool = False) -> HexRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty requirement")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        groups: list[tuple[Comparator, ...]] = []
        for branch in re.split(r"\s+or\s+", raw):
            group: list[Comparator] = []
            for clause in re.split(r"\s+and\s+", branch.strip()):
                group.extend(self._clause(clause.strip(), raw))
            groups.append(tuple(group))
        return HexRange(raw, _ECO, tuple(groups), include_prerelease)

    def _clause(self, clause: str, raw: str) -> list[Comparator]:
        m = _CLAUSE.match(clause)
        if not m:
            raise RangeSyntaxError(self.name, raw, f"{clause!r} is not `[op] version`")
        op, major, minor, patch, pre = m[1] or "==", int(m[2]), int(m[3]), m[4], m[5] or ""
        if op == "~>":
            if patch is None:
                lower, upper = f"{major}.{minor}.0", f"{major + 1}.0.0-0"
            else:
                lower, upper = f"{major}.{minor}.{patch}{pre}", f"{major}.{minor + 1}.0-0"
            return [comparator(_ECO, ">=", lower), comparator(_ECO, "<", upper)]
        if patch is None:
            raise RangeSyntaxError(self.name, raw, f"{clause!r} needs MAJOR.MINOR.PATCH")
        return [comparator(_ECO, op, f"{major}.{minor}.{patch}{pre}")]
