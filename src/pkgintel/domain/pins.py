"""
Pin-safe constraints (pure): `^X.Y.Z`, `~X.Y.Z`, `>=X` or an exact version, evaluated with the
ecosystem's own ordering — and, where `domain.ranges` has a grammar for the ecosystem, any range
in its native syntax (`>=1.0,<2.0` or `~=1.4` on PyPI, `>=4.0.0 <4.17.0` or `1.x || ^2` on npm).

A text that is one of the four forms is read as that form; any other text is read in the
ecosystem's grammar (operator `native`); text that is neither is `InvalidInput`.

- `^X.Y.Z` (caret): at least X.Y.Z and the same left-most non-zero component — same major when
  X > 0, same major.minor when X = 0 and Y > 0, exactly 0.0.Z otherwise (npm/Cargo semantics).
- `~X.Y.Z` (tilde): at least X.Y.Z and the same major.minor (`~X` alone: the same major).
- `>=X`: at least X.
- anything else: an exact version, equal under the ecosystem's ordering (PEP 440 `3.0` = `3.0.0`).

The four forms keep their specification meaning in every ecosystem, even where the ecosystem's
own grammar reads the same spelling more widely: a bare `1.2` is the exact version (Cargo reads it
as `^1.2`, NuGet as `>= 1.2`, Maven as "prefer 1.2"), Composer's `~1.2` is `<2.0` but here the
same major.minor, Pub's `^0.0.3` is `<0.1.0` but here exactly 0.0.3. The specification's reading
is the narrower one in each case, so an answer still satisfies the native meaning. A text with
range punctuation (`[](),|<>*=` or a space) is never read as a version.

"At least" uses the ecosystem's ordering; "same major/minor" compares the leading numeric release
components, so `^3.0.0` never admits `4.0.0rc1` even though it sorts below `4.0.0`. Epochs
are part of "same major": on PyPI `^1.0` and `~1.0` never admit `1!1.0` (nor `>=1!1.0` `1.5`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import RangeSyntaxError, VersionRange, grammar_for
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_valid, sort_key

_RANGE_PUNCTUATION = frozenset("[](),|<>*= \t")
_LEADING = re.compile(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?")


def release_numbers(version: str) -> tuple[int, ...]:
    """The leading numeric components of a version (`3.2.1rc1` → (3, 2, 1)); () when none."""
    m = _LEADING.match(version)
    if not m:
        return ()
    return tuple(int(g) for g in m.groups() if g is not None)


@dataclass(frozen=True, slots=True)
class Constraint:
    """A parsed pin-safe constraint; `matches(version)` applies it."""

    ecosystem: Ecosystem
    text: str
    operator: str
    """`^`, `~`, `>=`, `==`, or `native` (a range in the ecosystem's grammar)."""
    base: str
    native: VersionRange | None = None
    """The parsed native range when `operator` is `native`."""

    def matches(self, version: str) -> bool:
        if self.native is not None:
            return self.native.contains(version)
        try:
            key = sort_key(self.ecosystem, version)
            base_key = sort_key(self.ecosystem, self.base)
        except (ValueError, TypeError):
            return False
        if self.operator == "==":
            return key == base_key
        if key < base_key:
            return False
        if self.operator == ">=":
            return True
        if _epoch(self.ecosystem, version) != _epoch(self.ecosystem, self.base):
            return False
        nums = _release(self.ecosystem, version)
        base = _release(self.ecosystem, self.base)
        if self.operator == "~":
            width = 2 if len(base) >= 2 else 1
        elif base[0] > 0:
            width = 1
        elif len(base) >= 2 and base[1] > 0:
            width = 2
        else:
            width = 3
        return (*nums, 0, 0, 0)[:width] == (*base, 0, 0, 0)[:width]


def _epoch(ecosystem: Ecosystem, version: str) -> int:
    if ecosystem is not Ecosystem.PYPI or "!" not in version:
        return 0
    try:
        return Version(version).epoch
    except (InvalidVersion, ValueError):
        return -1


def _release(ecosystem: Ecosystem, version: str) -> tuple[int, ...]:
    # PEP 440 spellings (`00!1.2`, `v1.0`, `1.0-1`) are read by packaging, epoch left out.
    if ecosystem is Ecosystem.PYPI and len(version) <= MAX_VERSION_LENGTH:
        try:
            return Version(version).release
        except (InvalidVersion, ValueError):
            return ()
    return release_numbers(version)


def parse_constraint(
    ecosystem: Ecosystem, text: str, *, include_prerelease: bool = False
) -> Constraint:
    """Parse `text`: one of the four forms, else a range in the ecosystem's native grammar
    (parsed with `include_prerelease`); raises `InvalidInput("constraint", ...)` when it is
    neither (or too long)."""
    raw = text.strip()
    if len(raw) > 4 * MAX_VERSION_LENGTH:
        raise InvalidInput("constraint", "constraint is too long")
    for op in (">=", "^", "~"):
        if raw.startswith(op) and not raw.startswith("~="):
            base = raw[len(op) :].strip()
            break
    else:
        op, base = "==", raw.removeprefix("==").strip()
    grammar = grammar_for(ecosystem)
    # Maven's ordering reads almost any text as a version (`[20,23)` too): range punctuation
    # sends the text to the ecosystem's grammar rather than to the four forms.
    ranged = grammar is not None and any(c in _RANGE_PUNCTUATION for c in base)
    if (
        base
        and not ranged
        and is_valid(ecosystem, base)
        and (op not in ("^", "~") or release_numbers(base))
    ):
        if op == "==" and ecosystem is Ecosystem.PYPI and grammar is not None:
            # PEP 440 `==`: a local label on the candidate is ignored (`==1.0` admits `1.0+abc`).
            exact = grammar.parse(f"=={base}", include_prerelease=True)
            return Constraint(ecosystem, raw, op, base, exact)
        return Constraint(ecosystem, raw, op, base)
    if grammar is not None:
        try:
            native = grammar.parse(raw, include_prerelease=include_prerelease)
        except RangeSyntaxError as exc:
            raise InvalidInput(
                "constraint",
                f"constraint {text!r} is not ^X.Y.Z, ~X.Y.Z, >=X, an exact version or a "
                f"{grammar.name} range ({exc.message})",
            ) from None
        return Constraint(ecosystem, raw, "native", raw, native)
    if op in ("^", "~") and base and is_valid(ecosystem, base):
        raise InvalidInput("constraint", f"{op} needs a numeric version, got {base!r}")
    raise InvalidInput(
        "constraint",
        f"constraint {text!r} is not ^X.Y.Z, ~X.Y.Z, >=X or an exact {ecosystem.value} version",
    )
