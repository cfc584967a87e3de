"""
NuGet ordering (NuGet.Versioning): up to four numeric parts, labels compared case-insensitively
(numeric ones first), build metadata ignored. `key(version)` never raises.
"""

from __future__ import annotations

import re
from typing import Any

_NUGET = re.compile(
    r"^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.(\d+))?"
    r"(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def key(version: str) -> tuple[Any, ...]:
    m = _NUGET.match(version.strip())
    if not m:
        return (0, version)
    nums = (int(m[1]), int(m[2] or 0), int(m[3] or 0), int(m[4] or 0))
    pre = m[5]
    if pre is None:
        return (1, nums, 1, ())
    # Labels: numeric ones compare numerically and before alphanumeric ones, which compare
    # case-insensitively; a shorter list of equal labels sorts first.
    labels = tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in pre.split("."))
    return (1, nums, 0, labels)


def is_prerelease(version: str) -> bool:
    """True when the (stripped) `version` has a pre-release label."""
    m = _NUGET.match(version)
    return bool(m and m[5])
