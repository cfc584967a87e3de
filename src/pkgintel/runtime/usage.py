"""
`UsageServices`: the services of issue 30's public figures and community endpoints (stats,
savings, GDPR, hallucination benchmark, anomaly reports, page views, translation), and
`build_usage_services`, which wires them from the settings and the runtime's shared resources.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.cache.base import Cache
from pkgintel.config import Settings
from pkgintel.domain.errors import PackageNotFound, PkgIntelError, StorageError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.privacy import Retention
from pkgintel.services.community.anomaly import AnomalyService
from pkgintel.services.community.tracking import PageTracker
from pkgintel.services.names.service import NameService
from pkgintel.services.operations.usage import UsageLog
from pkgintel.services.packages.service import PackageService
from pkgintel.services.usage.figures import UsageFiguresService
from pkgintel.services.usage.hallucinations import HallucinationBenchmark
from pkgintel.services.usage.privacy import PrivacyService
from pkgintel.sources.translate import Translator
from pkgintel.storage.benchmark import SqlBenchmarkStore
from pkgintel.storage.client_rows import SqlClientRows
from pkgintel.storage.community import SqlCommunityStore
from pkgintel.storage.usage_reads import SqlUsageReads


@dataclass(frozen=True, slots=True)
class UsageServices:
    figures: UsageFiguresService
    privacy: PrivacyService
    benchmark: HallucinationBenchmark
    anomalies: AnomalyService
    tracker: PageTracker
    translator: Translator

    async def close(self) -> None:
        await self.anomalies.close()


def live_exists(packages: PackageService) -> Callable[[Ecosystem, str], Awaitable[bool | None]]:
    """Whether the live registry has a name: True, False (404), None (it could not say)."""

    async def ask(ecosystem: Ecosystem, name: str) -> bool | None:
        try:
            await packages.get_snapshot(ecosystem, name)
        except PackageNotFound:
            return False
        except PkgIntelError:
            return None
        return True

    return ask


def build_usage_services(
    settings: Settings,
    engine: AsyncEngine,
    cache: Cache,
    client: httpx.AsyncClient,
    *,
    usage: UsageLog | None,
    names: NameService,
    packages: PackageService,
    clock: Callable[[], datetime],
) -> UsageServices:
    from pkgintel.cache.rate_gate import LimitsGate

    flush = usage.flush if usage is not None else None
    reads = SqlUsageReads(engine)
    if usage is not None:
        # Names asked for while unknown, for the slopsquat check once they are registered.
        usage.watch_unknown(names.first_asked.note)

        async def first_asked() -> dict[tuple[str, str], datetime]:
            with contextlib.suppress(StorageError):
                await usage.flush()
            return await reads.first_asked()

        names.first_asked.attach(first_asked)
    community = SqlCommunityStore(engine)
    return UsageServices(
        figures=UsageFiguresService(reads, cache, flush=flush, clock=clock),
        privacy=PrivacyService(
            SqlClientRows(engine),
            flush=flush,
            retention=Retention(
                settings.usage_retention_days,
                settings.contact_retention_days,
                settings.anomaly_retention_days,
            ),
            public_url=settings.public_url,
        ),
        benchmark=HallucinationBenchmark(
            reads,
            SqlBenchmarkStore(engine),
            names,
            live_exists=live_exists(packages),
            flush=flush,
            clock=clock,
        ),
        anomalies=AnomalyService(
            community,
            gate=LimitsGate(
                settings.anomaly_limit, redis_url=settings.redis_url, namespace="anomaly"
            ),
            retention_days=settings.anomaly_retention_days,
            views_retention_days=settings.usage_retention_days,
            clock=clock,
        ),
        tracker=PageTracker(community, clock=clock),
        translator=Translator(
            client,
            cache,
            base_url=settings.upstream_translate_url,
            api_key=settings.translate_api_key,
            max_chars=settings.translate_max_chars,
            ttl_s=settings.translate_cache_ttl_s,
        ),
    )
