"""
NuGet version ranges, with the semantics of `NuGet.Versioning`'s `VersionRange.Parse` and
`Satisfies`.

Grammar: one interval — `[1.0,2.0)`, `(,1.0]`, `[1.0,)`, `(1.0,)`, `[1.0]` (exactly 1.0) — or a
bare version, which in NuGet means *at least* that version (`1.0` = `[1.0,)`; unlike Maven, it
is a real minimum). Bounds may carry pre-release labels and build metadata (ignored); an empty
bound is unbounded; blanks anywhere are ignored, as NuGet ignores them. A lower bound above the
upper one, two empty bounds (`(,)`) and unions are `RangeSyntaxError`; `(1.0)` and `[1.0)` are
valid and empty, as in NuGet. Floating versions (`1.*`, `1.0.0-*`),
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
        spec = "".join(raw.split())  # NuGet drops every blank (`[ 1 .2 , 2 .3 ]` is `[1.2,2.3]`)
        if not spec.startswith(("[", "(")):
            self._check(spec, raw)
            group: tuple[Comparator, ...] = (comparator(_ECO, ">=", spec),)
            allow = include_prerelease or is_prerelease(_ECO, spec)
            return ComparatorRange(raw, _ECO, (group,), allow)
        if not spec.endswith(("]", ")")) or len(spec) < 3:
            raise RangeSyntaxError(self.name, raw, "an interval ends with ] or )")
        lower_inclusive, upper_inclusive = spec.startswith("["), spec.endswith("]")
        inner = spec[1:-1]
        if "," in inner:
            parts = inner.split(",")
            if len(parts) != 2:
                raise RangeSyntaxError(self.name, raw, "an interval has two bounds")
            low, high = parts
            if not low and not high:
                raise RangeSyntaxError(self.name, raw, "an interval needs a bound")
        else:
            # `[1.0]` is exactly 1.0; NuGet also reads `(1.0)` and `[1.0)` as the (empty)
            # interval with both bounds 1.0.
            low = high = inner
        for bound in (low, high):
            if bound:
                self._check(bound, raw)
        bounds: list[Comparator] = []
        if low:
            bounds.append(comparator(_ECO, ">=" if lower_inclusive else ">", low))
        if high:
            bounds.append(comparator(_ECO, "<=" if upper_inclusive else "<", high))
        if low and high and sort_key(_ECO, high) < sort_key(_ECO, low):
            raise RangeSyntaxError(self.name, raw, "the lower bound is above the upper")
        names_pre = any(is_prerelease(_ECO, b) for b in (low, high) if b)
        return ComparatorRange(raw, _ECO, (tuple(bounds),), include_prerelease or names_pre)

    def _check(self, version: str, raw: str) -> None:
        if not is_valid(_ECO, version) or version != version.strip():
            raise RangeSyntaxError(self.name, raw, f"{version!r} is not a NuGet version")
