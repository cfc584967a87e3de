"""
What one ingestion run did, feed by feed (pure values).

A *feed* is one bulk source an ingestion loads: `osv:<OSV ecosystem>` (one OSV export), `kev`,
`epss`, `names:<ecosystem>` (one registry name list). Each run records one `FeedOutcome` per feed
it tried:

- `loaded`: read and stored (`records`, and a one-line `summary`);
- `failed`: could not be read or stored (`reason`): the data it would bring is missing or old;
- `skipped`: not there to read by configuration (e.g. a local export directory without that
  ecosystem), with the `reason`. A skipped feed is said, never counted as a failure.

The run's outcome follows from its feeds: `succeeded` when no feed failed, `partial` when some
failed and at least one loaded, `failed` when some failed and none loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class FeedStatus(StrEnum):
    LOADED = "loaded"
    FAILED = "failed"
    SKIPPED = "skipped"


class RunOutcome(StrEnum):
    SUCCEEDED = "succeeded"
    PARTIAL = "partial"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class FeedOutcome:
    """One feed's result in one run."""

    feed: str
    status: FeedStatus
    location: str
    reason: str | None = None
    """Why it failed or was skipped; None when loaded."""
    records: int | None = None
    summary: str | None = None

    def wire(self) -> dict[str, Any]:
        return {
            "feed": self.feed,
            "status": self.status.value,
            "location": self.location,
            "reason": self.reason,
            "records": self.records,
            "summary": self.summary,
        }


@dataclass(slots=True)
class IngestReport:
    """The feeds of one run, in the order they were tried (a feed tried twice keeps its last)."""

    outcomes: dict[str, FeedOutcome] = field(default_factory=dict)

    def add(self, outcome: FeedOutcome) -> FeedOutcome:
        self.outcomes.pop(outcome.feed, None)
        self.outcomes[outcome.feed] = outcome
        return outcome

    def loaded(
        self, feed: str, location: str, *, records: int | None = None, summary: str | None = None
    ) -> FeedOutcome:
        return self.add(FeedOutcome(feed, FeedStatus.LOADED, location, None, records, summary))

    def failed(self, feed: str, location: str, reason: str) -> FeedOutcome:
        return self.add(FeedOutcome(feed, FeedStatus.FAILED, location, reason))

    def skipped(self, feed: str, location: str, reason: str) -> FeedOutcome:
        return self.add(FeedOutcome(feed, FeedStatus.SKIPPED, location, reason))

    def _with(self, status: FeedStatus) -> list[FeedOutcome]:
        return [o for o in self.outcomes.values() if o.status is status]

    @property
    def failures(self) -> list[FeedOutcome]:
        return self._with(FeedStatus.FAILED)

    @property
    def outcome(self) -> RunOutcome:
        if not self.failures:
            return RunOutcome.SUCCEEDED
        return RunOutcome.PARTIAL if self._with(FeedStatus.LOADED) else RunOutcome.FAILED

    def summary(self) -> str:
        """One line: how many feeds loaded, failed and were skipped, and which failed (each
        failure's reason is in its own outcome)."""
        counts = {s: len(self._with(s)) for s in FeedStatus}
        line = (
            f"{counts[FeedStatus.LOADED]} loaded, {counts[FeedStatus.FAILED]} failed, "
            f"{counts[FeedStatus.SKIPPED]} skipped of {len(self.outcomes)} feeds"
        )
        if self.failures:
            line += "; failed: " + ", ".join(o.feed for o in self.failures)
        return line

    def wire(self) -> dict[str, Any]:
        """The job result: `outcome`, per-status counts, `failed_feeds` ({feed, reason}) and
        every feed's outcome."""
        return {
            "outcome": self.outcome.value,
            "counts": {s.value: len(self._with(s)) for s in FeedStatus},
            "failed_feeds": [{"feed": o.feed, "reason": o.reason} for o in self.failures],
            "feeds": [o.wire() for o in self.outcomes.values()],
        }


def retry_delay_s(attempt: int, *, base_s: float, max_s: float) -> float:
    """Backoff before retry number `attempt` (1-based): `base_s` doubled per attempt, capped at
    `max_s` (1 min, 2, 4, ... up to an hour with the defaults)."""
    if attempt < 1:
        raise ValueError("attempt is 1-based")
    return float(min(max_s, base_s * 2 ** min(attempt - 1, 62)))
