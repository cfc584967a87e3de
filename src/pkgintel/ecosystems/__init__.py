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
from pkgintel.ecosystems.go import GoAdapter
from pkgintel.ecosystems.maven import MavenAdapter
from pkgintel.ecosystems.npm import NpmAdapter
from pkgintel.ecosystems.nuget import NuGetAdapter
from pkgintel.ecosystems.pypi import PyPIAdapter

ADAPTERS: Final[Mapping[Ecosystem, AdapterFactory]] = {
    Ecosystem.NPM: NpmAdapter,
    Ecosystem.PYPI: PyPIAdapter,
    # eco-a
    Ecosystem.CARGO: CargoAdapter,
    Ecosystem.GO: GoAdapter,
    Ecosystem.MAVEN: MavenAdapter,
    Ecosystem.NUGET: NuGetAdapter,
    # end eco-a
}

__all__ = ["ADAPTERS"]
