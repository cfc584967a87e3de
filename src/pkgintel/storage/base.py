"""Storage Protocols used by the services. `SqlStore` implements the name and snapshot ones,
`SqlAdvisoryStore` the advisory one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol

from pkgintel.domain.feeds import EpssFact, FeedEvent, KevFact, RecordRow, SourceRun, StoredRecord
from pkgintel.domain.knowledge.bugs import BugReport
from pkgintel.domain.knowledge.errors import ErrorEntry, ErrorMiss, KnowledgeLoad, VoteOutcome
from pkgintel.domain.knowledge.release_notes import ReleaseSection
from pkgintel.domain.knowledge.values import CuratedRow, HarvestState, StoredBug
from pkgintel.domain.names.rules import NameEntry, NameIndexState
from pkgintel.domain.operations.usage import UsageEvent
from pkgintel.domain.packages import Ecosystem


class NameStore(Protocol):
    """The per-ecosystem name index (existence, popularity, suggestions)."""

    async def get_name(self, ecosystem: Ecosystem, key: str) -> NameEntry | None:
        """The entry with this normalised key, or None."""
        ...

    async def get_names(self, ecosystem: Ecosystem, keys: Sequence[str]) -> dict[str, NameEntry]:
        """Entries of many normalised keys (absent keys left out)."""
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

    async def list_mixed_case_names(self, ecosystem: Ecosystem, limit: int) -> list[NameEntry]:
        """Entries whose key has capitals and that carry downloads (npm's legacy names), most
        downloaded first, at most `limit`."""
        ...

    async def list_names_with_downloads(self, ecosystem: Ecosystem, floor: int) -> list[str]:
        """Keys of every entry with at least `floor` monthly downloads (any order)."""
        ...

    async def list_name_keys(self, ecosystem: Ecosystem, *, live_only: bool = False) -> list[str]:
        """Keys of every entry of the ecosystem's index, whatever is known of its popularity (any
        order); with `live_only`, only of the names learned from live registry lookups (source
        `live`), not from a loaded name list."""
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

    async def load_snapshots(
        self, ecosystem: Ecosystem, keys: Sequence[str], version: str = ""
    ) -> dict[str, tuple[bytes, datetime]]:
        """Stored snapshots of many packages (absent ones left out)."""
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


class AdvisoryStore(Protocol):
    """Advisory records, ingestion runs, KEV/EPSS facts and feed events (`SqlAdvisoryStore`)."""

    async def record_hashes(self, feed: str, osv_ecosystem: str) -> dict[str, str]:
        """id → content hash of every record `feed` holds for `osv_ecosystem`."""
        ...

    async def write_records(
        self,
        feed: str,
        osv_ecosystem: str,
        rows: Sequence[RecordRow],
        events: Sequence[tuple[str, dict[str, Any]]] = (),
        *,
        now: datetime,
    ) -> int | None:
        """Upsert records with their index entries and append events, in one transaction."""
        ...

    async def delete_records(self, feed: str, osv_ecosystem: str, ids: Sequence[str]) -> int:
        """Remove records a feed no longer holds."""
        ...

    async def feed_stats(self, feed: str, osv_ecosystem: str) -> tuple[datetime | None, int, int]:
        """(newest `modified`, malicious records, all records) of a feed for one ecosystem."""
        ...

    async def records_for(self, ecosystem: Ecosystem, name: str) -> list[StoredRecord]:
        """Every non-withdrawn record naming the package, from every feed."""
        ...

    async def records_for_many(
        self, ecosystem: Ecosystem, names: Sequence[str]
    ) -> dict[str, list[StoredRecord]]:
        """`records_for` of many names at once."""
        ...

    async def malicious_names(self, ecosystem: Ecosystem, names: Sequence[str]) -> set[str]:
        """Which of `names` have a non-withdrawn malicious report."""
        ...

    async def start_run(self, feed: str, scope: str, location: str, *, now: datetime) -> None:
        """Mark a run under way."""
        ...

    async def finish_run(
        self,
        feed: str,
        scope: str,
        *,
        records: int,
        data_updated_at: datetime | None,
        detail: dict[str, Any],
        now: datetime,
    ) -> None:
        """Mark a run complete."""
        ...

    async def runs(self) -> list[SourceRun]:
        """Every feed's last run."""
        ...

    async def replace_kev(self, facts: Sequence[KevFact]) -> int:
        """Replace the KEV catalog."""
        ...

    async def replace_epss(self, rows: Iterable[tuple[str, float, float]]) -> int:
        """Replace all EPSS scores."""
        ...

    async def kev_for(self, cve_ids: Sequence[str] | None) -> dict[str, KevFact]:
        """KEV facts by CVE id (the whole catalog for None)."""
        ...

    async def epss_for(self, cve_ids: Sequence[str]) -> dict[str, EpssFact]:
        """EPSS facts by CVE id."""
        ...

    async def events_after(self, after_id: int, *, kind: str, limit: int = 500) -> list[FeedEvent]:
        """Events newer than `after_id`, oldest first."""
        ...

    async def last_event_id(self) -> int:
        """The newest event id (0 when none)."""
        ...

    async def prune_events(self, keep: int) -> int:
        """Keep only the newest `keep` events."""
        ...


class ErrorStore(Protocol):
    """Error-to-fix entries, votes and misses (`storage.errors.SqlErrorStore`)."""

    @property
    def backend(self) -> str:
        """`sqlite` or `postgresql`."""
        ...

    async def replace_curated(
        self, entries: Sequence[ErrorEntry], *, now: datetime
    ) -> KnowledgeLoad:
        """Upsert curated entries keeping votes and hits; delete curated entries not given."""
        ...

    async def count(self) -> int:
        """How many entries are stored."""
        ...

    async def get_entries(self, hashes: Sequence[str]) -> dict[str, ErrorEntry]:
        """Entries by hash (absent ones left out)."""
        ...

    async def search_text(self, terms: Sequence[str], limit: int) -> list[tuple[str, float]]:
        """Full-text: (hash, rank) of entries matching any term, best first (larger is better)."""
        ...

    async def patterns(self) -> list[tuple[str, str]]:
        """(hash, pattern) of every entry."""
        ...

    async def popular(self, limit: int) -> list[ErrorEntry]:
        """By net votes, then hits."""
        ...

    async def record_hits(self, hashes: Sequence[str]) -> None:
        """Count one more resolution for each entry."""
        ...

    async def record_miss(
        self, error_hash: str, pattern: str, tool: str | None, *, now: datetime
    ) -> int:
        """Count one more miss of a pattern (no raw text kept); returns the new count."""
        ...

    async def misses(self, limit: int) -> list[ErrorMiss]:
        """Most frequent misses first."""
        ...

    async def vote(
        self, error_hash: str, client: str, value: int, *, now: datetime
    ) -> VoteOutcome | None:
        """One vote per (entry, client), +1 or -1; None for an unknown entry."""


class KnowledgeStore(Protocol):
    """Curated entries, release notes, known bugs, harvest states, package repositories, the usage
    log and full-text name search (`SqlKnowledgeStore`)."""

    async def replace_curated(self, rows: Sequence[CuratedRow]) -> int:
        """Replace every curated entry with `rows` in one transaction."""
        ...

    async def curated(
        self,
        kind: str,
        ecosystem: Ecosystem | None = None,
        package: str | None = None,
        target: str | None = None,
        limit: int | None = None,
    ) -> list[CuratedRow]: ...

    async def curated_count(self) -> int: ...

    async def replace_sections(
        self,
        ecosystem: Ecosystem,
        package: str,
        origin: str,
        sections: Sequence[ReleaseSection],
        now: datetime,
    ) -> int:
        """Replace the package's sections of one origin (the newest harvest wins)."""
        ...

    async def sections(self, ecosystem: Ecosystem, package: str) -> list[ReleaseSection]: ...

    async def recent_breaking_sections(
        self, limit: int
    ) -> list[tuple[Ecosystem, str, ReleaseSection]]:
        """Harvested sections with breaking entries, newest publication first."""
        ...

    async def replace_bugs(
        self, ecosystem: Ecosystem, package: str, bugs: Sequence[BugReport], now: datetime
    ) -> int: ...

    async def bugs(self, ecosystem: Ecosystem, package: str) -> list[StoredBug]: ...

    async def search_bugs(self, query: str, limit: int) -> list[StoredBug]:
        """Bugs whose title or excerpt match every token of `query` (prefix match), best first."""
        ...

    async def bug_counts(self, limit: int) -> list[tuple[Ecosystem, str, int, int]]:
        """(ecosystem, package, bugs, open bugs) for the packages with the most recorded bugs."""
        ...

    async def save_harvest(self, state: HarvestState) -> None: ...

    async def harvest_states(
        self, ecosystem: Ecosystem, package: str
    ) -> dict[str, HarvestState]: ...

    async def upsert_repository(
        self, ecosystem: Ecosystem, name: str, display_name: str, repository: str, now: datetime
    ) -> None: ...

    async def repository_of(self, ecosystem: Ecosystem, name: str) -> str | None: ...

    async def packages_with_repository(
        self, repository: str
    ) -> list[tuple[Ecosystem, str, datetime]]: ...

    async def write_usage(self, events: Sequence[UsageEvent]) -> int: ...

    async def prune_usage(self, before: datetime) -> int: ...

    async def usage_for_client(self, client: str) -> list[UsageEvent]: ...

    async def package_counts(
        self,
        start: datetime,
        end: datetime,
        *,
        ecosystem: str | None,
        exclude_classes: Sequence[str],
        exclude_sources: Sequence[str],
        limit: int | None = None,
    ) -> dict[tuple[str, str], tuple[int, int]]:
        """(ecosystem, package) → (calls, distinct clients) in [start, end)."""
        ...

    async def usage_by_class(
        self, start: datetime, end: datetime, bucket: str
    ) -> list[tuple[datetime, str, int, int]]:
        """(bucket start, ua_class, calls, distinct clients) per `bucket` (`hour` or `day`)."""
        ...

    async def search_names(
        self, ecosystem: Ecosystem, query: str, limit: int, *, candidates: int = ...
    ) -> list[tuple[NameEntry, float]]:
        """
        Name-index entries matching every token of `query` (prefix match on names and summaries): the
        first `candidates` full-text matches, then names containing the longest token first, then by
        popularity (download rank, monthly downloads). The cost is bounded by `candidates`, so a
        common word cannot make the query slow; the most popular matches come from the service's
        in-memory pool (`DiscoveryService`), this query finds the long tail. Score 1.0 marks a match in
        the name, 0.5 one in the summary only.
        """
        ...
