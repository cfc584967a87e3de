"""
Registry adapters, one module per ecosystem, behind the `RegistryAdapter` Protocol (`base.py`).

`ADAPTERS` is the one registry the composition root reads; mypy checks that every entry fits
`AdapterFactory`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems.base import AdapterFactory
from pkgintel.ecosystems.cargo import CargoAdapter
from pkgintel.ecosystems.cocoapods import CocoaPodsAdapter
from pkgintel.ecosystems.composer import ComposerAdapter
from pkgintel.ecosystems.conda import CondaAdapter
from pkgintel.ecosystems.cpan import CpanAdapter
from pkgintel.ecosystems.cran import CranAdapter
from pkgintel.ecosystems.go import GoAdapter
from pkgintel.ecosystems.hackage import HackageAdapter
from pkgintel.ecosystems.hex import HexAdapter
from pkgintel.ecosystems.homebrew import HomebrewAdapter
from pkgintel.ecosystems.jsr import JsrAdapter
from pkgintel.ecosystems.julia import JuliaAdapter
from pkgintel.ecosystems.maven import MavenAdapter
from pkgintel.ecosystems.npm import NpmAdapter
from pkgintel.ecosystems.nuget import NuGetAdapter
from pkgintel.ecosystems.pub import PubAdapter
from pkgintel.ecosystems.pypi import PyPIAdapter
from pkgintel.ecosystems.rubygems import RubyGemsAdapter
from pkgintel.ecosystems.swift import SwiftAdapter

ADAPTERS: Final[Mapping[Ecosystem, AdapterFactory]] = {
    Ecosystem.NPM: NpmAdapter,
    Ecosystem.PYPI: PyPIAdapter,
    # Cargo, Go, Maven, NuGet
    Ecosystem.CARGO: CargoAdapter,
    Ecosystem.GO: GoAdapter,
    Ecosystem.MAVEN: MavenAdapter,
    Ecosystem.NUGET: NuGetAdapter,
    # RubyGems, Composer, Pub, Hex
    Ecosystem.RUBYGEMS: RubyGemsAdapter,
    Ecosystem.COMPOSER: ComposerAdapter,
    Ecosystem.PUB: PubAdapter,
    Ecosystem.HEX: HexAdapter,
    # Swift, CocoaPods, CPAN
    Ecosystem.SWIFT: SwiftAdapter,
    Ecosystem.COCOAPODS: CocoaPodsAdapter,
    Ecosystem.CPAN: CpanAdapter,
    # Hackage, CRAN, Conda
    Ecosystem.HACKAGE: HackageAdapter,
    Ecosystem.CRAN: CranAdapter,
    Ecosystem.CONDA: CondaAdapter,
    # Homebrew, Julia, JSR
    Ecosystem.HOMEBREW: HomebrewAdapter,
    Ecosystem.JULIA: JuliaAdapter,
    Ecosystem.JSR: JsrAdapter,
}

__all__ = ["ADAPTERS"]
