"""
SemVer 2.0 ordering (npm, Cargo, Hex, Swift, JSR): §11 precedence, build metadata ignored, an optional
leading `v`. `key(version)` never raises (an unparseable version gives `(0,)`); `identifiers` and
`LOOSE_SEMVER` are the pieces the SemVer-refining schemes (Pub, Julia, Go) share.
"""

from __future__ import annotations

import re
from typing import Any

SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)


def identifiers(pre: str) -> tuple[tuple[int, int | str], ...]:
    # Numeric identifiers sort before alphanumeric ones (SemVer §11.4.3).
    return tuple((0, int(i)) if i.isdigit() else (1, i) for i in pre.split("."))


def key(version: str) -> tuple[Any, ...]:
    m = SEMVER.match(version.strip())
    if not m:
        return (0,)
    major, minor, patch, pre = int(m[1]), int(m[2]), int(m[3]), m[4]
    if pre is None:
        # A release sorts after all of its pre-releases (SemVer §11).
        return (1, major, minor, patch, 1, ())
    return (1, major, minor, patch, 0, identifiers(pre))


LOOSE_SEMVER = re.compile(
    r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
)


def is_prerelease(version: str) -> bool:
    """True when the (stripped) `version` has a pre-release part."""
    m = SEMVER.match(version)
    return bool(m and m[4])
