"""
The capability services the composition root builds beside the core ones (`bootstrap.assemble`):
graph and history, trust signals, artifacts, errors, contact, compatibility, the knowledge services
and the shipped knowledge. Each `build_*` takes settings and already-built collaborators and returns
one service (or a small group); none opens a resource of its own.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from pkgintel.cache.base import Cache
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.runtime.knowledge import Knowledge
from pkgintel.services.knowledge.alternatives import AlternativesService
from pkgintel.services.knowledge.breaking import BreakingService
from pkgintel.services.knowledge.bugs import BugService
from pkgintel.services.knowledge.compare import CompareService
from pkgintel.services.knowledge.compatibility import CompatService, NpmConstraintSource
from pkgintel.services.knowledge.error_resolver import ErrorService
from pkgintel.services.knowledge.harvest import HarvestService
from pkgintel.services.knowledge.load_state import LoadState
from pkgintel.services.knowledge.shipped import PopularitySource, ShippedKnowledge
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.contact import ContactService
from pkgintel.services.operations.usage import UsageLog
from pkgintel.services.packages.discovery import DiscoveryService
from pkgintel.services.packages.service import PackageService
from pkgintel.services.reports.service import ReportService
from pkgintel.services.signals.artifacts import ArtifactService
from pkgintel.services.signals.provenance import ProvenanceService
from pkgintel.services.signals.scorecard import ScorecardService
from pkgintel.services.trees.graph import Graph
from pkgintel.sources.github import GitHubClient
from pkgintel.sources.provenance import PROVENANCE_SOURCES
from pkgintel.sources.scorecard import ScorecardClient
from pkgintel.storage.contact import SqlContactStore
from pkgintel.storage.errors import SqlErrorStore
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.sql import SqlStore


def build_graph(
    settings: Settings,
    store: SqlStore,
    cache: Cache,
    reports: ReportService,
    knowledge_store: SqlKnowledgeStore,
    clock: Any,
) -> Graph:
    """Dependency trees, their licences and the health history (issue 16, items 7-8)."""
    from pkgintel.domain.operations.usage import (
        TRENDING_EXCLUDED_CLASSES,
        TRENDING_EXCLUDED_SOURCES,
    )
    from pkgintel.domain.trees.resolution import Environment
    from pkgintel.services.reports.history import HistoryService
    from pkgintel.services.trees.licenses import TreeLicenseService
    from pkgintel.services.trees.service import TreeService
    from pkgintel.storage.history import SqlHistoryStore

    trees = TreeService(
        reports,
        cache,
        ttl_s=settings.tree_cache_ttl_s,
        max_upstream=settings.tree_max_upstream,
        concurrency=settings.tree_concurrency,
        environment=Environment(python_version=settings.compat_default_python),
        clock=clock,
    )

    async def asked(start: datetime, end: datetime, limit: int) -> list[tuple[str, str]]:
        counts = await knowledge_store.package_counts(
            start,
            end,
            ecosystem=None,
            exclude_classes=TRENDING_EXCLUDED_CLASSES,
            exclude_sources=TRENDING_EXCLUDED_SOURCES,
            limit=limit,
        )
        return list(counts)

    history = HistoryService(
        reports,
        SqlHistoryStore(store.engine),
        asked=asked if settings.usage_log_enabled else None,
        asked_days=settings.history_asked_days,
        limit=settings.history_limit,
        clock=clock,
    )
    return Graph(trees=trees, licenses=TreeLicenseService(trees), history=history)


def build_trust_signals(
    settings: Settings,
    client: httpx.AsyncClient,
    cache: Cache,
    packages: PackageService,
    adapters: dict[Ecosystem, RegistryAdapter],
    clock: Any,
) -> Any:
    """Maintainers, GitHub statistics and trust, and quality (issue 16), on the shared resources."""
    from pkgintel.services.signals.github import GitHubSignals
    from pkgintel.services.signals.maintainers import MaintainerService
    from pkgintel.services.signals.quality import QualityService
    from pkgintel.services.signals.trust import TrustSignals
    from pkgintel.sources.quality import QualitySources

    ttl = {"ttl_s": settings.cache_ttl_s, "stale_s": settings.cache_stale_s, "clock": clock}
    github = GitHubSignals(
        GitHubClient(client, settings.upstream_github_api_url, token=settings.github_token),
        cache,
        not_found_ttl_s=settings.not_found_ttl_s,
        **ttl,
    )
    maintainers = MaintainerService(
        packages, adapters, cache, not_found_ttl_s=settings.not_found_ttl_s, **ttl
    )
    sources = QualitySources(
        client,
        npm_downloads_url=settings.upstream_npm_downloads_url,
        pypistats_url=settings.upstream_pypistats_url,
        depsdev_url=settings.upstream_depsdev_url,
    )
    quality = QualityService(packages, maintainers, github, sources, cache, **ttl)
    return TrustSignals(packages, maintainers, github, quality)


def build_artifact_services(
    settings: Settings, client: httpx.AsyncClient, cache: Cache, packages: PackageService
) -> tuple[ScorecardService, ProvenanceService, ArtifactService]:
    """Scorecard, provenance (npm and PyPI attestations, on the registry hosts) and the report's
    bundle/typescript/scorecard lookup (issue 16)."""
    scorecard = ScorecardService(
        packages,
        ScorecardClient(client, settings.upstream_scorecard_url),
        cache,
        ttl_s=settings.cache_ttl_s,
        stale_s=settings.cache_stale_s,
        not_found_ttl_s=settings.not_found_ttl_s,
    )
    registry_urls = {
        Ecosystem.NPM: settings.upstream_npm_url,
        Ecosystem.PYPI: settings.upstream_pypi_url,
    }
    provenance = ProvenanceService(
        packages,
        {eco: factory(client, registry_urls[eco]) for eco, factory in PROVENANCE_SOURCES.items()},
        cache,
        ttl_s=settings.cache_ttl_s,
        stale_s=settings.cache_stale_s,
    )
    artifacts = ArtifactService(
        packages, scorecard, cache, ttl_s=settings.cache_ttl_s, stale_s=settings.cache_stale_s
    )
    return scorecard, provenance, artifacts


def build_error_service(
    settings: Settings, store: SqlStore, clock: Any, curated_state: LoadState | None = None
) -> ErrorService:
    """The error-to-fix database on the service's engine, votes limited per client."""
    from pkgintel.cache.rate_gate import LimitsGate
    from pkgintel.knowledge.error_fixes import load_error_knowledge

    return ErrorService(
        SqlErrorStore(store.engine),
        knowledge=load_error_knowledge,
        vote_gate=LimitsGate(
            settings.error_vote_limit, redis_url=settings.redis_url, namespace="error-vote"
        ),
        clock=clock,
        min_confidence=settings.error_min_confidence,
        curated_state=curated_state,
    )


def build_shipped(
    settings: Settings,
    store: SqlStore,
    errors: ErrorService,
    knowledge_store: SqlKnowledgeStore,
    names: NameService,
    state: LoadState,
    clock: Any,
) -> ShippedKnowledge:
    """The loader of the curated knowledge and popularity snapshot shipped in the package."""
    from functools import partial

    from pkgintel.knowledge.curated import load_curated
    from pkgintel.knowledge.popularity import load_snapshot, snapshot_entries
    from pkgintel.knowledge.revision import curated_revision
    from pkgintel.storage.locks import load_lock
    from pkgintel.storage.ops import SqlOpsStore

    def popularity() -> PopularitySource:
        snapshot = load_snapshot()
        return PopularitySource(
            snapshot.label(), snapshot.ecosystems, partial(snapshot_entries, snapshot=snapshot)
        )

    return ShippedKnowledge(
        errors=errors,
        knowledge_store=knowledge_store,
        settings=SqlOpsStore(store.engine),
        names=names,
        curated=load_curated,
        revision=curated_revision,
        popularity=popularity if settings.shipped_popularity else None,
        lock=partial(load_lock, store.engine),
        state=state,
        clock=clock,
    )


def build_contact_service(settings: Settings, store: SqlStore, clock: Any) -> ContactService:
    """Contact requests on the service's engine, limited per client."""
    from pkgintel.cache.rate_gate import LimitsGate

    return ContactService(
        SqlContactStore(store.engine),
        gate=LimitsGate(settings.contact_limit, redis_url=settings.redis_url, namespace="contact"),
        retention_days=settings.contact_retention_days,
        clock=clock,
    )


def build_compat_service(
    settings: Settings, packages: PackageService, adapters: Any
) -> CompatService:
    """Stack compatibility over the npm adapter's packuments and PyPI snapshots."""
    from pkgintel.knowledge.breakages import load_breakage_index

    npm = adapters.get(Ecosystem.NPM)
    source: NpmConstraintSource | None = npm if hasattr(npm, "fetch_constraints") else None
    return CompatService(
        packages,
        source,
        breakages=load_breakage_index,
        default_python=settings.compat_default_python,
        max_packages=settings.compat_max_packages,
        ttl_s=settings.cache_ttl_s,
    )


def build_knowledge(
    settings: Settings,
    client: httpx.AsyncClient,
    knowledge_store: SqlKnowledgeStore,
    store: SqlStore,
    packages: PackageService,
    reports: ReportService,
    bugs: BugService,
    adapters: dict[Ecosystem, RegistryAdapter],
    clock: Any,
) -> Knowledge:
    """The package-knowledge services (issue 18) on the shared resources."""
    usage = UsageLog(
        knowledge_store,
        clock=clock,
        flush_interval_s=settings.usage_flush_interval_s,
        retention_days=settings.usage_retention_days,
        enabled=settings.usage_log_enabled,
        max_buffer=settings.usage_buffer_max,
    )
    github = GitHubClient(client, settings.upstream_github_api_url, token=settings.github_token)
    return Knowledge(
        alternatives=AlternativesService(reports, knowledge_store, adapters),
        breaking=BreakingService(knowledge_store),
        bugs=bugs,
        compare=CompareService(reports),
        discovery=DiscoveryService(store, knowledge_store, packages, adapters, usage, clock=clock),
        harvest=HarvestService(packages, github, knowledge_store, clock=clock),
        usage=usage,
        store=knowledge_store,
    )
