"""
The version schemes and which ecosystem uses which (pure data).

`SCHEME_BY_ECOSYSTEM` is total over `Ecosystem`; `SEMVER_FAMILY` names the schemes that agree with
SemVer 2.0 precedence; `MAX_VERSION_LENGTH` is the longest version any parser is given.
"""

from __future__ import annotations

from enum import StrEnum

from pkgintel.domain.packages import Ecosystem

MAX_VERSION_LENGTH = 256
"""The longest version string any door accepts (node-semver's limit too); longer ones are invalid."""


class VersionScheme(StrEnum):
    """A version syntax and ordering shared by one or more ecosystems."""

    PEP440 = "pep440"
    SEMVER = "semver"
    PUB = "pub"
    JULIA = "julia"
    GO = "go"
    MAVEN = "maven"
    NUGET = "nuget"
    RUBYGEMS = "rubygems"
    COMPOSER = "composer"
    HACKAGE = "hackage"
    CRAN = "cran"
    CPAN = "cpan"
    CONDA = "conda"
    HOMEBREW = "homebrew"


SCHEME_BY_ECOSYSTEM: dict[Ecosystem, VersionScheme] = {
    Ecosystem.NPM: VersionScheme.SEMVER,
    Ecosystem.PYPI: VersionScheme.PEP440,
    Ecosystem.CARGO: VersionScheme.SEMVER,
    Ecosystem.GO: VersionScheme.GO,
    Ecosystem.MAVEN: VersionScheme.MAVEN,
    Ecosystem.NUGET: VersionScheme.NUGET,
    Ecosystem.RUBYGEMS: VersionScheme.RUBYGEMS,
    Ecosystem.COMPOSER: VersionScheme.COMPOSER,
    Ecosystem.PUB: VersionScheme.PUB,
    Ecosystem.HEX: VersionScheme.SEMVER,
    Ecosystem.SWIFT: VersionScheme.SEMVER,
    Ecosystem.COCOAPODS: VersionScheme.RUBYGEMS,
    Ecosystem.CPAN: VersionScheme.CPAN,
    Ecosystem.HACKAGE: VersionScheme.HACKAGE,
    Ecosystem.CRAN: VersionScheme.CRAN,
    Ecosystem.CONDA: VersionScheme.CONDA,
    Ecosystem.HOMEBREW: VersionScheme.HOMEBREW,
    Ecosystem.JULIA: VersionScheme.JULIA,
    Ecosystem.JSR: VersionScheme.SEMVER,
}
"""The ordering each ecosystem uses (total over `Ecosystem`)."""

SEMVER_FAMILY: frozenset[VersionScheme] = frozenset(
    {VersionScheme.SEMVER, VersionScheme.GO, VersionScheme.PUB, VersionScheme.JULIA}
)
