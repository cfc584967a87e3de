"""
The composition root: reads `Settings`, builds the concrete adapters, stores and caches, and yields a
`Runtime` of services. Nothing else names concrete classes or reads settings.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel import __version__
from pkgintel.cache.base import Cache
from pkgintel.cache.fallback import FallbackCache
from pkgintel.cache.memory import MemoryCache
from pkgintel.cache.redis_cache import RedisCache
from pkgintel.config import Settings
from pkgintel.doctor_wiring import build_doctor
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.events.base import EventBus
from pkgintel.events.memory import MemoryBus
from pkgintel.events.redis_bus import RedisBus
from pkgintel.reachability import check_database, check_redis
from pkgintel.services.advisories import AdvisoryService
from pkgintel.services.advisory_ingest import AdvisoryIngestor
from pkgintel.services.alternatives import AlternativesService
from pkgintel.services.artifacts import ArtifactService
from pkgintel.services.audit import AuditService
from pkgintel.services.breaking import BreakingService
from pkgintel.services.bugs import BugService
from pkgintel.services.bulk import BulkCheckService
from pkgintel.services.compare import CompareService
from pkgintel.services.compat import CompatService, NpmConstraintSource
from pkgintel.services.contact import ContactService
from pkgintel.services.deprecations import CuratedDeprecations
from pkgintel.services.discovery import DiscoveryService
from pkgintel.services.doctor import Doctor
from pkgintel.services.errors import ErrorService
from pkgintel.services.graph import Graph
from pkgintel.services.harvest import HarvestService
from pkgintel.services.knowledge import Knowledge
from pkgintel.services.live_feed import LiveFeed
from pkgintel.services.load_state import LoadState
from pkgintel.services.malicious import MaliciousService
from pkgintel.services.names import NameService
from pkgintel.services.ops import Ops
from pkgintel.services.packages import PackageService
from pkgintel.services.pin_safe import PinSafeService
from pkgintel.services.provenance import ProvenanceService
from pkgintel.services.reports import ReportService
from pkgintel.services.runtime import Runtime
from pkgintel.services.scorecard import ScorecardService
from pkgintel.services.shipped import PopularitySource, ShippedKnowledge
from pkgintel.services.stack import StackService
from pkgintel.services.status import StatusService
from pkgintel.services.usage import UsageLog
from pkgintel.services.verdicts import VerdictService, VulnerabilityAnswers
from pkgintel.sources.github import GitHubClient
from pkgintel.sources.osv_api import OsvApiClient
from pkgintel.sources.provenance import PROVENANCE_SOURCES
from pkgintel.sources.scorecard import ScorecardClient
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.contact import SqlContactStore
from pkgintel.storage.errors import SqlErrorStore
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from pkgintel.upstream_guard import BreakerPolicy, GuardedTransport, Upstream

logger = logging.getLogger(__name__)

USER_AGENT = f"pkgintel/{__version__} (+https://github.com/pkgintel/pkgintel)"


def upstream_urls(settings: Settings) -> dict[Ecosystem, dict[str, str]]:
    """Constructor keyword arguments (base URLs) for each adapter, from the `PKGINTEL_UPSTREAM_*` settings."""
    return {
        Ecosystem.NPM: {
            "base_url": settings.upstream_npm_url,
            "downloads_url": settings.upstream_npm_downloads_url,
        },
        Ecosystem.PYPI: {
            "base_url": settings.upstream_pypi_url,
            "downloads_url": settings.upstream_pypistats_url,
            "files_url": settings.upstream_pypi_files_url,
        },
        # eco-a
        Ecosystem.CARGO: {
            "base_url": settings.upstream_crates_url,
            "index_url": settings.upstream_crates_index_url,
        },
        Ecosystem.GO: {
            "base_url": settings.upstream_goproxy_url,
            "pkgsite_url": settings.upstream_pkgsite_url,
        },
        Ecosystem.MAVEN: {
            "base_url": settings.upstream_maven_url,
            "depsdev_url": settings.upstream_depsdev_url,
        },
        Ecosystem.NUGET: {
            "base_url": settings.upstream_nuget_url,
            "search_url": settings.upstream_nuget_search_url,
        },
        # end eco-a
        # eco-b: RubyGems, Composer, Pub, Hex
        Ecosystem.RUBYGEMS: {"base_url": settings.upstream_rubygems_url},
        Ecosystem.COMPOSER: {
            "base_url": settings.upstream_packagist_repo_url,
            "downloads_url": settings.upstream_packagist_url,
        },
        Ecosystem.PUB: {"base_url": settings.upstream_pub_url},
        Ecosystem.HEX: {"base_url": settings.upstream_hex_url},
        # eco-c: Swift, CocoaPods, CPAN
        Ecosystem.SWIFT: {
            "base_url": settings.upstream_swift_url,
            "github_api_url": settings.upstream_github_api_url,
            **({"github_token": settings.github_token} if settings.github_token else {}),
        },
        Ecosystem.COCOAPODS: {"base_url": settings.upstream_cocoapods_url},
        Ecosystem.CPAN: {"base_url": settings.upstream_cpan_url},
        # eco-d: Hackage, CRAN, Conda
        Ecosystem.HACKAGE: {"base_url": settings.upstream_hackage_url},
        Ecosystem.CRAN: {
            "base_url": settings.upstream_cran_ppm_url,
            "cran_url": settings.upstream_cran_url,
            "downloads_url": settings.upstream_cranlogs_url,
        },
        Ecosystem.CONDA: {"base_url": settings.upstream_conda_url},
        # eco-e: Homebrew, Julia, JSR
        Ecosystem.HOMEBREW: {"base_url": settings.upstream_homebrew_url},
        Ecosystem.JULIA: {
            "base_url": settings.upstream_julia_url,
            "juliahub_url": settings.upstream_juliahub_url,
        },
        Ecosystem.JSR: {
            "base_url": settings.upstream_jsr_url,
            "api_url": settings.upstream_jsr_api_url,
        },
    }


def configured_upstreams(settings: Settings) -> tuple[Upstream, ...]:
    """Every `upstream_<name>_url` setting that holds a URL, as `Upstream(name, base_url)`."""
    found: list[Upstream] = []
    for field_name in type(settings).model_fields:
        if not (field_name.startswith("upstream_") and field_name.endswith("_url")):
            continue
        value = getattr(settings, field_name)
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            found.append(Upstream(field_name.removeprefix("upstream_").removesuffix("_url"), value))
    return tuple(found)


def build_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The one shared upstream client: explicit timeouts, a User-Agent, connection pooling, a
    circuit breaker per configured upstream and a concurrency cap per host
    (`upstream_guard.GuardedTransport`)."""
    timeout = httpx.Timeout(
        settings.upstream_timeout_s, connect=min(5.0, settings.upstream_timeout_s)
    )
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
    guarded = GuardedTransport(
        transport or httpx.AsyncHTTPTransport(limits=limits),
        BreakerPolicy(
            failures=settings.upstream_breaker_failures,
            backoff_s=settings.upstream_breaker_backoff_s,
            max_backoff_s=settings.upstream_breaker_max_backoff_s,
            max_concurrency=settings.upstream_max_concurrency,
        ),
        upstreams=configured_upstreams(settings),
    )
    return httpx.AsyncClient(
        timeout=timeout,
        headers={"User-Agent": USER_AGENT},
        limits=limits,
        follow_redirects=True,
        transport=guarded,
    )


def build_cache(settings: Settings) -> Cache:
    if settings.redis_url:
        # While Redis is away, an in-process cache stands in (no stampede upstream, one WARNING).
        return FallbackCache(RedisCache.from_url(settings.redis_url))
    return MemoryCache(settings.memory_cache_entries)


def build_bus(settings: Settings) -> EventBus:
    """Redis pub/sub when Redis is configured (announcements reach every process), else in-process."""
    if settings.redis_url:
        return RedisBus(Redis.from_url(settings.redis_url))
    return MemoryBus()


def build_adapters(
    settings: Settings, client: httpx.AsyncClient
) -> dict[Ecosystem, RegistryAdapter]:
    urls = upstream_urls(settings)
    return {eco: factory(client, **urls.get(eco, {})) for eco, factory in ADAPTERS.items()}


async def prepare_database(settings: Settings) -> tuple[AsyncEngine, SqlStore]:
    """Engine + store, migrated when `migrate_on_start` is set. Raises `BadSetting` when the
    database cannot be reached (one line for the user, not a driver traceback)."""
    engine = create_engine(settings.database_url)
    try:
        await check_database(engine, settings.database_url)
        if settings.migrate_on_start:
            await upgrade(engine)
    except BaseException:
        await engine.dispose()
        raise
    return engine, SqlStore(engine)


def assemble(
    settings: Settings, store: SqlStore, cache: Cache, client: httpx.AsyncClient, **overrides: Any
) -> Runtime:
    """Wire services from already-open resources (used by `build_runtime` and by tests)."""
    names = NameService(store)
    adapters = overrides.get("adapters") or build_adapters(settings, client)
    clock = overrides.get("clock") or (lambda: datetime.now(UTC))
    knowledge_store = SqlKnowledgeStore(store.engine)
    seen_hooks: list[Any] = [names.record_seen]

    async def on_seen(info: Any, downloads: int | None) -> None:
        for hook in seen_hooks:
            await hook(info, downloads)

    packages = PackageService(
        adapters,
        cache,
        store,
        ttl_s=settings.cache_ttl_s,
        stale_s=settings.cache_stale_s,
        not_found_ttl_s=settings.not_found_ttl_s,
        on_seen=on_seen,
    )
    advisory_store = SqlAdvisoryStore(store.engine)
    bus = overrides.get("bus") or build_bus(settings)
    advisory_service = AdvisoryService(
        advisory_store,
        clock=clock,
        stale_after_s=settings.advisory_stale_after_s,
        data_stale_after_s=settings.advisory_data_stale_after_s,
        osv_api=OsvApiClient(client, settings.upstream_osv_api_url)
        if settings.osv_api_fallback
        else None,
        api_ttl_s=settings.cache_ttl_s,
    )
    advisories = overrides.get("advisories") or advisory_service
    verdicts = VerdictService(advisories)
    bugs = BugService(knowledge_store)
    trust = build_trust_signals(settings, client, cache, packages, adapters, clock)
    scorecard, provenance, artifacts = build_artifact_services(settings, client, cache, packages)
    reports = ReportService(
        packages,
        names,
        advisories,
        verdicts=verdicts,
        **({"clock": overrides["clock"]} if "clock" in overrides else {}),
        known_issues=bugs.known_issues,
        trust_signals=trust,
        artifacts=artifacts.for_report,
        artifacts_pending=artifacts.pending,
        signal_wait_s=settings.report_signal_wait_s,
        deprecations=CuratedDeprecations(knowledge_store),
    )
    bulk = BulkCheckService(names, advisory_service, VerdictService(advisory_service))
    compat = build_compat_service(settings, packages, adapters)
    knowledge = build_knowledge(
        settings, client, knowledge_store, store, packages, reports, bugs, adapters, clock
    )
    seen_hooks.append(knowledge.discovery.record_seen)
    status = StatusService(store, cache, store, supported=tuple(e.value for e in adapters))
    contact = build_contact_service(settings, store, clock)
    curated_state = LoadState()
    errors = build_error_service(settings, store, clock, curated_state)
    graph = build_graph(settings, store, cache, reports, knowledge_store, clock)
    ops = build_ops(
        settings,
        store,
        client,
        packages,
        names,
        reports,
        _utcnow,
        advisory_store,
        bus,
        invalidate=advisory_service.invalidate,
        usage=knowledge.usage if settings.usage_log_enabled else None,
        knowledge=knowledge,
        contact=contact,
        history=graph.history,
    )
    return Runtime(
        packages=packages,
        reports=reports,
        names=names,
        status=status,
        advisories=advisory_service,
        ingestor=AdvisoryIngestor(advisory_store, clock=clock, bus=bus),
        feed=LiveFeed(advisory_store, bus, poll_s=settings.feed_poll_s),
        pins=PinSafeService(packages, advisories),
        audit=AuditService(
            advisory_service, packages, VerdictService(advisory_service), clock=clock
        ),
        bulk=bulk,
        verdicts=verdicts,
        malicious=MaliciousService(advisories, names, packages, verdicts),
        vulns=VulnerabilityAnswers(packages, names, advisories, advisory_service, verdicts),
        stack=StackService(
            bulk, advisory_service, packages, VerdictService(advisory_service), compat=compat
        ),
        max_lockfile_bytes=settings.max_lockfile_bytes,
        bulk_hint_threshold=settings.bulk_hint_threshold,
        public_url=settings.public_url.rstrip("/"),
        errors=errors,
        contact=contact,
        compat=compat,
        knowledge=knowledge,
        trust=trust,
        ops=ops,
        graph=graph,
        scorecard=scorecard,
        provenance=provenance,
        doctor=build_doctor(
            settings,
            engine=store.engine,
            health=store,
            cache=cache if settings.redis_url else None,
            client=client,
            feeds=advisory_store,
            names=store,
            jobs=ops.store,
            clock=clock,
            feed_outcomes=ops.ingestion.feeds if ops.ingestion else None,
        ),
        shipped=build_shipped(
            settings, store, errors, knowledge_store, names, curated_state, clock
        ),
    )


def build_graph(
    settings: Settings,
    store: SqlStore,
    cache: Cache,
    reports: ReportService,
    knowledge_store: SqlKnowledgeStore,
    clock: Any,
) -> Graph:
    """Dependency trees, their licences and the health history (issue 16, items 7-8)."""
    from pkgintel.domain.dependency_tree import Environment
    from pkgintel.services.history import HistoryService
    from pkgintel.services.tree import TreeService
    from pkgintel.services.tree_licenses import TreeLicenseService
    from pkgintel.services.usage import TRENDING_EXCLUDED_CLASSES, TRENDING_EXCLUDED_SOURCES
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
    from pkgintel.services.github_signals import GitHubSignals
    from pkgintel.services.maintainers import MaintainerService
    from pkgintel.services.quality import QualityService
    from pkgintel.services.trust_signals import TrustSignals
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
    from pkgintel.knowledge.breakages import load_breakages

    npm = adapters.get(Ecosystem.NPM)
    source: NpmConstraintSource | None = npm if hasattr(npm, "fetch_constraints") else None
    return CompatService(
        packages,
        source,
        breakages=load_breakages,
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


@asynccontextmanager
async def build_runtime(settings: Settings, **overrides: Any) -> AsyncIterator[Runtime]:
    """Open every resource, yield the `Runtime`, close everything on exit. Raises `BadSetting`
    when the database or the configured Redis cannot be reached."""
    await check_redis(settings.redis_url)
    engine, store = await prepare_database(settings)
    cache = build_cache(settings)
    client = build_http_client(settings, overrides.pop("transport", None))
    try:
        runtime = assemble(settings, store, cache, client, **overrides)
        yield runtime
        await runtime.reports.close()
        await runtime.packages.drain()
        if runtime.knowledge is not None:
            await runtime.knowledge.usage.close()
        await runtime.feed.close()
        if runtime.errors is not None:
            await runtime.errors.close()
        if runtime.contact is not None:
            await runtime.contact.close()
    finally:
        await client.aclose()
        if isinstance(cache, RedisCache | FallbackCache):
            await cache.close()
        await engine.dispose()


@asynccontextmanager
async def open_doctor(
    settings: Settings,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout_s: float | None = None,
) -> AsyncIterator[Doctor]:
    """
    The doctor of `pkgintel doctor`, on its own engine, cache and client. Unlike `build_runtime` it
    never migrates (the doctor reports the revision) and never creates a SQLite file.
    """
    from pkgintel.services.ingest_status import IngestionTracker
    from pkgintel.storage.ops import SqlOpsStore
    from pkgintel.tasks import configured_feeds

    engine = create_engine(settings.database_url)
    cache = RedisCache.from_url(settings.redis_url) if settings.redis_url else None
    client = build_http_client(settings, transport)
    store = SqlStore(engine)
    try:
        yield build_doctor(
            settings,
            engine=engine,
            health=store,
            cache=cache,
            client=client,
            feeds=SqlAdvisoryStore(engine),
            names=store,
            jobs=SqlOpsStore(engine),
            clock=_utcnow,
            timeout_s=timeout_s,
            feed_outcomes=IngestionTracker(
                SqlOpsStore(engine),
                configured=configured_feeds(settings.osv_ecosystems, settings.name_lists),
                clock=_utcnow,
            ).feeds,
        )
    finally:
        await client.aclose()
        if cache is not None:
            await cache.close()
        await engine.dispose()


def build_ops(
    settings: Settings,
    store: SqlStore,
    client: httpx.AsyncClient,
    packages: PackageService,
    names: NameService,
    reports: ReportService,
    clock: Any,
    advisory_store: SqlAdvisoryStore,
    bus: EventBus,
    *,
    invalidate: Any = None,
    usage: Any = None,
    knowledge: Any = None,
    contact: Any = None,
    history: Any = None,
) -> Ops:
    """The job system: queue, cron (registered tasks only), missions, proposals, curator."""
    from urllib.parse import quote

    from pkgintel.knowledge.missions import load_profiles, load_prompts
    from pkgintel.services.agents_by_range import AgentsByRange
    from pkgintel.services.cron import CronEntry, CronService
    from pkgintel.services.curator import CURATOR_JOB, Curator
    from pkgintel.services.ingest_status import INGEST_RETRY, IngestionTracker
    from pkgintel.services.jobs import JobKind, JobQueue
    from pkgintel.services.mission_rules import RULES
    from pkgintel.services.missions import MISSION_JOB, Budget, MissionService, Profile
    from pkgintel.services.ops import INITIAL_INGESTION
    from pkgintel.services.proposals import PROPOSAL_KINDS, ProposalService, RevisionApplier
    from pkgintel.sources.links import HttpLinkChecker
    from pkgintel.sources.llm import ChatClient
    from pkgintel.storage.ops import SqlOpsStore
    from pkgintel.tasks import (
        DESCRIPTIONS,
        TASKS,
        TaskDeps,
        bind,
        configured_feeds,
        exclusive_group,
        ingest_retry,
        initial_ingestion,
    )

    ops_store = SqlOpsStore(store.engine)
    ingestion = IngestionTracker(
        ops_store,
        configured=configured_feeds(settings.osv_ecosystems, settings.name_lists),
        clock=clock,
        retry_base_s=settings.ingest_retry_base_s,
        retry_max_s=settings.ingest_retry_max_s,
        retry_limit=settings.ingest_retry_limit,
    )

    async def popular(eco: Ecosystem, limit: int) -> list[str]:
        return [e.display_name for e in await store.list_popular_names(eco, limit)]

    deps = TaskDeps(
        client=client,
        ingestor=AdvisoryIngestor(advisory_store, clock=clock, bus=bus),
        names=names,
        packages=packages,
        osv_export_url=settings.upstream_osv_export_url,
        osv_ecosystems=tuple(settings.osv_ecosystems),
        kev_url=settings.upstream_kev_url,
        epss_url=settings.upstream_epss_url,
        name_lists=dict(settings.name_lists),
        warm_top=settings.warm_cache_top,
        popular=popular,
        invalidate=invalidate or (lambda: None),
        knowledge=knowledge,
        contact=contact,
        history=history,
        ingestion=ingestion,
        jobs=ops_store,
        job_retention_days=settings.job_retention_days,
    )
    kinds: dict[str, JobKind] = {
        slug: JobKind(run=bind(fn, deps), exclusive=exclusive_group(slug))
        for slug, fn in TASKS.items()
    }
    kinds[INITIAL_INGESTION] = JobKind(
        run=bind(initial_ingestion, deps),
        max_attempts=1,
        exclusive=exclusive_group(INITIAL_INGESTION),
    )
    kinds[INGEST_RETRY] = JobKind(
        run=bind(ingest_retry, deps), max_attempts=1, exclusive=exclusive_group(INGEST_RETRY)
    )
    queue = JobQueue(ops_store, kinds, clock=clock, max_attempts=settings.job_max_attempts)
    cron = CronService(
        queue,
        {
            slug: CronEntry(slug, settings.cron_schedules.get(slug, "off"), DESCRIPTIONS[slug])
            for slug in TASKS
        },
    )
    proposals = ProposalService(
        ops_store,
        {k: RevisionApplier(ops_store, k, clock=clock) for k in PROPOSAL_KINDS},
        clock=clock,
    )
    links = HttpLinkChecker(client)
    model = (
        ChatClient(
            client,
            base_url=settings.upstream_llm_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
        )
        if settings.upstream_llm_url and settings.llm_model
        else None
    )
    registry = {
        Ecosystem.NPM: lambda name: (
            f"{settings.upstream_npm_url.rstrip('/')}/{quote(name, safe='@')}"
        ),
        Ecosystem.PYPI: lambda name: (
            f"{settings.upstream_pypi_url.rstrip('/')}/pypi/{quote(name)}/json"
        ),
    }
    budget = Budget(
        ops_store,
        tokens_per_day=settings.mission_tokens_per_day,
        tokens_per_month=settings.mission_tokens_per_month,
        requests_per_day=settings.mission_requests_per_day,
        requests_per_month=settings.mission_requests_per_month,
        clock=clock,
    )
    missions = MissionService(
        ops_store,
        queue,
        proposals,
        budget,
        profiles=[Profile.from_data(p) for p in load_profiles()],
        rules=RULES,
        prompts=load_prompts(),
        model=model,
        tools={
            "packages": packages,
            "recent": ops_store.recent_snapshots,
            "popular": popular,
            "registry_url": lambda eco, name: registry[eco](name),
            "links": links,
        },
        clock=clock,
    )
    curator = Curator(
        ops_store,
        queue,
        proposals,
        links,
        lambda eco, name: reports.get_report(eco, name, None),
        enabled=settings.curator_enabled,
        interval_s=settings.curator_interval_s,
        min_health=settings.curator_min_health,
        clock=clock,
    )
    kinds[MISSION_JOB] = missions.job_kind()
    kinds[CURATOR_JOB] = curator.job_kind()
    return Ops(
        store=ops_store,
        queue=queue,
        cron=cron,
        missions=missions,
        proposals=proposals,
        curator=curator,
        agents=AgentsByRange(usage),
        admin_token=settings.admin_token,
        ingestion=ingestion,
    )


def _utcnow() -> datetime:
    """The job system's clock is always the real one (leases and schedules need time to pass)."""
    return datetime.now(UTC)
