"""
Pin-safe constraints (pure): `^X.Y.Z`, `~X.Y.Z`, `>=X` or an exact version, evaluated with the
ecosystem's own ordering.

- `^X.Y.Z` (caret): at least X.Y.Z and the same left-most non-zero component — same major when
  X > 0, same major.minor when X = 0 and Y > 0, exactly 0.0.Z otherwise (npm/Cargo semantics).
- `~X.Y.Z` (tilde): at least X.Y.Z and the same major.minor (`~X` alone: the same major).
- `>=X`: at least X.
- anything else: an exact version, equal under the ecosystem's ordering (PEP 440 `3.0` = `3.0.0`).

"At least" uses the ecosystem's ordering; "same major/minor" compares the leading numeric release
components, so `^3.0.0` never admits `4.0.0rc1` even though it sorts below `4.0.0`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_valid, sort_key

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
    """`^`, `~`, `>=` or `==`."""
    base: str

    def matches(self, version: str) -> bool:
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
        nums = release_numbers(version)
        base = release_numbers(self.base)
        if self.operator == "~":
            width = 2 if len(base) >= 2 else 1
        elif base[0] > 0:
            width = 1
        elif len(base) >= 2 and base[1] > 0:
            width = 2
        else:
            width = 3
        return (*nums, 0, 0, 0)[:width] == (*base, 0, 0, 0)[:width]


def parse_constraint(ecosystem: Ecosystem, text: str) -> Constraint:
    """Parse `text`; raises `InvalidInput("constraint", ...)` when it is none of the four forms
    or its version is not valid in `ecosystem`."""
    raw = text.strip()
    for op in (">=", "^", "~"):
        if raw.startswith(op):
            base = raw[len(op) :].strip()
            break
    else:
        op, base = "==", raw.removeprefix("==").strip()
    if not base or not is_valid(ecosystem, base):
        raise InvalidInput(
            "constraint",
            f"constraint {text!r} is not ^X.Y.Z, ~X.Y.Z, >=X or an exact {ecosystem.value} version",
        )
    if op in ("^", "~") and not release_numbers(base):
        raise InvalidInput("constraint", f"{op} needs a numeric version, got {base!r}")
    return Constraint(ecosystem, raw, op, base)
