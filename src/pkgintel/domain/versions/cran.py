"""
CRAN ordering (R `package_version`): integers split on `.` and `-`, at least two.
`key(version)` never raises; the scheme has no pre-releases.
"""

from __future__ import annotations

import re
from typing import Any

_CRAN = re.compile(r"^\d+(?:[.-]\d+)+$")


def key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _CRAN.match(v):
        return (0, version)
    return (1, tuple(int(p) for p in re.split(r"[.-]", v)))


def is_prerelease(version: str) -> bool:
    """Always False: R package versions have no pre-release concept."""
    return False
