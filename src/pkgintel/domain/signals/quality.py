"""
Quality signals computed from registry and upstream facts (pure): download velocity and the OpenSSF
criticality-score inputs we can compute. Rules are documented in docs/api.md ("Quality").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

TREND_UP: Final = 1.15
"""Last week's downloads at least this multiple of the month's weekly average → `up`."""
TREND_DOWN: Final = 0.85
"""At most this multiple → `down`; in between → `stable`."""
MIN_MONTHLY: Final = 100
"""Fewer monthly downloads than this are too few to call a trend (`insufficient_data`)."""
WEEKS_PER_MONTH: Final = 30 / 7
"""The npm and pypistats month windows are 30 days."""


@dataclass(frozen=True, slots=True)
class DownloadTrend:
    trend: str
    """`up`, `down`, `stable` or `insufficient_data`."""
    ratio: float | None
    """Last week ÷ (last month ÷ 30 × 7); None when it cannot be computed."""
    explanation: str


def download_trend(last_week: int | None, last_month: int | None) -> DownloadTrend:
    """Compare last week with the 30-day window's weekly average (rule in the constants above)."""
    if last_week is None or last_month is None:
        return DownloadTrend("insufficient_data", None, "a download window is missing")
    if last_month < MIN_MONTHLY:
        return DownloadTrend(
            "insufficient_data", None, f"{last_month} downloads in 30 days are too few for a trend"
        )
    ratio = round(last_week / (last_month / WEEKS_PER_MONTH), 3)
    if ratio >= TREND_UP:
        trend = "up"
    elif ratio <= TREND_DOWN:
        trend = "down"
    else:
        trend = "stable"
    return DownloadTrend(
        trend,
        ratio,
        f"last week {last_week:,} vs a weekly average of {round(last_month / WEEKS_PER_MONTH):,} "
        "over 30 days",
    )
