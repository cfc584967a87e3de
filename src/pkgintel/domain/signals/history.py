"""
Health history values and the trend rule (pure).

Trend over a window of daily snapshots, oldest first (documented in docs/scoring.md):
with fewer than two snapshots there is no trend (None). Otherwise `k = min(3, n // 2)`; the mean
score of the last `k` snapshots is compared with the mean of the first `k`: a difference of at least
`TREND_THRESHOLD` points is `up` or `down`, anything smaller is `stable`. Averaging the ends keeps one
day's blip (an advisory published and withdrawn) from reading as a trend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

TREND_THRESHOLD: Final = 5
"""Points of mean score difference between the window's ends that make a trend."""


@dataclass(frozen=True, slots=True)
class HealthSnapshot:
    """The health of one package on one day, as the report computed it then."""

    ecosystem: str
    package: str
    """Normalised name (the storage key)."""
    day: date
    display_name: str
    recorded_at: datetime
    score: int
    risk: str
    breakdown: dict[str, Any]
    vulnerabilities: dict[str, Any]
    """`status` and counts by severity (`critical`, `high`, `medium`, `low`, `unrated`, `total`)."""
    latest_version: str


@dataclass(frozen=True, slots=True)
class Trend:
    direction: str | None
    """`up`, `down`, `stable`, or None with fewer than two snapshots."""
    delta: float | None
    """Mean of the last k scores minus the mean of the first k."""
    window: int
    """k: snapshots averaged at each end."""


def trend(scores: Sequence[int]) -> Trend:
    """The trend of `scores` (oldest first); see the module docstring."""
    n = len(scores)
    if n < 2:
        return Trend(None, None, 0)
    k = min(3, n // 2)
    first = sum(scores[:k]) / k
    last = sum(scores[-k:]) / k
    delta = round(last - first, 1)
    if delta >= TREND_THRESHOLD:
        direction = "up"
    elif delta <= -TREND_THRESHOLD:
        direction = "down"
    else:
        direction = "stable"
    return Trend(direction, delta, k)
