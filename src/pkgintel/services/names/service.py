"""
`NameService`: the one object callers hold for names — the name index (`names.index`) and the
typosquat judgement (`names.typosquat`) over the popular-name pools they share (`names.pools`).

It composes those parts and forwards to them; it holds no logic of its own. Existence is answered
from the database only; an ecosystem whose index was never loaded answers `exists: None` ("we do
not know"), never "no".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from pkgintel.domain.names.rules import NameEntry, NameIndexState
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.services.names.first_asked import FirstAsked
from pkgintel.services.names.hints import TyposquatHint
from pkgintel.services.names.index import ExistsAnswer, NameIndex
from pkgintel.services.names.pools import PopularPools
from pkgintel.services.names.states import IndexStates
from pkgintel.services.names.typosquat import TyposquatJudge
from pkgintel.storage.base import NameStore


class NameService:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(self, store: NameStore, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self.states = IndexStates(store, clock=clock)
        self.pools = PopularPools(store, self.states, clock=clock)
        self.index = NameIndex(store, self.states, self.pools, clock=clock)
        self.first_asked = FirstAsked()
        """Names asked for while unknown (fed by the usage log; see `names.first_asked`)."""
        self.judge = TyposquatJudge(store, self.states, self.pools, self.index, self.first_asked)

    async def exists(
        self, ecosystem: Ecosystem, name: str, *, suggestions: bool = True
    ) -> ExistsAnswer:
        """See `NameIndex.exists`."""
        return await self.index.exists(ecosystem, name, suggestions=suggestions)

    async def known_many(
        self, ecosystem: Ecosystem, names: list[str]
    ) -> tuple[dict[str, NameEntry], NameIndexState | None]:
        """Index entries of many names (by normalised key) and the index state."""
        return await self.index.known_many(ecosystem, names)

    async def index_state(self, ecosystem: Ecosystem) -> NameIndexState | None:
        """The ecosystem's index state (see `IndexStates.get`)."""
        return await self.states.get(ecosystem)

    async def suggest(self, ecosystem: Ecosystem, name: str, limit: int = 5) -> list[str]:
        """See `NameIndex.suggest`."""
        return await self.index.suggest(ecosystem, name, limit)

    async def typosquat(
        self,
        ecosystem: Ecosystem,
        name: str,
        entry: NameEntry | None = None,
        *,
        weekly_downloads: int | None = None,
        release_count: int | None = None,
        first_release_days: int | None = None,
        first_release: datetime | None = None,
        lookup: bool = True,
        use_established: bool = True,
    ) -> TyposquatHint:
        """See `TyposquatJudge.typosquat`."""
        return await self.judge.typosquat(
            ecosystem,
            name,
            entry,
            weekly_downloads=weekly_downloads,
            release_count=release_count,
            first_release_days=first_release_days,
            first_release=first_release,
            lookup=lookup,
            use_established=use_established,
        )

    async def prefetch_wide(
        self, ecosystem: Ecosystem, items: Sequence[tuple[str, NameEntry | None]]
    ) -> int:
        """See `names.wide.prefetch_wide`."""
        return await self.judge.prefetch_wide(ecosystem, items)

    async def record_seen(self, info: PackageInfo, weekly_downloads: int | None) -> None:
        """See `NameIndex.record_seen`."""
        await self.index.record_seen(info, weekly_downloads)

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
        """See `NameIndex.ingest`."""
        return await self.index.ingest(
            ecosystem,
            entries,
            source=source,
            batch_size=batch_size,
            progress=progress,
            over_partial_only=over_partial_only,
        )

    async def follow_ingestions(self, interval_s: float = 1.0) -> None:
        """See `NameIndex.follow_ingestions`."""
        await self.index.follow_ingestions(interval_s)

    async def warm(self) -> list[Ecosystem]:
        """See `NameIndex.warm`."""
        return await self.index.warm()

    async def index_states(self) -> list[NameIndexState]:
        """Every loaded index's state, read from the store."""
        return await self.index.index_states()
