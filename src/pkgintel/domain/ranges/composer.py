"""
Composer version constraints, with the semantics of `composer/semver`'s
`VersionParser::parseConstraints` and `Semver::satisfies`.

Grammar: alternatives joined by `||` (or a single `|`); in each, constraints joined by a comma or
whitespace (AND). A constraint is `*` (any), an x-range (`1.2.*`, `2.x`), a caret `^1.2.3`, a
tilde `~1.2` (`~>` is an error, as in Composer), a hyphen range `1.0 - 2.0` (spaces required), or
`[op] version` with `=`/`==`, `!=`/`<>`, `<`, `<=`, `>`, `>=` (none means exact). A trailing
stability flag `@dev`, `@alpha`, `@beta`, `@RC`, `@stable` may follow a constraint (`@dev` alone
is `*@dev`). Each desugars into comparators on Composer's normalised versions exactly as
`parseConstraint` does: lower bounds of `^`, `~`, x-ranges, hyphen ranges and `>=` get `-dev`
when the version has no stability of its own (so `>=1.2` admits `1.2.0-beta`, `<1.2.3` does not
admit `1.2.3-beta`); `^0.3` is `<0.4`, `^0.0.3` is `<0.0.4`; `~1.2` is `<2.0`, `~1.2.3` is
`<1.3`; `1.0 - 2.0` is `<2.1`. Versions compare with
`versions.sort_key(Ecosystem.COMPOSER, ...)` (normalise, then PHP `version_compare`).

Pre-release rule: `Semver::satisfies` has none; Composer installs only versions at least as stable
as the package's minimum stability, which is `stable` unless the constraint lowers it with a
flag (`@beta`) or by naming a less stable version (`>=1.0.0-RC1` allows RC). Without
`include_prerelease` that rule applies; with it, `satisfies` alone decides. Aliases
(`1.0 as 2.0`) and `dev-<branch>` constraints are not evaluated (`RangeSyntaxError`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges.base import RangeSyntaxError
from pkgintel.domain.ranges.comparators import Comparator, ComparatorRange, Key, comparator
from pkgintel.domain.versions import MAX_VERSION_LENGTH, composer_normalize

_ECO = Ecosystem.COMPOSER
_MODIFIER = r"[._-]?(?:(?:stable|beta|b|RC|alpha|a|patch|pl|p)(?:[.-]?\d+)*)?(?:[.-]?dev)?"
_VERSION = rf"v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?({_MODIFIER})(?:\+\S+)?"
_TILDE = re.compile(rf"^~(>?){_VERSION}$", re.IGNORECASE)
_CARET = re.compile(rf"^\^{_VERSION}$", re.IGNORECASE)
_XRANGE = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.[xX*])+$")
_HYPHEN = re.compile(rf"^({_VERSION}) +- +({_VERSION})$", re.IGNORECASE)
_ANY = re.compile(r"^(v)?[xX*](\.[xX*])*$", re.IGNORECASE)
_FLAG = re.compile(r"^([^,\s]*?)@(stable|RC|beta|alpha|dev)$", re.IGNORECASE)
_BASIC = re.compile(r"^(<>|!=|>=?|<=?|==?)?\s*(.*)$", re.DOTALL)
_ENDS_WITH_MODIFIER = re.compile(
    r"-(?:(?:stable|beta|b|rc|alpha|a|patch|pl|p)(?:[.-]?\d+)*)?(?:[.-]?dev)?$"
)
_RANK = {"stable": 0, "rc": 5, "beta": 10, "alpha": 15, "dev": 20}


def _stability(normalized: str) -> str:
    """Composer's `parseStability` of a normalised version."""
    low = normalized.lower()
    for name in ("dev", "alpha", "beta", "rc"):
        if f"-{name}" in low:
            return name
    return "stable"


def _bump(parts: list[str | None], position: int, increment: int = 0) -> str:
    """`manipulateVersionString`: keep `position` parts (the last one + `increment`), zero the rest."""
    out = [p or "0" for p in parts[:4]]
    for i in range(4, 0, -1):
        if i > position:
            out[i - 1] = "0"
        elif i == position and increment:
            out[i - 1] = str(int(out[i - 1]) + increment)
    return ".".join(out)


def _normalize(version: str, raw: str) -> str:
    normalized = composer_normalize(version)
    if normalized is None:
        raise RangeSyntaxError("Composer", raw, f"{version!r} is not a Composer version")
    return normalized


def _split_and(alternative: str) -> list[str]:
    protected = re.sub(r" +- +", "\x00", alternative.strip())
    protected = re.sub(r"(<>|!=|>=?|<=?|==?)\s+", r"\1", protected)
    return [p.replace("\x00", " - ") for p in re.split(r"\s*,\s*|\s+", protected) if p]


class ComposerGrammar:
    """See the module contract."""

    name: ClassVar[str] = "Composer"

    def parse(self, text: str, *, include_prerelease: bool = False) -> ComparatorRange:
        raw = text.strip()
        if not raw:
            raise RangeSyntaxError(self.name, raw, "empty constraint")
        if len(raw) > 4 * MAX_VERSION_LENGTH:
            raise RangeSyntaxError(self.name, raw[:40] + "…", "too long")
        groups: list[tuple[Comparator, ...]] = []
        minimum = 0
        for alternative in re.split(r"\s*\|\|?\s*", raw):
            parts = _split_and(alternative)
            if not parts:
                raise RangeSyntaxError(self.name, raw, "an empty alternative")
            group: list[Comparator] = []
            for part in parts:
                comparators, rank = self._constraint(part, raw)
                group.extend(comparators)
                minimum = max(minimum, rank)
            groups.append(tuple(group))
        exclude: Callable[[str, Key], bool] | None = None
        if not include_prerelease:

            def exclude(version: str, key: Key) -> bool:
                normalized = composer_normalize(version)
                return normalized is None or _RANK[_stability(normalized)] > minimum

        return ComparatorRange(raw, _ECO, tuple(groups), True, exclude)

    def _constraint(self, part: str, raw: str) -> tuple[list[Comparator], int]:
        """The comparators of one constraint and the stability rank it allows."""
        flag = None
        m = _FLAG.match(part)
        if m:
            part = m[1] or "*"
            flag = m[2].lower()
        rank = _RANK[flag] if flag else 0
        if part.lower().startswith("dev-") or " as " in part:
            raise RangeSyntaxError(self.name, raw, "branch and alias constraints are not evaluated")
        if m := _ANY.match(part):
            if m[1] or m[2]:
                return [comparator(_ECO, ">=", "0.0.0.0-dev")], rank
            return [], rank
        if m := _TILDE.match(part):
            if m[1]:
                raise RangeSyntaxError(self.name, raw, "`~>` is not Composer syntax; use `~`")
            nums = [m[2], m[3], m[4], m[5]]
            position = max(i + 1 for i, n in enumerate(nums) if n is not None)
            if m[6] and "dev" in m[6].lower():
                position += 1
            low = _normalize(part[1:] + ("" if m[6] else "-dev"), raw)
            high = _bump(nums, max(1, position - 1), 1) + "-dev"
            return self._pair(low, high), max(rank, _RANK[_stability(low)] if m[6] else 0)
        if m := _CARET.match(part):
            nums = [m[1], m[2], m[3], m[4]]
            if m[1] != "0" or m[2] is None:
                position = 1
            elif m[2] != "0" or m[3] is None:
                position = 2
            else:
                position = 3
            low = _normalize(part[1:] + ("" if m[5] else "-dev"), raw)
            high = _bump(nums, position, 1) + "-dev"
            return self._pair(low, high), max(rank, _RANK[_stability(low)] if m[5] else 0)
        if m := _XRANGE.match(part):
            nums = [m[1], m[2], m[3], None]
            position = max(i + 1 for i, n in enumerate(nums) if n is not None)
            low = _bump(nums, position) + "-dev"
            high = _bump(nums, position, 1) + "-dev"
            if low == "0.0.0.0-dev":
                return [comparator(_ECO, "<", high)], rank
            return self._pair(low, high), rank
        if m := _HYPHEN.match(part):
            frm, to = m[1], m[7]
            low = _normalize(frm, raw) + ("" if m[6] else "-dev")
            to_nums = [m[8], m[9], m[10], m[11]]
            if (to_nums[1] is not None and to_nums[2] is not None) or m[12]:
                upper = comparator(_ECO, "<=", _normalize(to, raw))
            else:
                _normalize(to, raw)
                upper = comparator(
                    _ECO, "<", _bump(to_nums, 1 if to_nums[1] is None else 2, 1) + "-dev"
                )
            named = max(
                _RANK[_stability(low)] if m[6] else 0, _RANK[_stability(_normalize(to, raw))]
            )
            return [comparator(_ECO, ">=", low), upper], max(rank, named)
        m = _BASIC.match(part)
        assert m is not None  # the pattern matches every string
        op, version_text = m[1] or "=", m[2]
        version = _normalize(version_text, raw)
        named = _RANK[_stability(version)]
        if op not in ("=", "==") and flag and flag != "stable" and _stability(version) == "stable":
            version += f"-{flag}"
        elif op in ("<", ">=") and not _ENDS_WITH_MODIFIER.search(version_text.lower()):
            version += "-dev"
        op = {"=": "==", "<>": "!="}.get(op, op)
        return [comparator(_ECO, op, version)], max(rank, named)

    @staticmethod
    def _pair(low: str, high: str) -> list[Comparator]:
        return [comparator(_ECO, ">=", low), comparator(_ECO, "<", high)]
