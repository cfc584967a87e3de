"""
Inputs of the scoring core: the facts about one package (and one version of it) that a score is computed from.

The service layer collects these from the registry, the advisory store and the malicious-package data; the
scoring functions only read them. `None` always means "we do not know", never "zero".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Final

from pkgintel.domain.freshness import DATA_STATUSES
from pkgintel.scoring.verdicts import UpgradePlan

VULNERABILITY_STATUSES: Final = DATA_STATUSES
"""`complete`: every advisory source answered with recent data. `stale`: they answered, but from old
data. `partial`: some did. `unavailable`: we do not know (`domain/freshness.py`)."""


@dataclass(frozen=True, slots=True)
class VulnerabilitySummary:
    """
    Advisories affecting the evaluated version, counted by severity.

    The counts mean something only when `status` is not `unavailable`; with `unavailable` the scoring core
    ignores them. Raises `ValueError` for an unknown `status` or a negative count.
    """

    status: str
    """One of `VULNERABILITY_STATUSES`."""
    critical: int = 0
    high: int = 0
    medium: int = 0
    low: int = 0
    unrated: int = 0
    """Advisories whose source states no severity (many PYSEC records): counted, never assumed minor."""
    kev_count: int = 0
    """Advisories affecting the version whose CVE is in the CISA Known Exploited Vulnerabilities catalog."""
    max_epss: float | None = None
    """Highest EPSS exploit probability (0..1) among those advisories; None when no advisory has one."""
    fix_available: bool = False
    """A non-vulnerable newer release exists for every critical/high (and KEV-listed) advisory affecting the version."""
    fixed_version: str | None = None
    """The upgrade target: a published, non-yanked release (see `upgrade`)."""
    effective: tuple[tuple[str, int], ...] = ()
    """Advisories counted by their effective severity for verdicts (`scoring.verdicts`): unrated as
    medium, KEV-listed as critical, raised by EPSS. Empty means "use the stated counts"."""
    raised: tuple[tuple[str, int], ...] = ()
    """Advisories that exploit data (CISA KEV, EPSS) raises above their stated severity (unrated
    counted as medium), by the severity they are raised to. Read only when `effective` is set."""
    upgrade: UpgradePlan | None = None
    """The upgrade plan for the evaluated version, when one was computed."""
    stale: bool = False
    """The advisory data is older than its staleness window: it may miss recent advisories."""
    data_as_of: datetime | None = None
    """The newest advisory record among the feeds used (None when unknown): the date stale data is of."""

    def effective_count(self, severity: str) -> int:
        """Advisories whose effective severity is `severity` (stated counts when `effective` is
        empty: unrated ones then count as medium, KEV-listed ones as critical)."""
        if self.effective:
            return dict(self.effective).get(severity, 0)
        stated = {
            "critical": self.critical,
            "high": self.high,
            "medium": self.medium + self.unrated,
            "low": self.low,
        }
        # KEV-listed advisories count as critical: move them up from the mildest buckets.
        moved = min(self.kev_count, self.count - self.critical)
        stated["critical"] += moved
        for bucket in ("low", "medium", "high"):
            take = min(moved, stated[bucket])
            stated[bucket] -= take
            moved -= take
        return stated.get(severity, 0)

    def raised_to(self, severity: str) -> int:
        """Advisories raised to `severity` above their stated one by exploit data (with `effective`
        empty: the KEV-listed ones moved up to critical)."""
        if self.effective:
            return dict(self.raised).get(severity, 0)
        if severity == "critical":
            return max(0, self.effective_count("critical") - self.critical)
        return 0

    def __post_init__(self) -> None:
        if self.status not in VULNERABILITY_STATUSES:
            raise ValueError(f"unknown vulnerability status {self.status!r}")
        if min(self.critical, self.high, self.medium, self.low, self.kev_count) < 0:
            raise ValueError("advisory counts cannot be negative")

    @property
    def count(self) -> int:
        """Advisories affecting the version, all severities (KEV-listed ones are already counted by severity)."""
        return self.critical + self.high + self.medium + self.low + self.unrated

    @property
    def known(self) -> bool:
        """True when the counts are real (status `complete`, `stale` or `partial`)."""
        return self.status != "unavailable"


@dataclass(frozen=True, slots=True)
class HealthSignals:
    """
    Everything the health score and the recommendation are computed from.

    Datetimes should be timezone-aware UTC; naive ones are read as UTC.
    """

    last_release_at: datetime | None
    first_release_at: datetime | None
    version_count: int
    weekly_downloads: int | None
    """None when the registry does not expose downloads or the source is unavailable."""
    maintainers_count: int | None
    """None when unknown."""
    deprecated: bool
    deprecated_message: str | None
    vulnerabilities: VulnerabilitySummary
    """Advisories affecting `evaluated_version`."""
    malicious: bool | None
    """True: flagged as malicious. False: checked against malicious-package data, not flagged. None: not checked."""
    latest_version: str
    evaluated_version: str
    """The version the caller asked about, or the latest."""
    latest_is_prerelease: bool = False
    release_history_known: bool = True
    """False when the registry keeps only the current version (Homebrew): the version count says
    nothing about maturity, which is then not scored rather than scored low."""
    bus_factor: int | None = None
    """Fewest publishers covering half the releases (`domain/signals/maintainers.py`); None when the registry
    does not say who published each release (community then rests on the maintainer count alone)."""
    new_publisher_on_latest: bool = False
    """The latest release was published by an account that had published no earlier release."""
