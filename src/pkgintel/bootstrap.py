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
from pkgintel.services.audit import AuditService
from pkgintel.services.bulk import BulkCheckService
from pkgintel.services.live_feed import LiveFeed
from pkgintel.services.names import NameService
from pkgintel.services.packages import PackageService
from pkgintel.services.pin_safe import PinSafeService
from pkgintel.services.reports import ReportService
from pkgintel.services.runtime import Runtime
from pkgintel.services.status import StatusService
from pkgintel.sources.osv_api import OsvApiClient
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine
from pkgintel.upstream_guard import BreakerPolicy, GuardedTransport

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
    """The one shared upstream client: explicit timeouts, a User-Agent, connection pooling, and
    per-host circuit breakers and concurrency caps (`upstream_guard.GuardedTransport`)."""
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
    packages = PackageService(
        adapters,
        cache,
        store,
        ttl_s=settings.cache_ttl_s,
        stale_s=settings.cache_stale_s,
        not_found_ttl_s=settings.not_found_ttl_s,
        on_seen=names.record_seen,
    )
    clock = overrides.get("clock") or (lambda: datetime.now(UTC))
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
    reports = ReportService(
        packages,
        names,
        advisories,
        **({"clock": overrides["clock"]} if "clock" in overrides else {}),
    )
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
        await runtime.feed.close()
    finally:
        await client.aclose()
        if isinstance(cache, RedisCache):
            await cache.close()
        await engine.dispose()
