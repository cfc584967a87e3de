"""OpenSSF Scorecard results of one repository (values only; parsed in `sources/scorecard.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

CALLED_OUT: Final[tuple[str, ...]] = ("Branch-Protection", "Signed-Releases", "Pinned-Dependencies")
"""Checks every answer names on their own, even when Scorecard could not score them."""


@dataclass(frozen=True, slots=True)
class ScorecardCheck:
    """
    One Scorecard check. `score` is 0-10, or None when Scorecard could not decide (it publishes
    -1 for "inconclusive" or an internal error; we never turn that into 0).
    """

    name: str
    score: int | None
    reason: str | None
    documentation_url: str | None = None


@dataclass(frozen=True, slots=True)
class Scorecard:
    """The latest Scorecard result the Scorecard API holds for a repository."""

    repository: str
    """As Scorecard names it, e.g. `github.com/ossf/scorecard`."""
    score: float | None
    """The aggregate 0-10 (None when the body gives none)."""
    date: datetime | None
    """When Scorecard ran the checks (not when we fetched them)."""
    scorecard_version: str | None
    commit: str | None
    """The repository commit the checks ran on."""
    checks: tuple[ScorecardCheck, ...]

    def check(self, name: str) -> ScorecardCheck | None:
        """The check named `name` (case-insensitive), or None when the result has none."""
        wanted = name.lower()
        return next((c for c in self.checks if c.name.lower() == wanted), None)
