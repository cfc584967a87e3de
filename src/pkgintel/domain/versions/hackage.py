"""
Hackage ordering (PVP): dotted non-negative integers compared as lists (`1.0 < 1.0.0`).
`key(version)` never raises; the scheme has no pre-releases.
"""

from __future__ import annotations

import re
from typing import Any

_HACKAGE = re.compile(r"^\d+(?:\.\d+)*$")


def key(version: str) -> tuple[Any, ...]:
    v = version.strip()
    if not _HACKAGE.match(v):
        return (0, version)
    return (1, tuple(int(p) for p in v.split(".")))


def is_prerelease(version: str) -> bool:
    """Always False: PVP has no pre-release concept."""
    return False
