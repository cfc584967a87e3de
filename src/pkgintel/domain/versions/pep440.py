"""
PEP 440 ordering (PyPI), via `packaging.version.Version` (pip's own). `key(version)` never raises.
"""

from __future__ import annotations

from typing import Any

from packaging.version import InvalidVersion, Version


def key(version: str) -> tuple[Any, ...]:
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


def is_prerelease(version: str) -> bool:
    """True for a valid PEP 440 pre-release or development release."""
    parsed = key(version)
    return parsed[0] == 1 and bool(parsed[1].is_prerelease)
