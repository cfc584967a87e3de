"""Storage Protocols used by the services. `SqlStore` implements all of them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pkgintel.domain.names import NameEntry, NameIndexState
from pkgintel.domain.packages import Ecosystem


class NameStore(Protocol):
    """The per-ecosystem name index (existence, popularity, suggestions)."""

    async def get_name(self, ecosystem: Ecosystem, key: str) -> NameEntry | None:
        """The entry with this normalised key, or None."""
        ...

    async def get_index_state(self, ecosystem: Ecosystem) -> NameIndexState | None:
        """How the ecosystem's index was loaded, or None when it never was."""
        ...

    async def list_index_states(self) -> list[NameIndexState]:
        """Every loaded index."""
        ...

    async def upsert_names(self, entries: Sequence[NameEntry]) -> int:
        """Insert or update entries (by ecosystem and key) in one transaction; returns the count written."""
        ...

    async def save_index_state(self, state: NameIndexState) -> None:
        """Record that an ecosystem's index was loaded from `state.source`."""
        ...

    async def list_popular_names(self, ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        """The most popular entries (rank first, then monthly downloads), at most `limit`."""
        ...

    async def list_names_near(self, ecosystem: Ecosystem, key: str, limit: int) -> list[str]:
        """Keys sharing the first character of `key` with a length within ±2, at most `limit`."""
        ...


class SnapshotStore(Protocol):
    """Last known upstream data per package, kept so a failing upstream can be answered with a marked stale copy."""

    async def load_snapshot(
        self, ecosystem: Ecosystem, key: str, version: str
    ) -> tuple[bytes, datetime] | None:
        """The payload and its fetch time, or None. `version` is `""` for the latest."""
        ...

    async def save_snapshot(
        self, ecosystem: Ecosystem, key: str, version: str, payload: bytes, fetched_at: datetime
    ) -> None:
        """Store (replace) a snapshot."""
        ...


class StoreHealth(Protocol):
    """Liveness of the database."""

    async def ping(self) -> None:
        """Round-trip the database; raises `StorageError` when it fails."""
        ...

    @property
    def backend(self) -> str:
        """`sqlite` or `postgresql`."""
        ...
