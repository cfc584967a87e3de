"""
Values that describe stored advisory data (pure): one stored OSV record, one ingestion run, KEV and
EPSS facts about a CVE, and one live-feed event. Storage produces them; services read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One OSV record as one feed holds it; `record` is the raw JSON (uncompressed bytes)."""

    feed: str
    osv_ecosystem: str
    id: str
    content_hash: str
    record: bytes


@dataclass(frozen=True, slots=True)
class RecordRow:
    """One record to write: the raw JSON (compressed by the store), its index keys and flags."""

    id: str
    content_hash: str
    modified: datetime | None
    published: datetime | None
    withdrawn: bool
    is_malicious: bool
    record: bytes
    packages: tuple[tuple[str, str], ...]
    """(ecosystem value, normalised name) pairs the record names in `affected[]`."""


@dataclass(frozen=True, slots=True)
class SourceRun:
    """
    The last ingestion run of one feed and scope (an OSV ecosystem; `""` for KEV and EPSS).

    `completed_at` is None while a run is under way or after it was interrupted: the data then holds
    whatever the finished batches wrote, so answers built on it are `partial`.
    """

    feed: str
    scope: str
    location: str
    started_at: datetime
    completed_at: datetime | None
    records: int
    data_updated_at: datetime | None
    """The newest time the data itself states (newest `modified`, KEV release, EPSS score date)."""
    detail: dict[str, Any]

    @property
    def completed(self) -> bool:
        return self.completed_at is not None


@dataclass(frozen=True, slots=True)
class KevFact:
    """A CVE's entry in CISA's Known Exploited Vulnerabilities catalog."""

    cve_id: str
    date_added: date
    due_date: date | None
    ransomware: bool | None
    """True: known use in ransomware campaigns; False: not known; None: the catalog does not say."""
    vendor: str
    product: str
    name: str


@dataclass(frozen=True, slots=True)
class EpssFact:
    """A CVE's EPSS exploit-probability score (0–1) and percentile (0–1)."""

    cve_id: str
    score: float
    percentile: float


@dataclass(frozen=True, slots=True)
class FeedEvent:
    """One live-feed event; ids increase, so `Last-Event-ID` resumes after one."""

    id: int
    kind: str
    created_at: datetime
    payload: dict[str, Any]
