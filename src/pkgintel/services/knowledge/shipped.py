"""
`ShippedKnowledge`: what the package ships, put into the database on a first start and after an
upgrade, with no network.

| set | answers read it from | loaded here |
|---|---|---|
| error-to-fix (`knowledge/errors/*.yaml`) | the database (`ErrorService`) | when the stored revision differs |
| alternatives, migration paths, breaking changes (`knowledge/curated/*.yaml`) | the database (`KnowledgeStore.curated`) | same |
| popularity snapshot (`knowledge/popularity/`) | the name index (npm, PyPI) | when the ecosystem has no index, or an older snapshot |
| past compromises, compatibility matrix, slopsquats, stdlib and import names, install confusions | the package files | never needed |
| known bugs | issues harvested from trackers | nothing is shipped |

The curated revision (`knowledge.revision.curated_revision`) is stored with each load under
`REVISION_KEY`; a start whose revision matches does one query and nothing else. A registry name
list loaded later (`ingest-names`) replaces the snapshot as the index's source and takes over its
rows (`SqlStore.upsert_names`); the snapshot is never loaded over such an index.

Two processes starting together: each load runs inside a named section (`lock`: a PostgreSQL
advisory lock) and checks again inside it, so the second finds the work done. Where no lock is
taken (SQLite), both loads are idempotent; one that fails counts as done when the stored revision
is the shipped one afterwards.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Protocol

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.knowledge.errors import KnowledgeLoad
from pkgintel.domain.names.rules import NameEntry, NameIndexState
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import CuratedKnowledge
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from pkgintel.services.knowledge.error_resolver import ErrorService
from pkgintel.services.knowledge.load_state import LoadState
from pkgintel.services.names.service import NameService
from pkgintel.storage.base import KnowledgeStore

logger = logging.getLogger(__name__)

REVISION_KEY: Final = "knowledge.curated_revision"
"""The `ops_setting` row holding the curated revision last loaded (with its time and counts)."""


class SettingStore(Protocol):
    """Small persistent settings (`storage.ops_base.OpsStore`'s setting methods)."""

    async def get_setting(self, key: str) -> Any: ...

    async def set_setting(self, key: str, value: Any, *, now: datetime) -> None: ...


@dataclass(frozen=True, slots=True)
class PopularitySource:
    """The shipped popularity snapshot, as the loader needs it."""

    label: str
    """The name index source it is recorded under (`shipped snapshot <date>`)."""
    ecosystems: tuple[Ecosystem, ...]
    entries: Callable[[Ecosystem], Iterable[NameEntry]]


@dataclass(slots=True)
class ShippedLoad:
    """What one `ensure` did. `curated`: `current` (nothing to do), `loaded`, `failed` or
    `stopped` (shutdown first); `popularity`: per ecosystem `loaded`, `kept <source>`,
    `failed: <why>` or `stopped ...`."""

    curated: str = "current"
    counts: dict[str, int] = field(default_factory=dict)
    errors: KnowledgeLoad | None = None
    """What the error-to-fix load changed (when `curated` is `loaded`)."""
    popularity: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


class ShippedKnowledge:
    """See the module docstring. `state` is shared with `ErrorService` (its source status)."""

    def __init__(
        self,
        *,
        errors: ErrorService,
        knowledge_store: KnowledgeStore,
        settings: SettingStore,
        names: NameService,
        curated: Callable[[], CuratedKnowledge],
        revision: Callable[[], str],
        popularity: Callable[[], PopularitySource] | None,
        lock: Callable[[str], AbstractAsyncContextManager[None]],
        state: LoadState,
        clock: Callable[[], datetime],
    ) -> None:
        self._errors = errors
        self._knowledge_store = knowledge_store
        self._settings = settings
        self._names = names
        self._curated = curated
        self._revision = revision
        self._popularity = popularity
        self._lock = lock
        self.state = state
        self._clock = clock
        self._guard = asyncio.Lock()
        self._stopping = False

    def stop(self) -> None:
        """Ask a running `ensure` to end at the next step or batch boundary (shutdown). A load is
        never cut inside a transaction; an index load stopped half-way is not marked loaded, so
        the next start loads it again (the writes are idempotent)."""
        self._stopping = True

    async def stored_revision(self) -> str | None:
        stored = await self._settings.get_setting(REVISION_KEY)
        return stored.get("revision") if isinstance(stored, dict) else None

    async def ensure(
        self,
        *,
        popularity: bool = True,
        ecosystems: tuple[Ecosystem, ...] | None = None,
        force: bool = False,
    ) -> ShippedLoad:
        """
        Load what is missing or out of date (see the module docstring); never raises: a failure is
        logged at WARNING and kept in `state` (curated) or the outcome (popularity), and the next
        start tries again. `popularity` False skips the name index (commands that do not use it),
        `ecosystems` limits it to those (a command about one package);
        `force` loads the curated sets whatever the stored revision (`pkgintel ingest knowledge`).
        """
        started = time.perf_counter()
        async with self._guard:
            out = ShippedLoad()
            if self._stopping:
                out.curated = "stopped"
                return out
            await self._ensure_curated(out, force=force)
            if popularity and self._popularity is not None:
                await self._ensure_popularity(out, ecosystems)
            out.seconds = round(time.perf_counter() - started, 3)
            return out

    async def _ensure_curated(self, out: ShippedLoad, *, force: bool) -> None:
        shipped = self._revision()
        self.state.revision = shipped
        self.state.status = "loading"
        try:
            if not force and await self.stored_revision() == shipped:
                self.state.status, self.state.detail = "ok", None
                return
            async with self._lock("pkgintel.shipped.curated"):
                # Another process may have loaded it meanwhile.
                if not force and await self.stored_revision() == shipped:
                    self.state.status, self.state.detail = "ok", None
                    return
                summary = await self._errors.load_knowledge()
                counts = await ingest_curated(self._knowledge_store, self._curated(), self._clock())
                counts = {"errors": summary.total, **counts}
                await self._settings.set_setting(
                    REVISION_KEY,
                    {
                        "revision": shipped,
                        "loaded_at": self._clock().isoformat(),
                        "counts": counts,
                    },
                    now=self._clock(),
                )
        except (PkgIntelError, ValueError, OSError) as exc:
            why = getattr(exc, "message", None) or str(exc) or exc.__class__.__name__
            try:
                done = await self.stored_revision() == shipped
            except PkgIntelError:
                done = False
            if done:  # another process's load won the race (SQLite): the data is there
                self.state.status, self.state.detail = "ok", None
                return
            self.state.status, self.state.detail = "failed", why
            out.curated = "failed"
            logger.warning("loading the curated knowledge shipped with pkgintel failed: %s", why)
            return
        self.state.status, self.state.detail = "ok", None
        out.curated, out.counts, out.errors = "loaded", counts, summary
        logger.info("curated knowledge %s loaded: %s", shipped, counts)

    @staticmethod
    def _wants_snapshot(state: NameIndexState | None, label: str) -> bool:
        """No index yet, or an older shipped snapshot: never over a registry's own name list."""
        return state is None or (state.partial and state.source != label)

    async def _ensure_popularity(
        self, out: ShippedLoad, only: tuple[Ecosystem, ...] | None
    ) -> None:
        assert self._popularity is not None
        try:
            source = self._popularity()
            states = {s.ecosystem: s for s in await self._names.index_states()}
        except (PkgIntelError, ValueError, OSError) as exc:
            why = getattr(exc, "message", None) or str(exc)
            out.popularity["all"] = f"failed: {why}"
            logger.warning("the shipped popularity snapshot could not be read: %s", why)
            return
        for eco in source.ecosystems:
            if self._stopping:
                return
            if only is not None and eco not in only:
                continue
            if not self._wants_snapshot(states.get(eco), source.label):
                kept = states[eco].source
                out.popularity[eco.value] = f"kept {kept}"
                continue
            try:
                async with self._lock(f"pkgintel.shipped.popularity.{eco.value}"):
                    fresh = {s.ecosystem: s for s in await self._names.index_states()}.get(eco)
                    if not self._wants_snapshot(fresh, source.label):
                        out.popularity[eco.value] = f"kept {fresh.source if fresh else ''}"
                        continue
                    # Parsing ~200,000 lines is CPU work: off the event loop.
                    entries = await asyncio.to_thread(_listed, source, eco)
                    count = await self._names.ingest(
                        eco,
                        self._until_stopped(entries),
                        source=source.label,
                        over_partial_only=True,
                    )
            except _Stopped:
                out.popularity[eco.value] = "stopped (shutdown); loaded at the next start"
                return
            except (PkgIntelError, ValueError, OSError) as exc:
                why = getattr(exc, "message", None) or str(exc)
                out.popularity[eco.value] = f"failed: {why}"
                logger.warning(
                    "loading the shipped %s popularity snapshot failed: %s", eco.value, why
                )
                continue
            out.popularity[eco.value] = "loaded"
            logger.info("%s name index: %d names from the %s", eco.value, count, source.label)

    def _until_stopped(self, entries: Iterable[NameEntry]) -> Iterator[NameEntry]:
        """`entries`, raising `_Stopped` when asked to stop: `NameService.ingest` draws the next
        entry between two batch writes, never inside one."""
        for entry in entries:
            if self._stopping:
                raise _Stopped
            yield entry


class _Stopped(Exception):
    """`ShippedKnowledge.stop` was called during an index load."""


def _listed(source: PopularitySource, ecosystem: Ecosystem) -> list[NameEntry]:
    return list(source.entries(ecosystem))
