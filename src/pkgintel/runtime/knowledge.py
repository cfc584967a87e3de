"""
`Knowledge`: the package-knowledge services as one `Runtime` field, with the discovery service and
the usage log they share the knowledge store with (built by `runtime/bootstrap.build_knowledge`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pkgintel.services.knowledge.alternatives import AlternativesService
from pkgintel.services.knowledge.breaking import BreakingService
from pkgintel.services.knowledge.bugs import BugService
from pkgintel.services.knowledge.compare import CompareService
from pkgintel.services.knowledge.harvest import HarvestService
from pkgintel.services.operations.usage import UsageLog
from pkgintel.services.packages.discovery import DiscoveryService
from pkgintel.storage.base import KnowledgeStore


@dataclass(frozen=True, slots=True)
class Knowledge:
    """Alternatives, migration, breaking changes, bugs, compare, search/popular/trending/same-as,
    harvests and the usage log."""

    alternatives: AlternativesService
    breaking: BreakingService
    bugs: BugService
    compare: CompareService
    discovery: DiscoveryService
    harvest: HarvestService
    usage: UsageLog
    store: KnowledgeStore
