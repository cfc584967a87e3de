"""
The job system's wiring (`build_ops`): queue, cron (registered tasks only), missions, proposals,
curator and the ingestion tracker, over the ops store. Its clock (`utcnow`) is always the real one:
leases and schedules need time to pass.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.events.base import EventBus
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.ops import Ops
from pkgintel.services.packages.service import PackageService
from pkgintel.services.reports.service import ReportService
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.sql import SqlStore


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
    from pkgintel.runtime.tasks import (
        DESCRIPTIONS,
        TASKS,
        TaskDeps,
        bind,
        configured_feeds,
        exclusive_group,
        ingest_retry,
        initial_ingestion,
    )
    from pkgintel.services.advisories.ingest_status import INGEST_RETRY, IngestionTracker
    from pkgintel.services.operations.agents_by_range import AgentsByRange
    from pkgintel.services.operations.cron import CronEntry, CronService
    from pkgintel.services.operations.curator import CURATOR_JOB, Curator
    from pkgintel.services.operations.jobs import JobKind, JobQueue
    from pkgintel.services.operations.mission_rules import RULES
    from pkgintel.services.operations.missions import MISSION_JOB, Budget, MissionService, Profile
    from pkgintel.services.operations.ops import INITIAL_INGESTION
    from pkgintel.services.operations.proposals import (
        PROPOSAL_KINDS,
        ProposalService,
        RevisionApplier,
    )
    from pkgintel.sources.links import HttpLinkChecker
    from pkgintel.sources.llm import ChatClient
    from pkgintel.storage.ops import SqlOpsStore

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


def utcnow() -> datetime:
    """The job system's clock is always the real one (leases and schedules need time to pass)."""
    return datetime.now(UTC)
