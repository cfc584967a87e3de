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
from pkgintel.ecosystems.composer import ComposerAdapter
from pkgintel.ecosystems.go import GoAdapter
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

ADAPTERS: Final[Mapping[Ecosystem, AdapterFactory]] = {
    Ecosystem.NPM: NpmAdapter,
    Ecosystem.PYPI: PyPIAdapter,
    # eco-a
    Ecosystem.CARGO: CargoAdapter,
    Ecosystem.GO: GoAdapter,
    Ecosystem.MAVEN: MavenAdapter,
    Ecosystem.NUGET: NuGetAdapter,
    # end eco-a
    # eco-b: RubyGems, Composer, Pub, Hex
    Ecosystem.RUBYGEMS: RubyGemsAdapter,
    Ecosystem.COMPOSER: ComposerAdapter,
    Ecosystem.PUB: PubAdapter,
    Ecosystem.HEX: HexAdapter,
    # eco-e: Homebrew, Julia, JSR
    Ecosystem.HOMEBREW: HomebrewAdapter,
    Ecosystem.JULIA: JuliaAdapter,
    Ecosystem.JSR: JsrAdapter,
}

__all__ = ["ADAPTERS"]
