"""
Does a version satisfy a declared range, in the ecosystem's own semantics? (pure)

- npm: node-semver rules (`^`, `~`, `x`, hyphen ranges, `||`), prereleases only match a range
  that names the same `major.minor.patch` with a prerelease (npm's default), via the
  `node-semver` package (a port of npm/node-semver).
- PyPI: PEP 440 specifiers via `packaging.specifiers` (prereleases of the asked version allowed,
  since the caller named it).

`satisfies` answers None when the range cannot be evaluated (git URLs, `npm:` aliases, tags,
`workspace:`, malformed text, ecosystems without an evaluator here): callers then say
"cannot tell" instead of guessing. This module is the one seam the shared range evaluation of the
`versions` work can replace.
"""

from __future__ import annotations

import functools
import re

import nodesemver
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from pkgintel.domain.packages import Ecosystem

_NPM_UNEVALUABLE = re.compile(
    r"^(npm:|workspace:|file:|link:|git|github:|https?:|[\w.-]+/[\w.-]+(#.*)?$)"
)
_NPM_TAG = re.compile(r"^[A-Za-z][\w.-]*$")


@functools.lru_cache(maxsize=65536)
def satisfies(ecosystem: Ecosystem, version: str, requirement: str) -> bool | None:
    """True/False when `version` is (not) inside `requirement`; None when it cannot be told."""
    req = requirement.strip()
    if ecosystem is Ecosystem.NPM:
        return _npm(version, req)
    if ecosystem is Ecosystem.PYPI:
        return _pep440(version, req)
    return None


def _npm(version: str, req: str) -> bool | None:
    if req in ("", "*", "x", "latest"):
        return True
    if _NPM_UNEVALUABLE.match(req) or (_NPM_TAG.match(req) and not req.lower().startswith("x")):
        return None
    try:
        if nodesemver.valid(version, False) is None:
            return None
        if nodesemver.make_range(req, True) is None:
            return None
        return bool(nodesemver.satisfies(version, req, True))
    except (ValueError, TypeError, AttributeError):
        return None


def _pep440(version: str, req: str) -> bool | None:
    if req == "":
        return True
    try:
        spec = SpecifierSet(req)
        return spec.contains(Version(version), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return None


def major_of(version: str) -> int | None:
    """The first number of a version (`^1.2` → 1, `v2.0.0` → 2), or None."""
    m = re.match(r"^\D*?(\d+)", version)
    return int(m.group(1)) if m else None
