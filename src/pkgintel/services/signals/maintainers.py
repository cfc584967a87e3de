"""
`MaintainerService`: `/api/maintainers/{ecosystem}/{package}` — who can publish a package, who did
publish each release, bus factor, dominance, ownership changes and alerts (`domain/signals/maintainers.py`).

Current accounts come from the package snapshot (`PackageService`, the registry's owners or
maintainers); the per-release history from the adapter's optional `PublisherHistorySource`
capability (npm, crates.io), fetched concurrently with the snapshot and cached like package data.
The snapshot is required (no registry data and no stored copy → `RegistryUnavailable`, a 503); the
history is not: when it fails, the figures that need it are "unavailable" with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import PackageNotFound, RegistryError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.maintainers import (
    MaintainerAnalysis,
    Publication,
    PublisherHistory,
    analyse_maintainers,
)
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.ecosystems.optional import PublisherHistorySource
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.transport.memo import SharedFetches

logger = logging.getLogger(__name__)

_NOT_FOUND = b"\x00404"


@dataclass(frozen=True, slots=True)
class HistoryResult:
    history: PublisherHistory | None
    status: SourceStatus | None
    """None when the registry has no per-release publisher data at all."""
    reason: str | None


@dataclass(frozen=True, slots=True)
class MaintainersAnswer:
    ecosystem: Ecosystem
    package: str
    latest_version: str
    analysis: MaintainerAnalysis
    sources: tuple[SourceStatus, ...]
    cache_status: str


def _encode(history: PublisherHistory, fetched_at: datetime) -> bytes:
    return orjson.dumps(
        {
            "s": history.source,
            "at": fetched_at.isoformat(),
            "p": [
                [
                    p.version,
                    p.published_at.isoformat() if p.published_at else None,
                    p.publisher,
                    list(p.maintainers) if p.maintainers is not None else None,
                    p.attested,
                    p.trusted_publisher,
                ]
                for p in history.publications
            ],
            "c": {k: v.isoformat() for k, v in history.account_created.items()},
        }
    )


def _decode(raw: bytes) -> tuple[PublisherHistory, datetime]:
    doc = orjson.loads(raw)
    pubs = tuple(
        Publication(
            v,
            datetime.fromisoformat(at) if at else None,
            who,
            tuple(m) if m is not None else None,
            att,
            tp,
        )
        for v, at, who, m, att, tp in doc["p"]
    )
    created = {k: datetime.fromisoformat(v) for k, v in doc.get("c", {}).items()}
    return PublisherHistory(doc["s"], pubs, created), datetime.fromisoformat(doc["at"])


class MaintainerService:
    """See the module docstring."""

    def __init__(
        self,
        packages: PackageService,
        adapters: Mapping[Ecosystem, RegistryAdapter],
        cache: Cache,
        *,
        ttl_s: float = 21600,
        stale_s: float = 86400,
        not_found_ttl_s: float = 600,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._packages = packages
        self._not_found_ttl = not_found_ttl_s
        self._adapters = adapters
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._clock = clock
        self._flights = SharedFetches[HistoryResult]()
        self._background: set[asyncio.Future[HistoryResult]] = set()

    async def history(self, ecosystem: Ecosystem, name: str) -> HistoryResult:
        """Per-release publishers of `name` (cached; one fetch in flight per package). Never raises
        for upstream failures; `PackageNotFound` from the history source becomes "unavailable"."""
        adapter = self._adapters.get(ecosystem)
        if not isinstance(adapter, PublisherHistorySource):
            registry = adapter.registry_source if adapter is not None else ecosystem.value
            return HistoryResult(None, None, f"{registry} does not say who published each release")
        key = f"pubs:{ecosystem.value}:{normalise_name(ecosystem, name)}"
        return await self._flights.get(key, lambda: self._history(key, adapter, name))

    async def _history(self, key: str, adapter: PublisherHistorySource, name: str) -> HistoryResult:
        src = adapter.publishers_source
        now = self._clock()
        entry = None
        try:
            entry = await self._cache.get(key)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)
        cached = None
        if entry is not None and entry.value == _NOT_FOUND:
            why = f"{src} does not know this package"
            return HistoryResult(
                None, SourceStatus(src, "publishers", SourceState.UNAVAILABLE, None, why), why
            )
        if entry is not None:
            try:
                cached = _decode(entry.value)
            except (ValueError, KeyError, TypeError):
                cached = None
            if cached is not None and entry.is_fresh(time.time()):
                return HistoryResult(
                    cached[0], SourceStatus(src, "publishers", SourceState.OK, cached[1]), None
                )
        try:
            history = await adapter.fetch_publishers(name)
        except PackageNotFound:
            # Remembered like the package service's 404s, so repeated lookups stay cheap.
            with contextlib.suppress(CacheUnavailable):
                await self._cache.set(key, _NOT_FOUND, ttl_s=self._not_found_ttl, stale_s=0)
            why = f"{src} does not know this package"
            return HistoryResult(
                None, SourceStatus(src, "publishers", SourceState.UNAVAILABLE, None, why), why
            )
        except RegistryError as exc:
            reason = exc.reason
            if cached is not None:
                detail = (
                    f"source failed ({reason}); serving the copy fetched at {cached[1].isoformat()}"
                )
                return HistoryResult(
                    cached[0],
                    SourceStatus(src, "publishers", SourceState.STALE, cached[1], detail),
                    None,
                )
            why = f"{src} did not answer ({reason})"
            return HistoryResult(
                None, SourceStatus(src, "publishers", SourceState.UNAVAILABLE, None, why), why
            )
        try:
            await self._cache.set(key, _encode(history, now), ttl_s=self._ttl, stale_s=self._stale)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)
        return HistoryResult(history, SourceStatus(src, "publishers", SourceState.OK, now), None)

    def prefetch(self, ecosystem: Ecosystem, name: str) -> asyncio.Future[HistoryResult]:
        """Start `history` now (so it runs beside the snapshot fetch); the task is kept until done
        even when the caller stops caring (an unknown package), and never raises upstream errors."""
        task = asyncio.ensure_future(self.history(ecosystem, name))
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def analyse(self, snapshot: Snapshot, result: HistoryResult) -> MaintainerAnalysis:
        """The analysis of an already fetched snapshot and history (used by the report too)."""
        adapter = self._adapters.get(snapshot.info.ecosystem)
        registry = adapter.registry_source if adapter is not None else snapshot.info.ecosystem.value
        return analyse_maintainers(
            snapshot.info.maintainers,
            result.history,
            latest_version=snapshot.info.latest_version,
            registry=registry,
            history_unavailable=result.reason,
        )

    async def get_maintainers(self, ecosystem: Ecosystem, name: str) -> MaintainersAnswer:
        """
        The maintainer picture of `name`. Raises `PackageNotFound`, `EcosystemNotSupported` and
        `RegistryUnavailable` (registry down, nothing stored) like `PackageService.get_snapshot`.
        """
        history_task = self.prefetch(ecosystem, name)
        snapshot = await self._packages.get_snapshot(ecosystem, name)
        result = await history_task
        sources = tuple(s for s in snapshot.sources if s.kind != "downloads")
        if result.status is not None:
            sources += (result.status,)
        return MaintainersAnswer(
            ecosystem,
            snapshot.info.name,
            snapshot.info.latest_version,
            self.analyse(snapshot, result),
            sources,
            snapshot.cache_status,
        )
