"""Builders for scoring inputs: a healthy baseline package, changed one field at a time by each test."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from pkgintel.scoring import HealthSignals, VulnerabilitySummary

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def days_ago(days: int) -> datetime:
    """A timestamp `days` whole days before `NOW`."""
    return NOW - timedelta(days=days)


def vulns(status: str = "complete", **counts: Any) -> VulnerabilitySummary:
    """A vulnerability summary; no advisories unless given."""
    return VulnerabilitySummary(status=status, **counts)


HEALTHY = HealthSignals(
    last_release_at=days_ago(30),
    first_release_at=days_ago(3000),
    version_count=114,
    weekly_downloads=40_000_000,
    maintainers_count=5,
    deprecated=False,
    deprecated_message=None,
    vulnerabilities=vulns(),
    malicious=False,
    latest_version="4.17.21",
    evaluated_version="4.17.21",
)
"""Scores 100: recent, no advisories, popular, mature, five maintainers, checked for malware."""


def signals(**changes: Any) -> HealthSignals:
    """`HEALTHY` with some fields changed."""
    return replace(HEALTHY, **changes)
