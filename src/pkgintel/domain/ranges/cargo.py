"""
Cargo version requirements, with the semantics of the `semver` crate's `VersionReq` (what Cargo
uses; the Cargo book, "Specifying dependencies").

Grammar: comparators joined by commas (AND). A comparator is an optional operator `=`, `>`,
`>=`, `<`, `<=`, `~` or `^` and a version `MAJOR[.MINOR[.PATCH[-PRE][+BUILD]]]`; with no
operator it is a caret requirement (`1.2` means `^1.2`). `*`, `x` and `X` are wildcards
(`1.*`, `1.2.x`, a lone `*`); a wildcard must end the version and `*` must be the only
comparator. No `||`, no hyphen ranges, no spaces between comparators (the crate rejects them).

Each comparator is evaluated as the crate does (partial versions: `>1` admits 2.0.0 and up,
`<=1.2` admits every 1.2.x, `~1.2.3` is `>=1.2.3, <1.3.0`, `^0.0.3` only 0.0.3). Pre-release
rule: a pre-release version matches only if every comparator admits it and one of them names a
pre-release on the same `MAJOR.MINOR.PATCH` (`>=1.2.3-beta` admits `1.2.3-rc`, not `1.2.4-rc`).
`include_prerelease` lifts that rule (Cargo itself has no such option). Candidate versions are
ordered by `versions.sort_key(Ecosystem.CARGO, ...)` (SemVer 2.0; build metadata ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.versions import MAX_VERSION_LENGTH, sort_key

_ECO = Ecosystem.CARGO
_NUM = r"0|[1-9]\d*"
_PART = rf"{_NUM}|[*xX]"
_IDENT = r"[0-9A-Za-z-]+"
_COMPARATOR = re.compile(
    rf"^(=|>=|>|<=|<|~|\^)?\s*({_PART})(?:\.({_PART}))?(?:\.({_PART}))?"
    rf"(?:-({_IDENT}(?:\.{_IDENT})*))?(?:\+({_IDENT}(?:\.{_IDENT})*))?$"
)
_RELEASE = (1, ())  # the pre-release part of a key for a release


@dataclass(frozen=True, slots=True)
class _Comparator:
    op: str  # =, >, >=, <, <=, ~, ^, * (wildcard)
    major: int
    minor: int | None
    patch: int | None
    pre: tuple[Any, ...]  # key form of the pre-release, _RELEASE when none

    def matches(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        op = self.op
        if op == "=":
            return self._exact(v, pre)
        if op == ">":
            return self._greater(v, pre)
        if op == ">=":
            return self._exact(v, pre) or self._greater(v, pre)
        if op == "<":
            return self._less(v, pre)
        if op == "<=":
            return self._exact(v, pre) or self._less(v, pre)
        if op == "~":
            return self._tilde(v, pre)
        if op == "^":
            return self._caret(v, pre)
        return v[0] == self.major and (self.minor is None or v[1] == self.minor)  # wildcard

    def _exact(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        return (
            v[0] == self.major
            and (self.minor is None or v[1] == self.minor)
            and (self.patch is None or v[2] == self.patch)
            and pre == self.pre
        )

    def _greater(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        if v[0] != self.major:
            return v[0] > self.major
        if self.minor is None:
            return False
        if v[1] != self.minor:
            return v[1] > self.minor
        if self.patch is None:
            return False
        if v[2] != self.patch:
            return v[2] > self.patch
        return pre > self.pre

    def _less(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        if v[0] != self.major:
            return v[0] < self.major
        if self.minor is None:
            return False
        if v[1] != self.minor:
            return v[1] < self.minor
        if self.patch is None:
            return False
        if v[2] != self.patch:
            return v[2] < self.patch
        return pre < self.pre

    def _tilde(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        if v[0] != self.major:
            return False
        if self.minor is not None and v[1] != self.minor:
            return False
        if self.patch is not None and v[2] != self.patch:
            return v[2] > self.patch
        return pre >= self.pre

    def _caret(self, v: tuple[int, int, int], pre: tuple[Any, ...]) -> bool:
        if v[0] != self.major:
            return False
        if self.minor is None:
            return True
        minor = self.minor
        if self.patch is None:
            return v[1] >= minor if self.major > 0 else v[1] == minor
        patch = self.patch
        if self.major > 0:
            if v[1] != minor:
                return v[1] > minor
            if v[2] != patch:
                return v[2] > patch
        elif minor > 0:
            if v[1] != minor:
                return False
            if v[2] != patch:
                return v[2] > patch
        elif v[1] != minor or v[2] != patch:
            return False
        return pre >= self.pre

    def names_prerelease_of(self, v: tuple[int, int, int]) -> bool:
        return self.pre != _RELEASE and (self.major, self.minor, self.patch) == v and self.op != "*"


@dataclass(frozen=True, slots=True)
class CargoRange:
    """A parsed `VersionReq` (comma-separated comparators, all must match)."""

    text: str
    comparators: tuple[_Comparator, ...]
    include_prerelease: bool

    def contains(self, version: str) -> bool:
        if len(version) > MAX_VERSION_LENGTH:
            return False
        key = sort_key(_ECO, version)
        if key[0] != 1:
            return False
        v: tuple[int, int, int] = (key[1], key[2], key[3])
        pre: tuple[Any, ...] = (key[4], key[5])
        if not all(c.matches(v, pre) for c in self.comparators):
            return False
        if pre == _RELEASE or self.include_prerelease:
            return True
        return any(c.names_prerelease_of(v) for c in self.comparators)


def _pre_key(pre: str | None) -> tuple[Any, ...]:
    if pre is None:
        return _RELEASE
    key = sort_key(_ECO, f"0.0.0-{pre}")
    return (key[4], key[5])


class CargoGrammar:
    """See the module contract."""

    name: ClassVar[str] = "Cargo"

    def parse(self, text: str, *, include_prerelease: bool = False) -> CargoRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty requirement")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        parts = [p.strip() for p in raw.split(",")]
        comparators = tuple(self._comparator(p, raw) for p in parts)
        if len(parts) > 1 and any(c.op == "*" and c.major < 0 for c in comparators):
            raise RangeSyntaxError(self.name, raw, "a wildcard `*` must be the only comparator")
        return CargoRange(raw, tuple(c for c in comparators if c.major >= 0), include_prerelease)

    def _comparator(self, part: str, raw: str) -> _Comparator:
        m = _COMPARATOR.match(part)
        if not m:
            raise RangeSyntaxError(self.name, raw, f"{part!r} is not a comparator")
        op, major, minor, patch, pre, build = m.groups()
        fields = [major, minor, patch]
        wild = [f is not None and f in "*xX" for f in fields]
        if any(wild):
            first = wild.index(True)
            if any(
                f is not None and not w for f, w in zip(fields[first:], wild[first:], strict=True)
            ):
                raise RangeSyntaxError(self.name, raw, "nothing but wildcards after a wildcard")
            if pre is not None or build is not None:
                raise RangeSyntaxError(self.name, raw, "a wildcard takes no pre-release")
            if first == 0:
                if op is not None:
                    raise RangeSyntaxError(self.name, raw, "`*` takes no operator")
                return _Comparator("*", -1, None, None, _RELEASE)  # matches every release
        if pre is not None and any(
            p.isdigit() and len(p) > 1 and p[0] == "0" for p in pre.split(".")
        ):
            raise RangeSyntaxError(self.name, raw, "leading zero in a numeric pre-release")
        if pre is not None and patch is None:
            raise RangeSyntaxError(self.name, raw, "a pre-release needs MAJOR.MINOR.PATCH")
        nums = [None if f is None or f in "*xX" else int(f) for f in fields]
        if op is None:
            op = "*" if any(wild) else "^"
        elif op == "=" and any(wild):
            op = "*"
        return _Comparator(op, int(major), nums[1], nums[2], _pre_key(pre))
