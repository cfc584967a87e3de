"""Package values: ecosystems, references, releases and the registry metadata of one package."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.signals.provenance import SourceStatus


class Ecosystem(StrEnum):
    """
    Ecosystem identifier: one of the 19 ecosystems the service knows; answers carry this value.
    Input also takes any case and the other names of docs/api.md "Ecosystem names" (PyPI,
    crates.io, golang, gem, packagist, ...).
    """

    NPM = "npm"
    PYPI = "pypi"
    CARGO = "cargo"
    GO = "go"
    MAVEN = "maven"
    NUGET = "nuget"
    RUBYGEMS = "rubygems"
    COMPOSER = "composer"
    PUB = "pub"
    HEX = "hex"
    SWIFT = "swift"
    COCOAPODS = "cocoapods"
    CPAN = "cpan"
    HACKAGE = "hackage"
    CRAN = "cran"
    CONDA = "conda"
    HOMEBREW = "homebrew"
    JULIA = "julia"
    JSR = "jsr"

    # `Ecosystem(text)` falls back on `ecosystem_named`, so every door that validates an `Ecosystem`
    # (FastAPI path, query and body fields, MCP arguments, the CLI) takes the aliases unaided.
    @classmethod
    def _missing_(cls, value: object) -> Ecosystem | None:
        return ecosystem_named(value) if isinstance(value, str) else None


ECOSYSTEM_ALIASES: Final[Mapping[str, Ecosystem]] = MappingProxyType(
    {
        # OSV ecosystem names (`domain/osv_ecosystems.py`), lower-cased
        "crates.io": Ecosystem.CARGO,
        "packagist": Ecosystem.COMPOSER,
        "swifturl": Ecosystem.SWIFT,
        # Package URL types (`domain/purl.py`) that differ from our identifiers
        "golang": Ecosystem.GO,
        "gem": Ecosystem.RUBYGEMS,
        "brew": Ecosystem.HOMEBREW,
        # the install tool, the registry's host or short name, the language with only one registry
        "pip": Ecosystem.PYPI,
        "crates": Ecosystem.CARGO,
        "rust": Ecosystem.CARGO,
        "gems": Ecosystem.RUBYGEMS,
        "pub.dev": Ecosystem.PUB,
        "hex.pm": Ecosystem.HEX,
        "pod": Ecosystem.COCOAPODS,
        "pods": Ecosystem.COCOAPODS,
    }
)
"""
Other names of an ecosystem (lower-case) → the ecosystem; `docs/api.md` "Ecosystem names" shows the
table. Matching is case-insensitive, so OSV's `PyPI`, `Go`, `Maven`, `NuGet`, `RubyGems`, `Pub`,
`Hex`, `Hackage`, `CRAN`, `Julia` are the identifiers themselves. Left out on purpose because they
name more than one registry: `python` (PyPI or Conda), `node`/`javascript` (npm or JSR), `java`
(Maven Central or others), `r` (CRAN or Bioconductor), `haskell` (Hackage or Stackage), `dotnet`,
`ruby`, `php`, `dart`, `elixir`, `perl` (languages whose tools also take other sources).
"""


def ecosystem_named(text: str) -> Ecosystem | None:
    """
    The ecosystem `text` names: an identifier or an alias of `ECOSYSTEM_ALIASES`, case-insensitive,
    surrounding blanks ignored; None when it names none.
    """
    key = text.strip().lower()
    for eco in Ecosystem.__members__.values():
        if eco.value == key:
            return eco
    return ECOSYSTEM_ALIASES.get(key)


def accepted_ecosystem_names() -> str:
    """The accepted names for an error message: every identifier, then the aliases."""
    ids = ", ".join(e.value for e in Ecosystem)
    return f"{ids} (any case; also {', '.join(ECOSYSTEM_ALIASES)})"


def resolve_ecosystem(text: str, *, field: str = "ecosystem") -> Ecosystem:
    """
    The ecosystem `text` names (see `ecosystem_named`). Raises `InvalidInput(field)` listing the
    accepted names when it names none.
    """
    eco = ecosystem_named(text)
    if eco is None:
        raise InvalidInput(
            field, f"unknown ecosystem {text!r}; accepted: {accepted_ecosystem_names()}"
        )
    return eco


@dataclass(frozen=True, slots=True)
class PackageRef:
    """A package in one ecosystem, optionally at one version. `name` is as the caller gave it."""

    ecosystem: Ecosystem
    name: str
    version: str | None = None


@dataclass(frozen=True, slots=True)
class Release:
    """One published version."""

    version: str
    published_at: datetime | None = None
    """Upload/publish time in UTC; None when the registry does not say."""
    yanked: bool = False
    """Withdrawn by the publisher but still on the registry (PyPI: every file yanked); installers skip it."""
    yanked_reason: str | None = None
    prerelease: bool = False
    deprecated: str | None = None
    """npm per-version deprecation message; None when the version is not deprecated."""


@dataclass(frozen=True, slots=True)
class Dependency:
    """A declared dependency of one version."""

    name: str
    requirement: str
    """The version constraint as written by the package (`^4.17.0`, `>=2.0,<3`), possibly empty."""
    kind: str = "runtime"
    """`runtime`, `optional`, `peer`, `dev` or `extra:<name>`."""
    marker: str | None = None
    """PEP 508 environment marker, when the registry gives one."""


@dataclass(frozen=True, slots=True)
class Maintainer:
    """A person or organisation with publish rights (or the declared author when that is all there is)."""

    name: str
    email: str | None = None
    role: str | None = None


@dataclass(frozen=True, slots=True)
class PackageInfo:
    """
    Registry metadata of one package, as parsed from the registry's own response.

    `releases` is ordered oldest → newest by the ecosystem's version ordering; `latest_version` is what
    the registry calls latest (npm `dist-tags.latest`, PyPI `info.version`). `dependencies` are those of
    `dependencies_version` (the requested version, or the latest).
    """

    ecosystem: Ecosystem
    name: str
    """The registry's canonical display name (e.g. `PyYAML`, `@types/jquery`)."""
    latest_version: str
    description: str = ""
    license: str | None = None
    """The licence as the registry states it (an SPDX expression when the registry uses SPDX)."""
    homepage: str | None = None
    repository: str | None = None
    releases: tuple[Release, ...] = ()
    maintainers: tuple[Maintainer, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    dependencies_version: str | None = None
    deprecated: bool = False
    deprecated_message: str | None = None
    classifiers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    """Small registry-specific facts worth showing (e.g. `requires_python`, `types`; `downloads` with
    its `downloads_window` when the registry counts over another window than a week)."""
    sources: tuple[SourceStatus, ...] = ()
    """Secondary sources the adapter consulted besides its `registry_source` (sparse index,
    deps.dev, pkg.go.dev, search API...), each `ok` or `unavailable` with a reason; shown in
    `_meta.sources`. `fetched_at` is stamped by the package service."""

    def release(self, version: str) -> Release | None:
        """The release with exactly this version string, or None."""
        for rel in self.releases:
            if rel.version == version:
                return rel
        return None
