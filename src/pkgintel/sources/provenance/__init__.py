"""Provenance sources, one per ecosystem that publishes release attestations (`base.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import httpx

from pkgintel.domain.packages import Ecosystem
from pkgintel.sources.provenance.base import ProvenanceSource
from pkgintel.sources.provenance.npm import NpmProvenance
from pkgintel.sources.provenance.pypi import PypiProvenance

PROVENANCE_SOURCES: Final[dict[Ecosystem, Callable[[httpx.AsyncClient, str], ProvenanceSource]]] = {
    Ecosystem.NPM: NpmProvenance,
    Ecosystem.PYPI: PypiProvenance,
}
"""Factories `(client, base_url) → source`; the base URL is the ecosystem's registry setting."""

__all__ = ["PROVENANCE_SOURCES", "ProvenanceSource"]
