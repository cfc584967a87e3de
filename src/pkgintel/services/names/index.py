"""
`NameIndex`: the per-ecosystem name index — existence, did-you-mean suggestions, live sightings and
ingestion of name lists.

Existence is answered from the database only. When an ecosystem's index has never been loaded and
the name has not been seen by a live report, the answer is `exists: None` ("we do not know"), never
"no". An ingestion, a reload seen from another process (`follow_ingestions`) or a live sighting
drops what this process keeps of the ecosystem: answers, index state and popular-name pool.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from pkgintel.domain.names.near import close_matches
from pkgintel.domain.names.rules import (
    SNAPSHOT_ROW_SOURCE,
    NameEntry,
    NameIndexState,
    normalise_name,
)
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.services.names.pools import PopularPools
from pkgintel.services.names.states import ANSWER_TTL_S, IndexStates
from pkgintel.storage.base import NameStore

logger = logging.getLogger(__name__)
ANSWER_ENTRIES = 50000


@dataclass(frozen=True, slots=True)
class ExistsAnswer:
    """Answer of `/api/exists`."""

    ecosystem: Ecosystem
    package: str
    normalized: str
    exists: bool | None
    reason: str
    entry: NameEntry | None
    index: NameIndexState | None
    did_you_mean: tuple[str, ...] = ()


def _renamed(answer: ExistsAnswer, name: str) -> ExistsAnswer:
    """The same answer for another spelling of the same normalised name."""
    return replace(answer, package=name)


class NameIndex:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(
        self,
        store: NameStore,
        states: IndexStates,
        pools: PopularPools,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._states = states
        self._pools = pools
        self._clock = clock
        # (when, answer, whether an absent name's suggestions were looked for)
        self._answers: OrderedDict[tuple[Ecosystem, str], tuple[float, ExistsAnswer, bool]] = (
            OrderedDict()
        )
        # The index state each ecosystem's last load by this process wrote.
        self._written: dict[Ecosystem, datetime] = {}

    async def exists(
        self, ecosystem: Ecosystem, name: str, *, suggestions: bool = True
    ) -> ExistsAnswer:
        """
        Look the name up in the index. See the module docstring for the `None` case.

        Answers are reused by this process for up to `ANSWER_TTL_S` seconds (popular names are asked
        for constantly); an ingestion or a live sighting in this process clears them at once.
        `suggestions` False is for callers that do not show the "did you mean" names of an absent
        name (a range scan of the index, ~3 ms): such an answer has none until a caller that shows
        them asks.
        """
        key = normalise_name(ecosystem, name)
        now = self._clock()
        cached = self._answers.get((ecosystem, key))
        if cached is not None and now - cached[0] < ANSWER_TTL_S and (cached[2] or not suggestions):
            self._answers.move_to_end((ecosystem, key))
            answer = cached[1]
            return answer if answer.package == name else _renamed(answer, name)
        answer = await self._lookup(ecosystem, name, key, suggestions=suggestions)
        self._answers[(ecosystem, key)] = (now, answer, suggestions or answer.exists is not False)
        if len(self._answers) > ANSWER_ENTRIES:
            self._answers.popitem(last=False)
        return answer

    async def known_many(
        self, ecosystem: Ecosystem, names: list[str]
    ) -> tuple[dict[str, NameEntry], NameIndexState | None]:
        """Index entries of many names (by normalised key) and the index state."""
        keys = [normalise_name(ecosystem, n) for n in names]
        entries, state = await asyncio.gather(
            self._store.get_names(ecosystem, keys), self._states.get(ecosystem)
        )
        return entries, state

    async def _lookup(
        self, ecosystem: Ecosystem, name: str, key: str, *, suggestions: bool = True
    ) -> ExistsAnswer:
        entry = await self._store.get_name(ecosystem, key)
        state = await self._states.get(ecosystem)
        if entry is not None:
            how = {
                "ingest": "the loaded name index",
                SNAPSHOT_ROW_SOURCE: "the popularity snapshot shipped with pkgintel",
            }.get(entry.source, "a live registry lookup")
            return ExistsAnswer(ecosystem, name, key, True, f"found in {how}", entry, state)
        if state is not None and state.partial:
            similar = await self.suggest(ecosystem, name) if suggestions else []
            return ExistsAnswer(
                ecosystem,
                name,
                key,
                None,
                f"not among the {state.names_count:,} most popular {ecosystem.value} names of the "
                f"popularity snapshot ({state.source}), which is all the name index holds yet: "
                "absence proves nothing; use "
                f"/api/check/{ecosystem.value}/... for a live answer",
                None,
                state,
                tuple(similar),
            )
        if state is None:
            return ExistsAnswer(
                ecosystem,
                name,
                key,
                None,
                f"{self._states.not_loaded(ecosystem)}, so absence proves nothing; "
                f"use /api/check/{ecosystem.value}/... for a live answer",
                None,
                None,
            )
        similar = await self.suggest(ecosystem, name) if suggestions else []
        return ExistsAnswer(
            ecosystem,
            name,
            key,
            False,
            f"not in the {ecosystem.value} name index loaded {state.loaded_at.date().isoformat()} "
            f"({state.names_count:,} names); a package published since may be missing",
            None,
            state,
            tuple(similar),
        )

    async def suggest(self, ecosystem: Ecosystem, name: str, limit: int = 5) -> list[str]:
        """Up to `limit` known names close to `name`, popular ones first (empty when nothing is close)."""
        key = normalise_name(ecosystem, name)
        pool = await self._pools.get(ecosystem)
        cutoff = 2 if len(key) > 4 else 1
        found: dict[str, tuple[int, int]] = {}
        for idx, dist in pool.names.near(key, cutoff, limit * 4):
            found.setdefault(pool.entries[idx].display_name, (dist, idx))
        if len(found) < limit:
            near = await self._store.list_names_near(ecosystem, key, 5000)
            # `near` holds normalised keys, `found` display names: compare keys (NuGet, cargo fold).
            seen = {normalise_name(ecosystem, shown) for shown in found}
            for idx, dist in close_matches(key, near, cutoff):
                if dist > 0 and near[idx] not in found and near[idx] not in seen:
                    found[near[idx]] = (dist, pool.limit + 1)
        ranked = sorted(found.items(), key=lambda item: (item[1][0], item[1][1]))
        return [n for n, _ in ranked[:limit]]

    async def record_seen(self, info: PackageInfo, weekly_downloads: int | None) -> None:
        """A package seen by a live report joins the index (keeping popularity a loaded list gave)."""
        self._answers.pop((info.ecosystem, normalise_name(info.ecosystem, info.name)), None)
        await self._store.upsert_names(
            [
                NameEntry(
                    ecosystem=info.ecosystem,
                    name=normalise_name(info.ecosystem, info.name),
                    display_name=info.name,
                    latest_version=info.latest_version,
                    summary=info.description[:500] or None,
                    source="live",
                )
            ]
        )

    async def ingest(
        self,
        ecosystem: Ecosystem,
        entries: Iterable[NameEntry],
        *,
        source: str,
        batch_size: int = 20000,
        progress: Callable[[int], None] | None = None,
        over_partial_only: bool = False,
    ) -> int:
        """Load `entries` (already normalised) in batches; mark the index loaded; returns the count.
        `over_partial_only` (the shipped snapshot): the index is not marked as loaded from `source`
        when a complete list was loaded meanwhile (by a job or another process), whose state wins."""
        total = 0
        batch: list[NameEntry] = []
        self._states.loading[ecosystem] = source
        try:
            for entry in entries:
                batch.append(entry)
                if len(batch) >= batch_size:
                    total += await self._store.upsert_names(batch)
                    batch = []
                    if progress:
                        progress(total)
            if batch:
                total += await self._store.upsert_names(batch)
                if progress:
                    progress(total)
        finally:
            self._states.loading.pop(ecosystem, None)
        if over_partial_only:
            now = await self._store.get_index_state(ecosystem)
            if now is not None and not now.partial:
                self.forget(ecosystem)
                return total
        written = NameIndexState(
            ecosystem, source, datetime.fromtimestamp(self._clock(), UTC), total
        )
        await self._store.save_index_state(written)
        self._written[ecosystem] = written.loaded_at
        self.forget(ecosystem)
        return total

    def forget(self, ecosystem: Ecosystem) -> None:
        """Drop what this process keeps of `ecosystem`'s index: its index was loaded again."""
        self._pools.forget(ecosystem)
        self._states.forget(ecosystem)
        for cached in [k for k in self._answers if k[0] is ecosystem]:
            del self._answers[cached]

    async def follow_ingestions(self, interval_s: float = 1.0) -> None:
        """
        Run until cancelled: every `interval_s`, read the index states (one small query) and drop
        what this process keeps of an ecosystem whose index was loaded again since — by
        `pkgintel ingest names` in another process, or another worker — so a running service
        answers from a new name list within about `interval_s`, not after its caches expire.
        """
        seen = {s.ecosystem: s.loaded_at for s in await self._store.list_index_states()}
        while True:
            await asyncio.sleep(interval_s)
            try:
                states = await self._store.list_index_states()
            except Exception:  # the database is down for a moment: try again next time
                logger.debug("could not read the name index states", exc_info=True)
                continue
            for state in states:
                if seen.get(state.ecosystem) != state.loaded_at:
                    known = state.ecosystem in seen
                    seen[state.ecosystem] = state.loaded_at
                    if _same_instant(self._written.get(state.ecosystem), state.loaded_at):
                        # This process loaded it (and dropped its caches then): dropping the
                        # pools built since — the start-up warm-up's — would make the next
                        # typosquat answer build them again.
                        continue
                    if known:
                        logger.info(
                            "name index of %s reloaded; caches dropped", state.ecosystem.value
                        )
                    self.forget(state.ecosystem)

    async def warm(self) -> list[Ecosystem]:
        """Load the popular-name pool of every ecosystem whose index is loaded, so the first
        typosquat check or suggestion does not pay for it; returns those ecosystems."""
        warmed = []
        for state in await self._store.list_index_states():
            await self._pools.get(state.ecosystem)
            warmed.append(state.ecosystem)
        return warmed

    async def index_states(self) -> list[NameIndexState]:
        """Every loaded index's state, read from the store."""
        return await self._store.list_index_states()


def _same_instant(a: datetime | None, b: datetime | None) -> bool:
    """Whether two stored timestamps name the same instant (a naive one read back is UTC; the
    database may keep fewer digits than Python)."""
    if a is None or b is None:
        return False
    a = a if a.tzinfo else a.replace(tzinfo=UTC)
    b = b if b.tzinfo else b.replace(tzinfo=UTC)
    return abs((a - b).total_seconds()) < 0.001
