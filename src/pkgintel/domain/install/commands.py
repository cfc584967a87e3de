"""
Install commands per ecosystem (pure): `install_commands(ecosystem, name, version, exact=...)`.

`INSTALLERS` is the registry: one function per ecosystem returning `{tool: command or snippet}`.
Shell commands are shell-quoted; manifest snippets (XML, Gradle, mix.exs) are given verbatim.
`exact=True` means the caller asked for this version, so snippets pin it exactly where the tool
would otherwise pick a newer one (cargo `@=`/`=x`, Gradle `x!!`); without it they name the version
as the tool's usual requirement (cargo's caret). Maven (nearest wins), NuGet (lowest applicable) and
Go (minimal version selection) install the named version of a direct dependency either way. An ecosystem with no entry gives `{}`.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import Final
from xml.sax.saxutils import escape, quoteattr

from pkgintel.domain.install.hackage_cran_conda import INSTALLERS_HASKELL_R_CONDA
from pkgintel.domain.install.homebrew_julia_jsr import INSTALLERS_HOMEBREW_JULIA_JSR
from pkgintel.domain.install.rubygems_composer_pub_hex import INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX
from pkgintel.domain.install.swift_cocoapods_cpan import INSTALLERS_SWIFT_COCOAPODS_CPAN
from pkgintel.domain.packages import Ecosystem

Installer = Callable[[str, str, bool], dict[str, str]]
"""`installer(name, version, exact) -> {tool: command}`."""


def _npm(name: str, version: str, exact: bool) -> dict[str, str]:
    spec = shlex.quote(f"{name}@{version}")
    return {
        "npm": f"npm install {spec}",
        "yarn": f"yarn add {spec}",
        "pnpm": f"pnpm add {spec}",
        "bun": f"bun add {spec}",
    }


def _pypi(name: str, version: str, exact: bool) -> dict[str, str]:
    spec = shlex.quote(f"{name}=={version}")
    return {
        "pip": f"pip install {spec}",
        "uv": f"uv add {spec}",
        "poetry": f"poetry add {spec}",
        "pipenv": f"pipenv install {spec}",
    }


# --- cargo, go, maven, nuget -----------------------------------------------------------------


def _cargo(name: str, version: str, exact: bool) -> dict[str, str]:
    # `cargo add name@1.2.3` writes the caret requirement "1.2.3"; `@=` pins exactly.
    spec = f"{name}@={version}" if exact else f"{name}@{version}"
    requirement = f"={version}" if exact else version
    return {
        "cargo": f"cargo add {shlex.quote(spec)}",
        "Cargo.toml": f'{name} = "{requirement}"',
    }


def _go(name: str, version: str, exact: bool) -> dict[str, str]:
    # Minimal version selection: the go.mod requirement is a minimum either way.
    return {
        "go": f"go get {shlex.quote(f'{name}@{version}')}",
        "go.mod": f"require {name} {version}",
    }


def _maven(name: str, version: str, exact: bool) -> dict[str, str]:
    # Maven's nearest-wins resolution keeps a direct dependency at its declared version; Gradle
    # picks the highest version in the graph unless the declaration is strict (`!!`).
    group, _, artifact = name.partition(":")
    gradle_strict = f"{name}:{version}!!" if exact else f"{name}:{version}"
    return {
        "maven": (
            "<dependency>\n"
            f"  <groupId>{escape(group)}</groupId>\n"
            f"  <artifactId>{escape(artifact)}</artifactId>\n"
            f"  <version>{escape(version)}</version>\n"
            "</dependency>"
        ),
        "gradle": f"implementation '{gradle_strict}'",
        "gradle_kotlin": f'implementation("{gradle_strict}")',
    }


def _nuget(name: str, version: str, exact: bool) -> dict[str, str]:
    # NuGet resolves a direct `Version="x"` (a minimum) to the lowest applicable version: x itself.
    return {
        "dotnet": f"dotnet add package {shlex.quote(name)} --version {shlex.quote(version)}",
        "PackageReference": (
            f"<PackageReference Include={quoteattr(name)} Version={quoteattr(version)} />"
        ),
        "paket": f"paket add {shlex.quote(name)} --version {shlex.quote(version)}",
    }


INSTALLERS: Final[Mapping[Ecosystem, Installer]] = {
    Ecosystem.NPM: _npm,
    Ecosystem.PYPI: _pypi,
    # Cargo, Go, Maven, NuGet
    Ecosystem.CARGO: _cargo,
    Ecosystem.GO: _go,
    Ecosystem.MAVEN: _maven,
    Ecosystem.NUGET: _nuget,
    **INSTALLERS_RUBYGEMS_COMPOSER_PUB_HEX,  # RubyGems, Composer, Pub, Hex
    **INSTALLERS_SWIFT_COCOAPODS_CPAN,  # Swift, CocoaPods, CPAN
    **INSTALLERS_HASKELL_R_CONDA,  # Hackage, CRAN, Conda
    **INSTALLERS_HOMEBREW_JULIA_JSR,
}


def install_commands(
    ecosystem: Ecosystem, name: str, version: str, *, exact: bool = False
) -> dict[str, str]:
    """Install commands and manifest lines for the common tools of `ecosystem` ({} when none)."""
    installer = INSTALLERS.get(ecosystem)
    return {} if installer is None else installer(name, version, exact)
