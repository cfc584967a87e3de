"""Package values: ecosystems, references, releases and the registry metadata of one package."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from pkgintel.domain.provenance import SourceStatus


class Ecosystem(StrEnum):
    """The 19 ecosystems the service knows, by their path identifier."""

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
