"""
Deprecations known beside the registry: `DeprecationFacts`, and `CuratedDeprecations`, which reads
them from the curated alternatives in the knowledge store — the same rows `/api/alternatives` reads
(`AlternativesService`), so the report and the alternatives answer cannot disagree.

A registry mirror may strip npm's deprecation notice (and some registries have none): when the
curated knowledge says the maintainers deprecated a package, the report says it too, naming the
curated entry as its source (`ReportService`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.storage.base import KnowledgeStore

CURATED_SOURCE = "curated:alternatives"
"""The `_meta.sources` name of a curated deprecation."""


@dataclass(frozen=True, slots=True)
class KnownDeprecation:
    """A package deprecated by its maintainers, as a source other than the registry records it."""

    message: str
    """Why, in the source's words."""
    url: str
    """Where the maintainers said so."""
    origin: str = "curated"
    recorded_at: datetime | None = None
    """When the fact was loaded (the curated entries' ingestion)."""
    replacements: tuple[str, ...] = ()
    """What to use instead, as the same source records it (curated order)."""

    @property
    def source(self) -> SourceStatus:
        """The fact as a `_meta.sources` entry."""
        return SourceStatus(
            CURATED_SOURCE,
            "deprecation",
            SourceState.OK,
            self.recorded_at,
            f"deprecated by its maintainers: {self.url}",
        )


class DeprecationFacts(Protocol):
    """Deprecations known outside the registry's own metadata."""

    async def deprecation(self, ecosystem: Ecosystem, name: str) -> KnownDeprecation | None:
        """The package's deprecation when one is known, else None (nothing known, not "maintained")."""
        ...


class CuratedDeprecations:
    """`DeprecationFacts` from the curated alternatives marked `deprecated: true`
    (`knowledge/curated/alternatives.yaml`, as ingested into the knowledge store)."""

    def __init__(self, store: KnowledgeStore) -> None:
        self._store = store

    async def deprecation(self, ecosystem: Ecosystem, name: str) -> KnownDeprecation | None:
        rows = await self._store.curated("alternatives", ecosystem, normalise_name(ecosystem, name))
        for row in rows:
            if row.payload.get("deprecated") is True:
                return KnownDeprecation(
                    str(row.payload["reason"]),
                    row.source,
                    "curated",
                    row.loaded_at,
                    tuple(str(c["name"]) for c in row.payload.get("alternatives", [])),
                )
        return None
