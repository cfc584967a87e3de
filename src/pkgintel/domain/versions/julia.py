"""
Julia ordering (`VersionNumber`): SemVer with `1`/`1.2` shorthands; build metadata breaks ties;
identifiers order "" < integers < strings. `key(version)` never raises.
"""

from __future__ import annotations

from typing import Any

from pkgintel.domain.versions.semver import LOOSE_SEMVER


def _identifiers(part: str) -> tuple[tuple[int, int | str], ...]:
    # Julia ident_cmp: "" < integers < non-empty strings.
    return tuple(
        (1, int(i)) if i.isdigit() else ((2, i) if i else (0, "")) for i in part.split(".")
    )


def key(version: str) -> tuple[Any, ...]:
    m = LOOSE_SEMVER.match(version.strip())
    if not m:
        return (0, version)
    pre, build = m[4], m[5]
    return (
        1,
        int(m[1]),
        int(m[2] or 0),
        int(m[3] or 0),
        (0, _identifiers(pre)) if pre is not None else (1, ()),
        (1, _identifiers(build)) if build is not None else (0, ()),
    )


def is_prerelease(version: str) -> bool:
    """True when the (stripped) `version` has a pre-release part."""
    m = LOOSE_SEMVER.match(version)
    return bool(m and m[4] is not None)
