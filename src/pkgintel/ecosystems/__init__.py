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
from pkgintel.ecosystems.npm import NpmAdapter
from pkgintel.ecosystems.pypi import PyPIAdapter

ADAPTERS: Final[Mapping[Ecosystem, AdapterFactory]] = {
    Ecosystem.NPM: NpmAdapter,
    Ecosystem.PYPI: PyPIAdapter,
}

__all__ = ["ADAPTERS"]
