"""
Pure facts read from a package's published releases: `summarise_history`, the release cadence a
report (`version_history_summary`) and the quality signal both show, and `resolve_version`, the
registry's own spelling of an asked version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pkgintel.domain.packages import PackageInfo, Release
from pkgintel.domain.versions import is_valid, sort_key


@dataclass(frozen=True, slots=True)
class VersionHistory:
    """Release cadence (`version_history_summary`). Velocity bands: see docs/scoring.md."""

    total_versions: int
    first_release_age_days: int | None
    last_release_days_ago: int | None
    avg_days_between_releases: float | None
    releases_last_365_days: int
    release_velocity: str


def summarise_history(releases: tuple[Release, ...], now: datetime) -> VersionHistory:
    """Cadence figures from the publish dates (releases without a date count only in the total)."""
    dates = sorted(r.published_at for r in releases if r.published_at is not None)
    total = len(releases)
    if not dates:
        return VersionHistory(total, None, None, None, 0, "unknown")
    first, last = dates[0], dates[-1]
    recent = sum(1 for d in dates if (now - d).days <= 365)
    avg = round((last - first).days / (len(dates) - 1), 1) if len(dates) > 1 else None
    if recent >= 12:
        velocity = "high"
    elif recent >= 4:
        velocity = "moderate"
    elif recent >= 1:
        velocity = "low"
    elif (now - last).days <= 730:
        velocity = "dormant"
    else:
        velocity = "inactive"
    return VersionHistory(total, (now - first).days, (now - last).days, avg, recent, velocity)


def resolve_version(info: PackageInfo, version: str) -> str:
    """
    The registry's own spelling of `version`: the exact string when published, else the release equal
    to it under the ecosystem's ordering (PEP 440: `3.0.0` is `3.0`); unchanged when none matches.
    """
    if info.release(version) is not None or not is_valid(info.ecosystem, version):
        return version
    wanted = sort_key(info.ecosystem, version)
    for rel in info.releases:
        if sort_key(info.ecosystem, rel.version) == wanted:
            return rel.version
    return version
