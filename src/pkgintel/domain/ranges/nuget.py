"""
NuGet version ranges, with the semantics of `NuGet.Versioning`'s `VersionRange.Parse` and
`Satisfies`.

Grammar: one interval — `[1.0,2.0)`, `(,1.0]`, `[1.0,)`, `(1.0,)`, `[1.0]` (exactly 1.0) — or a
bare version, which in NuGet means *at least* that version (`1.0` = `[1.0,)`; unlike Maven, it
is a real minimum). Bounds may carry pre-release labels and build metadata (ignored); an empty
bound is unbounded. A lower bound above the upper one, equal bounds that are not both
inclusive, `(1.0)` and unions are `RangeSyntaxError`. Floating versions (`1.*`, `1.0.0-*`),
which NuGet resolves to the highest match at restore time, are not evaluated here (also
`RangeSyntaxError`): their membership in NuGet (`Satisfies`) is just their lower bound, which
would overstate what restore picks.

Versions compare with `versions.sort_key(Ecosystem.NUGET, ...)` (`1.0` = `1.0.0.0`, labels
case-insensitive). Pre-release rule: `Satisfies` has none; restore only picks a pre-release when
a bound of the range is one (`VersionRange.IsBetter`). Without `include_prerelease` that restore
rule applies; with it, `Satisfies` alone decides.
"""

from __future__ import annotations

from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_prerelease, is_valid, sort_key

_ECO = Ecosystem.NUGET


class NuGetGrammar:
    """See the module contract."""

    name: ClassVar[str] = "NuGet"

    def parse(self, text: str, *, include_prerelease: bool = False) -> ComparatorRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty range")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        if "*" in raw:
            raise RangeSyntaxError(self.name, raw, "floating versions are not evaluated")
        if not raw.startswith(("[", "(")):
            self._check(raw, raw)
            group: tuple[Comparator, ...] = (comparator(_ECO, ">=", raw),)
            return ComparatorRange(raw, _ECO, (group,), include_prerelease or is_prerelease(_ECO, raw))
        if not raw.endswith(("]", ")")) or len(raw) < 3:
            raise RangeSyntaxError(self.name, raw, "an interval ends with ] or )")
        lower_inclusive, upper_inclusive = raw.startswith("["), raw.endswith("]")
        inner = raw[1:-1]
        if "," not in inner:
            if not (lower_inclusive and upper_inclusive):
                raise RangeSyntaxError(self.name, raw, "a single version must be in []")
            exact = inner.strip()
            self._check(exact, raw)
            return ComparatorRange(
                raw,
                _ECO,
                ((comparator(_ECO, "==", exact),),),
                include_prerelease or is_prerelease(_ECO, exact),
            )
        parts = [p.strip() for p in inner.split(",")]
        if len(parts) != 2:
            raise RangeSyntaxError(self.name, raw, "an interval has two bounds")
        low, high = parts
        for bound in (low, high):
            if bound:
                self._check(bound, raw)
        bounds: list[Comparator] = []
        if low:
            bounds.append(comparator(_ECO, ">=" if lower_inclusive else ">", low))
        if high:
            bounds.append(comparator(_ECO, "<=" if upper_inclusive else "<", high))
        if low and high:
            lo, hi = sort_key(_ECO, low), sort_key(_ECO, high)
            if hi < lo:
                raise RangeSyntaxError(self.name, raw, "the lower bound is above the upper")
            if lo == hi and not (lower_inclusive and upper_inclusive):
                raise RangeSyntaxError(self.name, raw, "identical bounds must both be inclusive")
        names_pre = any(is_prerelease(_ECO, b) for b in (low, high) if b)
        return ComparatorRange(raw, _ECO, (tuple(bounds),), include_prerelease or names_pre)

    def _check(self, version: str, raw: str) -> None:
        if not is_valid(_ECO, version) or version != version.strip():
            raise RangeSyntaxError(self.name, raw, f"{version!r} is not a NuGet version")
