"""
Equality of versions: one release, however it is spelled (pure).

`equality_key(ecosystem, version)` is equal for two spellings of one release; it is the ordering key
after npm's loose reading (`npm_clean`) on npm. Every comparison of a version with an OSV `versions`
list goes through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions.ordering import sort_key
from pkgintel.domain.versions.schemes import MAX_VERSION_LENGTH

_NPM_LOOSE = re.compile(
    r"^[v=\s]*(\d+)\.(\d+)\.(\d+)"
    r"(?:-?((?:\d+|\d*[a-zA-Z-][a-zA-Z0-9-]*)(?:\.(?:\d+|\d*[a-zA-Z-][a-zA-Z0-9-]*))*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def npm_clean(version: str) -> str | None:
    """
    The canonical npm spelling of `version` read as npm reads it (node-semver `clean`, loose):
    leading `v`, `=` and spaces dropped, numbers without leading zeros, build metadata dropped
    (`=v1.2.3+b` → `1.2.3`, `1.2.3beta` → `1.2.3-beta`); None when npm cannot read it.
    """
    v = version.strip()
    if len(v) > MAX_VERSION_LENGTH:
        return None
    m = _NPM_LOOSE.match(v)
    if not m:
        return None
    core = f"{int(m[1])}.{int(m[2])}.{int(m[3])}"
    if m[4] is None:
        return core
    pre = ".".join(str(int(p)) if p.isdigit() else p for p in m[4].split("."))
    return f"{core}-{pre}"


@lru_cache(maxsize=65536)
def equality_key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    """
    A hashable key that is equal for two spellings of one release in `ecosystem`: the ordering
    key (`sort_key`), after npm's loose reading for npm (`v1.2.3`, `=1.2.3` and `1.2.3` are one
    release). Two versions are the same release iff their keys are equal; PEP 440 equality
    (`2.0` = `2.0.0`, `1.0alpha1` = `1.0a1`, `0!1.0` = `1.0`), NuGet's (`1.0` = `1.0.0.0`, case)
    and every other scheme's follow from their ordering. Unreadable versions compare as
    stripped strings. Never raises.
    """
    v = version.strip()
    if ecosystem is Ecosystem.NPM:
        v = npm_clean(v) or v
    key = sort_key(ecosystem, v)
    return key if key[0] == 1 else (0, v)


def versions_equal(ecosystem: Ecosystem, a: str, b: str) -> bool:
    """True when `a` and `b` name the same release under `ecosystem`'s rules (see `equality_key`)."""
    return a == b or equality_key(ecosystem, a) == equality_key(ecosystem, b)


def find_equal(ecosystem: Ecosystem, version: str, listed: Iterable[str]) -> str | None:
    """The first of `listed` that is the same release as `version`, or None."""
    wanted = equality_key(ecosystem, version)
    for candidate in listed:
        if candidate == version or equality_key(ecosystem, candidate) == wanted:
            return candidate
    return None
