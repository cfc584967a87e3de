"""
`IndexStates`: what this process knows of each ecosystem's name index state.

`get(ecosystem)` reads the state (`NameStore.get_index_state`) and reuses it for `ANSWER_TTL_S`;
`forget(ecosystem)` drops it when the index is loaded again. `loading` names the lists this process
is loading now, so that `not_loaded` can say "being loaded" rather than "no index".
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pkgintel.domain.names.rules import NameIndexState
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.base import NameStore

ANSWER_TTL_S = 60.0
"""How long one process reuses an `exists` answer (ingestion and live sightings clear it sooner)."""


class IndexStates:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(self, store: NameStore, *, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock
        self._states: dict[Ecosystem, tuple[float, NameIndexState | None]] = {}
        self.loading: dict[Ecosystem, str] = {}
        """Ecosystem → source of a list this process is loading now (answers say so)."""

    async def get(self, ecosystem: Ecosystem) -> NameIndexState | None:
        """The ecosystem's index state, reused for `ANSWER_TTL_S` like the answers built on it."""
        now = self._clock()
        cached = self._states.get(ecosystem)
        if cached is not None and now - cached[0] < ANSWER_TTL_S:
            return cached[1]
        state = await self._store.get_index_state(ecosystem)
        self._states[ecosystem] = (now, state)
        return state

    def forget(self, ecosystem: Ecosystem) -> None:
        """Drop the kept state: the index was loaded again."""
        self._states.pop(ecosystem, None)

    def not_loaded(self, ecosystem: Ecosystem) -> str:
        """Why there is no index: none loaded, or one being loaded by this process now."""
        loading = self.loading.get(ecosystem)
        if loading is not None:
            return (
                f"the {ecosystem.value} name index is being loaded ({loading}); ask again shortly"
            )
        return f"no {ecosystem.value} name index is loaded"
