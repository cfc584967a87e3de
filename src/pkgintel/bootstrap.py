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
from pkgintel.cache.memory import MemoryCache
from pkgintel.cache.redis_cache import RedisCache
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.events.base import EventBus
from pkgintel.events.memory import MemoryBus
from pkgintel.events.redis_bus import RedisBus
from pkgintel.services.advisories import AdvisoryService
from pkgintel.services.advisory_ingest import AdvisoryIngestor
from pkgintel.services.alternatives import AlternativesService
from pkgintel.services.audit import AuditService
from pkgintel.services.breaking import BreakingService
from pkgintel.services.bugs import BugService
from pkgintel.services.bulk import BulkCheckService
from pkgintel.services.compare import CompareService
from pkgintel.services.discovery import DiscoveryService
from pkgintel.services.harvest import HarvestService
from pkgintel.services.knowledge import Knowledge
from pkgintel.services.live_feed import LiveFeed
from pkgintel.services.names import NameService
from pkgintel.services.packages import PackageService
from pkgintel.services.pin_safe import PinSafeService
from pkgintel.services.reports import ReportService
from pkgintel.services.runtime import Runtime
from pkgintel.services.status import StatusService
from pkgintel.services.usage import UsageLog
from pkgintel.sources.github import GitHubClient
from pkgintel.sources.osv_api import OsvApiClient
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine

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
        },
    }


def build_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The one shared upstream client: explicit timeouts, a User-Agent, connection pooling."""
    timeout = httpx.Timeout(
        settings.upstream_timeout_s, connect=min(5.0, settings.upstream_timeout_s)
    )
    return httpx.AsyncClient(
        timeout=timeout,
        headers={"User-Agent": USER_AGENT},
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=20),
        follow_redirects=True,
        transport=transport,
    )


def build_cache(settings: Settings) -> Cache:
    if settings.redis_url:
        return RedisCache.from_url(settings.redis_url)
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
    """Engine + store, migrated when `migrate_on_start` is set."""
    engine = create_engine(settings.database_url)
    if settings.migrate_on_start:
        await upgrade(engine)
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
        osv_api=OsvApiClient(client, settings.upstream_osv_api_url)
        if settings.osv_api_fallback
        else None,
        api_ttl_s=settings.cache_ttl_s,
    )
    advisories = overrides.get("advisories") or advisory_service
    bugs = BugService(knowledge_store)
    reports = ReportService(
        packages,
        names,
        advisories,
        **({"clock": overrides["clock"]} if "clock" in overrides else {}),
        known_issues=bugs.known_issues,
    )
    knowledge = build_knowledge(
        settings, client, knowledge_store, store, packages, reports, bugs, adapters, clock
    )
    seen_hooks.append(knowledge.discovery.record_seen)
    status = StatusService(store, cache, store, supported=tuple(e.value for e in adapters))
    return Runtime(
        packages=packages,
        reports=reports,
        names=names,
        status=status,
        advisories=advisory_service,
        ingestor=AdvisoryIngestor(advisory_store, clock=clock, bus=bus),
        feed=LiveFeed(advisory_store, bus, poll_s=settings.feed_poll_s),
        pins=PinSafeService(packages, advisories),
        audit=AuditService(advisory_service, packages),
        bulk=BulkCheckService(names, advisory_service),
        max_lockfile_bytes=settings.max_lockfile_bytes,
        bulk_hint_threshold=settings.bulk_hint_threshold,
        public_url=settings.public_url.rstrip("/"),
        knowledge=knowledge,
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
    """Open every resource, yield the `Runtime`, close everything on exit."""
    engine, store = await prepare_database(settings)
    cache = build_cache(settings)
    client = build_http_client(settings, overrides.pop("transport", None))
    try:
        runtime = assemble(settings, store, cache, client, **overrides)
        yield runtime
        await runtime.packages.drain()
        if runtime.knowledge is not None:
            await runtime.knowledge.usage.close()
        await runtime.feed.close()
    finally:
        await client.aclose()
        if isinstance(cache, RedisCache):
            await cache.close()
        await engine.dispose()
