"""
Maven version ranges, with the semantics of `maven-artifact`'s `VersionRange.createFromVersionSpec`
and `containsVersion`.

Grammar: a union of intervals separated by commas — `[1.0,2.0)`, `(,1.0]`, `[1.5,)`, `[1.5]`
(exactly 1.5), `(,1.0],[1.2,)`; bounds are inclusive with `[`/`]`, exclusive with `(`/`)`, an
empty bound is unbounded. Intervals must be in ascending order without overlap, a single
version must be in `[]`, and identical bounds must both be inclusive — otherwise
`RangeSyntaxError`, as Maven raises `InvalidVersionSpecificationException`.

A bare version (`1.0`) is Maven's *soft requirement*: "prefer 1.0", and any version satisfies it
(`containsVersion` is true for all, Maven mediation may pick another). That is what this grammar
answers (for requirement checks). pin_safe reads a bare version before any grammar, as the exact
version named (one of the specification's four forms), so `constraint=1.0` still pins 1.0.

Versions compare with `versions.sort_key(Ecosystem.MAVEN, ...)` (`ComparableVersion`, so
`1.0-SNAPSHOT` < `1.0` and `[1.0,)` excludes it). Maven ranges have no pre-release rule of their
own; `include_prerelease` is accepted and changes nothing.
"""

from __future__ import annotations

from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_valid, sort_key

_ECO = Ecosystem.MAVEN


class MavenGrammar:
    """See the module contract."""

    name: ClassVar[str] = "Maven"

    def parse(self, text: str, *, include_prerelease: bool = False) -> ComparatorRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty range")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        groups: list[tuple[Comparator, ...]] = []
        previous_upper: str | None = None
        rest = raw
        while rest.startswith(("[", "(")):
            ends = [i for i in (rest.find(")"), rest.find("]")) if i >= 0]
            if not ends:
                raise RangeSyntaxError(self.name, raw, "unbounded range")
            end = min(ends)
            group, lower, upper = self._interval(rest[: end + 1], raw)
            if (
                previous_upper is not None
                and lower is not None
                and sort_key(_ECO, lower) < sort_key(_ECO, previous_upper)
            ):
                raise RangeSyntaxError(self.name, raw, "ranges overlap")
            groups.append(group)
            previous_upper = upper
            rest = rest[end + 1 :].strip()
            if rest.startswith(","):
                rest = rest[1:].strip()
        if rest:
            if groups:
                raise RangeSyntaxError(
                    self.name, raw, "only bracketed intervals are allowed in a union"
                )
            if not self._version_ok(rest):
                raise RangeSyntaxError(self.name, raw, f"{rest!r} is not a version")
            groups.append(())  # soft requirement: every version
        return ComparatorRange(raw, _ECO, tuple(groups), True)

    def _version_ok(self, version: str) -> bool:
        return bool(version) and not any(c in version for c in "[](),") and is_valid(_ECO, version)

    def _interval(
        self, spec: str, raw: str
    ) -> tuple[tuple[Comparator, ...], str | None, str | None]:
        lower_inclusive, upper_inclusive = spec.startswith("["), spec.endswith("]")
        inner = spec[1:-1].strip()
        if "," not in inner:
            if not (lower_inclusive and upper_inclusive):
                raise RangeSyntaxError(self.name, raw, "a single version must be in []")
            if not self._version_ok(inner):
                raise RangeSyntaxError(self.name, raw, f"{inner!r} is not a version")
            return (comparator(_ECO, "==", inner),), inner, inner
        low, _, high = inner.partition(",")
        low, high = low.strip(), high.strip()
        if "," in high:
            raise RangeSyntaxError(self.name, raw, "an interval has two bounds")
        for bound in (low, high):
            if bound and not self._version_ok(bound):
                raise RangeSyntaxError(self.name, raw, f"{bound!r} is not a version")
        group: list[Comparator] = []
        if low:
            group.append(comparator(_ECO, ">=" if lower_inclusive else ">", low))
        if high:
            group.append(comparator(_ECO, "<=" if upper_inclusive else "<", high))
        if low and high:
            order = sort_key(_ECO, low), sort_key(_ECO, high)
            if order[1] < order[0]:
                raise RangeSyntaxError(self.name, raw, "the range defies version ordering")
            if order[0] == order[1] and not (lower_inclusive and upper_inclusive):
                raise RangeSyntaxError(self.name, raw, "identical bounds must both be inclusive")
        return tuple(group), low or None, high or None
