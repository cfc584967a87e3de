"""
Version ordering per ecosystem (pure): the dispatch from an ecosystem to its scheme's module.

`sort_key(ecosystem, version)` gives a key that orders versions the way the ecosystem's own tools
do. Every `Ecosystem` maps to one `VersionScheme` (`SCHEME_BY_ECOSYSTEM`), and each scheme has its
own module (`versions/<scheme>.py`, with `key(version)` and `is_prerelease(version)`):

| scheme | ecosystems | rule |
|---|---|---|
| `pep440` | PyPI | PEP 440, via `packaging.version.Version` |
| `semver` | npm, cargo, hex, swift, jsr | SemVer 2.0 §11 precedence; build metadata ignored; optional `v` |
| `pub` | Pub | SemVer, then build metadata breaks ties (`1.0.0 < 1.0.0+1`), as pub_semver does |
| `julia` | Julia | `VersionNumber`: SemVer with `1`/`1.2` shorthands, build metadata breaks ties |
| `go` | Go | golang.org/x/mod/semver: `v` optional here, `v1`/`v1.2` shorthands, `+incompatible` ignored; pseudo-versions are SemVer pre-releases |
| `maven` | Maven | Maven 3.9 `ComparableVersion` (our implementation; see `versions/maven.py`) |
| `nuget` | NuGet | NuGet SemVer: up to 4 numeric parts, case-insensitive labels, build ignored |
| `rubygems` | RubyGems, CocoaPods | `Gem::Version` (CocoaPods' `Pod::Version` builds on it) |
| `composer` | Composer | composer/semver `VersionParser::normalize` + PHP `version_compare` |
| `hackage` | Hackage | PVP: dotted non-negative integers compared as lists (`1.0 < 1.0.0`) |
| `cran` | CRAN | R `package_version`: integers split on `.` and `-`, at least two |
| `cpan` | CPAN | Perl `version.pm`: decimal (`1.23` = v1.230) or dotted-decimal; `_` marks a dev release |
| `conda` | Conda | conda `VersionOrder` (epoch `!`, local `+`, `-` read as `_`, `dev` < letters < numbers < `post`) |
| `homebrew` | Homebrew | Homebrew `Version` tokens (alpha < beta < pre < rc < numbers < patch/post), `_N` revision |

Why our own code rather than univers for some schemes: univers 32 orders Composer `2.4.4-p9`
*before* `2.4.4` and `1.0.0-RC1` before `1.0.0-beta1` (plain SemVer coercion), misses Maven's
`release` alias and its "`.X` is `-X`" rule (`2.0.a < 2-1`), and its object comparisons take
5-15 µs; the tuple keys here compare in well under a microsecond. univers has no class for Conda,
Hackage, CRAN, CPAN, Julia or Homebrew.

Unparseable versions never raise: their key starts with 0, so they sort before every valid
version (they are never "newest"), and `is_valid` reports them. Keys of one scheme are mutually
comparable; keys of different schemes must not be mixed.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import (
    composer,
    conda,
    cpan,
    cran,
    go,
    hackage,
    homebrew,
    julia,
    maven,
    nuget,
    pep440,
    pub,
    rubygems,
    semver,
)
from pkgintel.domain.versions.schemes import (
    MAX_VERSION_LENGTH,
    SCHEME_BY_ECOSYSTEM,
    VersionScheme,
)

_MODULES = {
    VersionScheme.PEP440: pep440,
    VersionScheme.SEMVER: semver,
    VersionScheme.PUB: pub,
    VersionScheme.JULIA: julia,
    VersionScheme.GO: go,
    VersionScheme.MAVEN: maven,
    VersionScheme.NUGET: nuget,
    VersionScheme.RUBYGEMS: rubygems,
    VersionScheme.COMPOSER: composer,
    VersionScheme.HACKAGE: hackage,
    VersionScheme.CRAN: cran,
    VersionScheme.CPAN: cpan,
    VersionScheme.CONDA: conda,
    VersionScheme.HOMEBREW: homebrew,
}
_KEYS: dict[VersionScheme, Callable[[str], tuple[Any, ...]]] = {
    scheme: module.key for scheme, module in _MODULES.items()
}
_PRERELEASE: dict[VersionScheme, Callable[[str], bool]] = {
    scheme: module.is_prerelease for scheme, module in _MODULES.items()
}


@lru_cache(maxsize=65536)
def scheme_sort_key(scheme: VersionScheme, version: str) -> tuple[Any, ...]:
    """
    A key ordering `version` under `scheme`; never raises.

    Valid versions give a key whose first element is 1, unparseable ones a key starting with 0
    (so they sort first). Keys are only comparable with keys of the same scheme.
    """
    if len(version) > MAX_VERSION_LENGTH:
        return (0, version[:MAX_VERSION_LENGTH])
    try:
        return _KEYS[scheme](version)
    except (ValueError, TypeError, IndexError, OverflowError):  # pragma: no cover - defensive
        return (0, version)


@lru_cache(maxsize=65536)
def sort_key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    """A key ordering `version` within `ecosystem`; invalid versions sort first. Never raises:
    a version longer than `MAX_VERSION_LENGTH` is invalid (Python refuses to convert more than
    4,300 digits to an int, so such a version must never reach a parser)."""
    if len(version) > MAX_VERSION_LENGTH:
        return (0, version[:MAX_VERSION_LENGTH])
    if ecosystem is Ecosystem.PYPI:
        return pep440.key(version)
    return scheme_sort_key(SCHEME_BY_ECOSYSTEM.get(ecosystem, VersionScheme.SEMVER), version)


def compare(ecosystem: Ecosystem, a: str, b: str) -> int:
    """-1, 0 or 1 as `a` sorts before, equal to, or after `b` in `ecosystem`."""
    ka, kb = sort_key(ecosystem, a), sort_key(ecosystem, b)
    return (ka > kb) - (ka < kb)


def is_valid(ecosystem: Ecosystem, version: str) -> bool:
    """True when `version` parses under the ecosystem's rules."""
    return bool(sort_key(ecosystem, version)[0] == 1)


def is_prerelease(ecosystem: Ecosystem, version: str) -> bool:
    """True for alpha/beta/rc/dev/canary/nightly versions under the ecosystem's rules."""
    if not is_valid(ecosystem, version):
        return False
    if ecosystem is Ecosystem.PYPI:
        return bool(sort_key(ecosystem, version)[1].is_prerelease)
    scheme = SCHEME_BY_ECOSYSTEM.get(ecosystem, VersionScheme.SEMVER)
    return _PRERELEASE[scheme](version.strip())


def validate_version(ecosystem: Ecosystem, version: str) -> str:
    """Return `version` stripped, or raise `InvalidInput` when it is empty, overlong or unparseable."""
    cleaned = version.strip()
    if not cleaned:
        raise InvalidInput("version", "version is empty")
    if len(cleaned) > MAX_VERSION_LENGTH:
        raise InvalidInput("version", "version is too long")
    if ecosystem in (Ecosystem.PYPI, Ecosystem.NPM) and not is_valid(ecosystem, cleaned):
        scheme = "PEP 440" if ecosystem is Ecosystem.PYPI else "SemVer"
        raise InvalidInput("version", f"{cleaned!r} is not a valid {scheme} version")
    return cleaned


def newest_first(ecosystem: Ecosystem, versions: list[str]) -> list[str]:
    """`versions` ordered newest → oldest by the ecosystem's ordering."""
    return sorted(versions, key=lambda v: sort_key(ecosystem, v), reverse=True)
