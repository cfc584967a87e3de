"""
`PackageService`: registry data for one package, through cache → registry → stored copy.

Flow of `get_snapshot`:
1. Cache hit, fresh → served (`hit`).
2. Cache hit, past freshness but inside the stale-while-revalidate window → served (`revalidating`)
   while one background task refreshes it.
3. Miss → the registry and the downloads source are called concurrently (one in-flight fetch per
   key, shared by concurrent callers). On success the result is cached and stored (`miss`).
4. Registry failing (timeout, 5xx, bad body, circuit open) → the last stored copy, marked
   (`stale`); for a `version` with no copy of its own, the latest copy when it lists that version;
   with no copy, `RegistryUnavailable` (the API answers 503 with Retry-After).
An upstream 404 is remembered for `not_found_ttl_s` so a burst of lookups for a missing name does not
hammer the registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from pkgintel.cache.base import Cache, CacheEntry, CacheUnavailable
from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import (
    EcosystemNotSupported,
    PackageNotFound,
    RegistryError,
    RegistryUnavailable,
)
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.ecosystems.base import RegistryAdapter
from pkgintel.services.packages.codec import decode_snapshot, encode_snapshot
from pkgintel.storage.base import SnapshotStore
from pkgintel.storage.outage import database
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

logger = logging.getLogger(__name__)

_NOT_FOUND = b"\x00404"
DECODED_MAX = 2_048
"""Decoded cached snapshots kept (the most recently served packages)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Registry data of one package as served, with provenance."""

    info: PackageInfo
    weekly_downloads: int | None
    fetched_at: datetime
    sources: tuple[SourceStatus, ...]
    cache_status: str
    """`hit`, `miss`, `revalidating` (served while refreshed) or `stale` (upstream failing)."""


class PackageService:
    """Registry data with caching, single-flight fetches and a stale fallback. See the module docstring."""

    def __init__(
        self,
        adapters: Mapping[Ecosystem, RegistryAdapter],
        cache: Cache,
        store: SnapshotStore,
        *,
        ttl_s: float,
        stale_s: float,
        not_found_ttl_s: float,
        on_seen: Callable[[PackageInfo, int | None], Awaitable[None]] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._adapters = adapters
        self._cache = cache
        self._store = store
        self._ttl = ttl_s
        self._stale = stale_s
        self._not_found_ttl = not_found_ttl_s
        self._on_seen = on_seen
        self._clock = clock
        self._flights = SharedFetches[Snapshot]()
        self._decoded: MemoryLRU[str, tuple[tuple[int, int], Snapshot]] = MemoryLRU(DECODED_MAX)
        self._background: set[asyncio.Task[None]] = set()

    def supports(self, ecosystem: Ecosystem) -> bool:
        """True when live reports can be built for `ecosystem`."""
        return ecosystem in self._adapters

    @property
    def supported(self) -> tuple[Ecosystem, ...]:
        return tuple(self._adapters)

    def _adapter(self, ecosystem: Ecosystem) -> RegistryAdapter:
        adapter = self._adapters.get(ecosystem)
        if adapter is None:
            raise EcosystemNotSupported(ecosystem.value)
        return adapter

    @staticmethod
    def _key(ecosystem: Ecosystem, name: str, version: str | None) -> str:
        return f"pkg:{ecosystem.value}:{normalise_name(ecosystem, name)}:{version or ''}"

    async def get_snapshot(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> Snapshot:
        """
        Registry data for `name` (dependencies of `version`, or of the latest).

        Raises `EcosystemNotSupported`, `PackageNotFound`, `VersionNotFound`, and
        `RegistryUnavailable` when the registry fails and no copy is stored.
        """
        adapter = self._adapter(ecosystem)
        key = self._key(ecosystem, name, version)
        entry = await self._cache_get(key)
        now = self._clock()
        if entry is not None:
            if entry.value == _NOT_FOUND:
                raise PackageNotFound(ecosystem.value, name)
            snap = self._from_bytes(key, entry.value, adapter)
            if snap is not None:
                if entry.is_fresh(now):
                    return replace(snap, cache_status="hit")
                self._refresh_in_background(key, adapter, name, version)
                return replace(snap, cache_status="revalidating")
        return await self._fetch_shared(key, adapter, name, version)

    async def _cache_get(self, key: str) -> CacheEntry | None:
        try:
            return await self._cache.get(key)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable on get: %s", exc)
            return None

    async def _cache_set(self, key: str, value: bytes, ttl: float, stale: float) -> None:
        try:
            await self._cache.set(key, value, ttl_s=ttl, stale_s=stale)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable on set: %s", exc)

    def _from_bytes(self, key: str, raw: bytes, adapter: RegistryAdapter) -> Snapshot | None:
        """The cached bytes decoded; the decoding of the same bytes (same length and hash) under
        the same key is reused, so it is never older than the cache."""
        digest = (len(raw), hash(raw))
        held = self._decoded.get(key)
        if held is not None and held[0] == digest:
            return held[1]
        try:
            info, downloads, dl_status, fetched = decode_snapshot(raw)
        except (ValueError, KeyError, TypeError):
            logger.warning("dropping an undecodable cached snapshot")
            return None
        snap = Snapshot(
            info,
            downloads,
            fetched,
            self._sources(adapter, fetched, dl_status, SourceState.OK, secondary=info.sources),
            "hit",
        )
        self._decoded.set(key, (digest, snap))
        return snap

    @staticmethod
    def _sources(
        adapter: RegistryAdapter,
        fetched: datetime,
        downloads_state: str,
        registry_state: SourceState,
        detail: str | None = None,
        *,
        secondary: tuple[SourceStatus, ...] = (),
    ) -> tuple[SourceStatus, ...]:
        out = [SourceStatus(adapter.registry_source, "registry", registry_state, fetched, detail)]
        for src in secondary:
            if src.status is SourceState.UNAVAILABLE:
                out.append(src)
            else:
                out.append(replace(src, status=registry_state, fetched_at=fetched))
        if adapter.downloads_source is not None:
            state = SourceState(downloads_state)
            if state is SourceState.OK and registry_state is SourceState.STALE:
                state = SourceState.STALE
            out.append(
                SourceStatus(
                    adapter.downloads_source,
                    "downloads",
                    state,
                    fetched if state is not SourceState.UNAVAILABLE else None,
                    None
                    if state is not SourceState.UNAVAILABLE
                    else "downloads source did not answer",
                )
            )
        return tuple(out)

    async def _fetch_shared(
        self, key: str, adapter: RegistryAdapter, name: str, version: str | None
    ) -> Snapshot:
        return await self._flights.get(key, lambda: self._fetch(key, adapter, name, version))

    async def _fetch(
        self, key: str, adapter: RegistryAdapter, name: str, version: str | None
    ) -> Snapshot:
        ecosystem = adapter.ecosystem
        store_key = normalise_name(ecosystem, name)
        info_task = asyncio.ensure_future(adapter.fetch_package(name, version=version))
        dl_task = asyncio.ensure_future(adapter.fetch_weekly_downloads(name))
        try:
            info = await info_task
        except BaseException as exc:
            # Whatever ends the registry fetch (a missing package or version, an upstream failure,
            # the caller's cancellation), the downloads lookup beside it is not needed: cancelled,
            # and its own failure seen, never "Task exception was never retrieved".
            abandon(dl_task)
            if isinstance(exc, PackageNotFound):
                await self._cache_set(key, _NOT_FOUND, self._not_found_ttl, 0)
            elif isinstance(exc, RegistryError):
                return await self._stored_instead(adapter, name, store_key, version, exc)
            raise
        downloads = None
        dl_status = SourceState.OK.value
        try:
            downloads = await dl_task
        except (RegistryError, asyncio.CancelledError) as exc:
            logger.info("downloads unavailable for %s/%s: %s", ecosystem.value, name, exc)
            dl_status = SourceState.UNAVAILABLE.value
        fetched = datetime.fromtimestamp(self._clock(), UTC)
        raw = encode_snapshot(info, downloads, dl_status, fetched)
        await self._cache_set(key, raw, self._ttl, self._stale)
        try:
            await self._store.save_snapshot(ecosystem, store_key, version or "", raw, fetched)
            if self._on_seen is not None:
                await self._on_seen(info, downloads)
        except Exception as exc:  # a failed write must not fail the answer already in hand
            if database.classify(exc) is None:  # an outage is said once, not per package
                logger.exception("could not store snapshot of %s/%s", ecosystem.value, name)
        return Snapshot(
            info,
            downloads,
            fetched,
            self._sources(adapter, fetched, dl_status, SourceState.OK, secondary=info.sources),
            "miss",
        )

    async def _stored_instead(
        self,
        adapter: RegistryAdapter,
        name: str,
        store_key: str,
        version: str | None,
        exc: RegistryError,
    ) -> Snapshot:
        """The stored copy answered (`stale`) when the registry failed with `exc`; re-raises it as
        `RegistryUnavailable` when nothing is stored."""
        ecosystem = adapter.ecosystem
        logger.info("registry failed for %s/%s: %s", ecosystem.value, name, exc.message)
        stored = await self._store.load_snapshot(ecosystem, store_key, version or "")
        note = ""
        if stored is None and version:
            # The copy stored for the latest version lists every release: when it holds
            # `version`, answer from it (its dependencies are those it names).
            latest = await self._store.load_snapshot(ecosystem, store_key, "")
            if latest is not None and decode_snapshot(latest[0])[0].release(version):
                stored = latest
                note = (
                    f" (the stored copy lists {version}; dependencies are of the version it names)"
                )
        if stored is None:
            if isinstance(exc, RegistryUnavailable):
                raise exc
            raise RegistryUnavailable(
                ecosystem.value, str(exc), reason=exc.reason, source=adapter.registry_source
            ) from exc
        info, downloads, dl_status, fetched = decode_snapshot(stored[0])
        detail = (
            f"registry failed ({exc.reason}); serving the copy fetched at {fetched.isoformat()}"
            + note
        )
        return Snapshot(
            info,
            downloads,
            fetched,
            self._sources(
                adapter, fetched, dl_status, SourceState.STALE, detail, secondary=info.sources
            ),
            "stale",
        )

    async def stored_many(
        self, ecosystem: Ecosystem, names: Sequence[str]
    ) -> dict[str, PackageInfo]:
        """Registry data of many packages from the database only (never upstream): normalised name →
        info, for the packages a report or fetch has stored; absent names are simply left out."""
        keys = [normalise_name(ecosystem, n) for n in names]
        out: dict[str, PackageInfo] = {}
        for key, (raw, _) in (await self._store.load_snapshots(ecosystem, keys)).items():
            try:
                out[key] = decode_snapshot(raw)[0]
            except (ValueError, KeyError, TypeError):
                continue
        return out

    def _refresh_in_background(
        self, key: str, adapter: RegistryAdapter, name: str, version: str | None
    ) -> None:
        if self._flights.running(key):
            return

        async def _run() -> None:
            with contextlib.suppress(Exception):
                await self._fetch_shared(key, adapter, name, version)

        task = asyncio.get_running_loop().create_task(_run())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def is_cached(self, ecosystem: Ecosystem, name: str, version: str | None = None) -> bool:
        """True when a usable cached copy (fresh or inside its stale window) would answer
        `get_snapshot` without calling the registry (used to bound upstream fan-out)."""
        return await self._cache_get(self._key(ecosystem, name, version)) is not None

    async def drain(self) -> None:
        """Wait for background refreshes (used at shutdown and by tests)."""
        while self._background:
            await asyncio.gather(*list(self._background), return_exceptions=True)
