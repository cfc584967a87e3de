"""
The composition root: reads `Settings`, builds the concrete adapters, stores and caches, and yields a
`Runtime` of services. Nothing else names concrete classes or reads settings.

The upstream client and adapters are built in `runtime/adapters.py`, the capability services in
`runtime/services.py`, the job system in `runtime/operations.py`.
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

from pkgintel.cache.base import Cache
from pkgintel.cache.fallback import FallbackCache
from pkgintel.cache.memory import MemoryCache
from pkgintel.cache.redis_cache import RedisCache
from pkgintel.config import Settings
from pkgintel.events.base import EventBus
from pkgintel.events.memory import MemoryBus
from pkgintel.events.redis_bus import RedisBus
from pkgintel.runtime.adapters import build_adapters, build_http_client
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.doctor_wiring import build_doctor
from pkgintel.runtime.operations import build_ops, utcnow
from pkgintel.runtime.reachability import check_database, check_redis
from pkgintel.runtime.services import (
    build_artifact_services,
    build_compat_service,
    build_contact_service,
    build_error_service,
    build_graph,
    build_knowledge,
    build_shipped,
    build_trust_signals,
)
from pkgintel.runtime.usage import build_usage_services
from pkgintel.services.accounts.service import build_accounts
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.advisories.live_feed import LiveFeed
from pkgintel.services.advisories.malicious import MaliciousService
from pkgintel.services.advisories.pin_safe import PinSafeService
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.services.advisories.verdicts import VerdictService, VulnerabilityAnswers
from pkgintel.services.audit.bulk import BulkCheckService
from pkgintel.services.audit.scan import AuditService
from pkgintel.services.audit.stack import StackService
from pkgintel.services.knowledge.bugs import BugService
from pkgintel.services.knowledge.load_state import LoadState
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.doctor import Doctor
from pkgintel.services.operations.status import StatusService
from pkgintel.services.packages.service import PackageService
from pkgintel.services.reports.deprecations import CuratedDeprecations
from pkgintel.services.reports.service import ReportService
from pkgintel.sources.osv_api import OsvApiClient
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import SqlStore, create_engine

logger = logging.getLogger(__name__)


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

    async def report_inputs() -> tuple[object, int]:
        """What a report is built from that can change while its registry data does not: the
        advisory data loaded (any process's ingestion changes the coverage token) and the curated
        rows, bugs and harvest states written through this process."""
        return (await advisory_service.coverage()).token, knowledge_store.generation

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
        memo_inputs=None if "advisories" in overrides else report_inputs,
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
        utcnow,
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
        accounts=build_accounts(settings, store.engine, clock),
        usage_services=build_usage_services(
            settings,
            store.engine,
            cache,
            client,
            usage=knowledge.usage if settings.usage_log_enabled else None,
            names=names,
            packages=packages,
            clock=clock,
        ),
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
        if runtime.usage_services is not None:
            await runtime.usage_services.close()
        if runtime.accounts is not None:
            await runtime.accounts.close()
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
    from pkgintel.runtime.tasks import configured_feeds
    from pkgintel.services.advisories.ingest_status import IngestionTracker
    from pkgintel.storage.ops import SqlOpsStore

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
            clock=utcnow,
            timeout_s=timeout_s,
            feed_outcomes=IngestionTracker(
                SqlOpsStore(engine),
                configured=configured_feeds(settings.osv_ecosystems, settings.name_lists),
                clock=utcnow,
            ).feeds,
        )
    finally:
        await client.aclose()
        if cache is not None:
            await cache.close()
        await engine.dispose()
