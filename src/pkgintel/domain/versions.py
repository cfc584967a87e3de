"""
Version ordering per ecosystem (pure).

`sort_key(ecosystem, version)` gives a key that orders versions the way the ecosystem's own tools
do: PEP 440 (packaging) for PyPI, SemVer 2.0 for npm. Unparseable versions sort before every valid
one (they are never "newest"). `is_prerelease` follows the same rules.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from packaging.version import InvalidVersion, Version

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem

_SEMVER = re.compile(
    r"^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$"
)
_MAX_VERSION_LENGTH = 256


def _semver_key(version: str) -> tuple[Any, ...]:
    m = _SEMVER.match(version.strip())
    if not m:
        return (0,)
    major, minor, patch, pre = int(m[1]), int(m[2]), int(m[3]), m[4]
    if pre is None:
        # A release sorts after all of its pre-releases (SemVer §11).
        return (1, major, minor, patch, 1, ())
    parts: list[tuple[int, int | str]] = []
    for ident in pre.split("."):
        # Numeric identifiers sort before alphanumeric ones (SemVer §11.4.3).
        parts.append((0, int(ident)) if ident.isdigit() else (1, ident))
    return (1, major, minor, patch, 0, tuple(parts))


def _pep440_key(version: str) -> tuple[Any, ...]:
    try:
        return (1, Version(version))
    except InvalidVersion:
        return (0, version)


@lru_cache(maxsize=65536)
def sort_key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    """A key ordering `version` within `ecosystem`; invalid versions sort first."""
    if ecosystem is Ecosystem.PYPI:
        return _pep440_key(version)
    return _semver_key(version)


def is_valid(ecosystem: Ecosystem, version: str) -> bool:
    """True when `version` parses under the ecosystem's rules."""
    return sort_key(ecosystem, version)[0] == 1


def is_prerelease(ecosystem: Ecosystem, version: str) -> bool:
    """True for alpha/beta/rc/dev/canary/nightly versions under the ecosystem's rules."""
    if ecosystem is Ecosystem.PYPI:
        try:
            return Version(version).is_prerelease
        except InvalidVersion:
            return False
    m = _SEMVER.match(version.strip())
    return bool(m and m[4])


def validate_version(ecosystem: Ecosystem, version: str) -> str:
    """Return `version` stripped, or raise `InvalidInput` when it is empty, overlong or unparseable."""
    cleaned = version.strip()
    if not cleaned:
        raise InvalidInput("version", "version is empty")
    if len(cleaned) > _MAX_VERSION_LENGTH:
        raise InvalidInput("version", "version is too long")
    if ecosystem in (Ecosystem.PYPI, Ecosystem.NPM) and not is_valid(ecosystem, cleaned):
        scheme = "PEP 440" if ecosystem is Ecosystem.PYPI else "SemVer"
        raise InvalidInput("version", f"{cleaned!r} is not a valid {scheme} version")
    return cleaned


def newest_first(ecosystem: Ecosystem, versions: list[str]) -> list[str]:
    """`versions` ordered newest → oldest by the ecosystem's ordering."""
    return sorted(versions, key=lambda v: sort_key(ecosystem, v), reverse=True)
