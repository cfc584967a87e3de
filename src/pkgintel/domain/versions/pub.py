"""
Pub ordering (pub_semver): SemVer, then build metadata breaks ties (`1.0.0 < 1.0.0+1`); a leading `v`
or a missing minor/patch is invalid. `key(version)` never raises.
"""

from __future__ import annotations

from typing import Any

from pkgintel.domain.versions.semver import LOOSE_SEMVER, identifiers


def key(version: str) -> tuple[Any, ...]:
    m = LOOSE_SEMVER.match(version.strip())
    if not m or m[2] is None or m[3] is None or version.strip().startswith("v"):
        return (0, version)
    pre, build = m[4], m[5]
    # pub_semver: a pre-release sorts first; a version with build metadata sorts after the same
    # version without it; identifiers: numbers before strings, shorter list first.
    return (
        1,
        int(m[1]),
        int(m[2]),
        int(m[3]),
        (0, identifiers(pre)) if pre is not None else (1, ()),
        (1, identifiers(build)) if build is not None else (0, ()),
    )


def is_prerelease(version: str) -> bool:
    """True when the (stripped) `version` has a pre-release part."""
    m = LOOSE_SEMVER.match(version)
    return bool(m and m[4] is not None)
