"""
Go module ordering (golang.org/x/mod/semver): `v` optional here, `v1`/`v1.2` shorthands,
`+incompatible` ignored; pseudo-versions are SemVer pre-releases. `key(version)` never raises.
"""

from __future__ import annotations

import re
from typing import Any

from pkgintel.domain.versions.semver import identifiers

_GO = re.compile(
    r"^v?(0|[1-9]\d*)(?:\.(0|[1-9]\d*)(?:\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?)?)?$"
)


def key(version: str) -> tuple[Any, ...]:
    m = _GO.match(version.strip())
    if not m:
        return (0, version)
    # `v1` and `v1.2` are shorthands for v1.0.0 / v1.2.0 (no pre-release or build allowed then).
    major, minor, patch, pre = int(m[1]), int(m[2] or 0), int(m[3] or 0), m[4]
    if pre is None:
        return (1, major, minor, patch, 1, ())
    return (1, major, minor, patch, 0, identifiers(pre))


def is_prerelease(version: str) -> bool:
    """True when the (stripped) `version` has a pre-release part (pseudo-versions included)."""
    m = _GO.match(version)
    return bool(m and m[4])
