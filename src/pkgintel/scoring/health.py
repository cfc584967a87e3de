"""
The health score: five components, each worth a fixed number of points, summed to 0..100.

`compute_health` is pure: the clock is the `now` argument. A component we have no data for is *unscored*: it
is named in `HealthScore.unscored` and left out of the maximum, and the score is rescaled over the components
that were scored; we never invent a middle value (ADR 0004). Unknown security caps the score below the go
threshold. When too much is
unscored the score is flagged `insufficient_data` and the risk is `unknown`. The formulas and thresholds are in
`weights.py` and documented in `docs/scoring.md`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime

from pkgintel.scoring.signals import HealthSignals, VulnerabilitySummary
from pkgintel.scoring.weights import (
    BADGE_COLOURS,
    COMMUNITY_BUS_FACTOR_MULTIPLE,
    COMMUNITY_NEW_PUBLISHER_PENALTY,
    COMMUNITY_STEPS,
    COMPONENTS,
    DEFAULT_WEIGHTS,
    EPSS_CAPS,
    GO_THRESHOLD,
    INSUFFICIENT_TOGETHER,
    INSUFFICIENT_UNSCORED,
    MAINTENANCE_STEPS,
    MATURITY_AGE_STEPS,
    MATURITY_FULL_VERSIONS,
    MATURITY_VERSION_POINTS,
    MAX_SCORE,
    POPULARITY_FULL_LOG10,
    RISK_BANDS,
    SECURITY_PENALTIES,
)


@dataclass(frozen=True, slots=True)
class HealthScore:
    """
    A health score with its breakdown.

    `breakdown` holds the points each component earned (0 for an unscored one); `score` is their sum
    rescaled to 0..100 over `points_possible`, the maximum of the scored components, and capped at
    `GO_THRESHOLD - 1` when security is unscored (`partial`). `risk` is `low`, `medium`, `high` or
    `critical` by score band, or `unknown` when `insufficient_data` is set or security is unscored.
    """

    score: int
    risk: str
    breakdown: dict[str, int]
    """Points per component, keys in `COMPONENTS` order: maintenance, security, popularity, maturity, community."""
    deprecated: bool
    unscored: tuple[str, ...]
    """Components without data; each contributes 0 points."""
    insufficient_data: bool
    explanations: dict[str, str]
    """One short sentence per component saying why it got its points."""
    max_score: int = MAX_SCORE
    """The top of the score's scale: always 100 (the specification's field), since `score` is
    already rescaled to 0..100, so `score / max_score` is at most 1."""
    points_possible: int = MAX_SCORE
    """Points the scored components could earn (100 less the weights of the unscored ones)."""
    raw_score: int | None = None
    """Points earned: `sum(breakdown.values())`; `score` is this rescaled to 0..100 over
    `points_possible`."""
    partial: bool = False
    """Security could not be scored (vulnerability data unavailable): the score is capped below
    `GO_THRESHOLD`, since unknown risk is never good news."""

    @property
    def colour(self) -> str:
        """Badge colour: `green` (80-100), `yellow` (60-79), `orange` (40-59) or `red` (0-39)."""
        return badge_colour(self.score)


def badge_colour(score: int) -> str:
    """Badge colour of a score: `green` 80+, `yellow` 60-79, `orange` 40-59, `red` below 40."""
    return _band(score, BADGE_COLOURS)


def risk_band(score: int) -> str:
    """Risk of a score with sufficient data: `low` 80+, `medium` 60-79, `high` 40-59, `critical` below 40."""
    return _band(score, RISK_BANDS)


def _band(score: int, bands: tuple[tuple[int, str], ...]) -> str:
    for minimum, name in bands:
        if score >= minimum:
            return name
    return bands[-1][1]


def _round_half_up(value: float) -> int:
    """Round to the nearest integer, halves up (Python's `round` rounds halves to even)."""
    return math.floor(value + 0.5)


def days_between(earlier: datetime, now: datetime) -> int:
    """Whole days from `earlier` to `now`, never negative; naive datetimes are read as UTC."""
    if earlier.tzinfo is None:
        earlier = earlier.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return max(0, (now - earlier).days)


def maintenance_points(days_since_release: int) -> int:
    """Maintenance points for a package whose last release is this many days old (not deprecated)."""
    for max_days, points in MAINTENANCE_STEPS:
        if days_since_release <= max_days:
            return points
    return 0


def security_points(vulnerabilities: VulnerabilitySummary, malicious: bool | None) -> int:
    """
    Security points from the advisories of the evaluated version; 0 for a malicious package.

    The counts are used whatever `status` says; `compute_health` decides whether security is scored at all.
    """
    if malicious is True or vulnerabilities.kev_count > 0:
        return 0
    counts = {
        "critical": vulnerabilities.critical,
        "high": vulnerabilities.high,
        "medium": vulnerabilities.medium,
        "low": vulnerabilities.low,
        "unrated": vulnerabilities.unrated,
    }
    points = DEFAULT_WEIGHTS["security"] - sum(
        penalty * counts[severity] for severity, penalty in SECURITY_PENALTIES.items()
    )
    if vulnerabilities.max_epss is not None:
        for threshold, cap in EPSS_CAPS:
            if vulnerabilities.max_epss >= threshold:
                points = min(points, cap)
                break
    return max(0, points)


def popularity_points(weekly_downloads: int) -> int:
    """Popularity points: `round(20 * min(1, log10(w + 1) / 7))`; 10 million a week earns the full 20."""
    ratio = math.log10(max(0, weekly_downloads) + 1) / POPULARITY_FULL_LOG10
    return _round_half_up(DEFAULT_WEIGHTS["popularity"] * min(1.0, ratio))


def maturity_points(version_count: int, days_since_first_release: int | None) -> int:
    """Maturity points: a versions part (up to 10, full at 30 versions) plus an age part (up to 5)."""
    versions_part = 0
    if version_count >= 1:
        ratio = math.log10(version_count) / math.log10(MATURITY_FULL_VERSIONS)
        versions_part = _round_half_up(MATURITY_VERSION_POINTS * min(1.0, ratio))
    age_part = 0
    if days_since_first_release is not None:
        for min_days, points in MATURITY_AGE_STEPS:
            if days_since_first_release >= min_days:
                age_part = points
                break
    return versions_part + age_part


def community_points(maintainers: int) -> int:
    """Community points for this many maintainers (1 → 5, 2 → 9, 3-4 → 12, 5+ → 15; 0 → 0)."""
    for minimum, points in COMMUNITY_STEPS:
        if maintainers >= minimum:
            return points
    return 0


def compute_health(signals: HealthSignals, *, now: datetime) -> HealthScore:
    """
    Score the health of a package (at `signals.evaluated_version`) as of `now`.

    Returns a `HealthScore` whose score is the sum of its integer breakdown, clamped to 0..100. Components
    without data are listed in `unscored` and give 0 points. Never raises for any valid `HealthSignals`.
    """
    points: dict[str, int] = {}
    explanations: dict[str, str] = {}
    unscored: list[str] = []

    def record(component: str, value: int | None, why: str) -> None:
        if value is None:
            unscored.append(component)
            value = 0
        points[component] = max(0, min(DEFAULT_WEIGHTS[component], value))
        explanations[component] = why

    record(*_maintenance(signals, now))
    record(*_security(signals))
    record(*_popularity(signals))
    record(*_maturity(signals, now))
    record(*_community(signals))

    breakdown = {component: points[component] for component in COMPONENTS}
    raw = sum(breakdown.values())
    possible = sum(DEFAULT_WEIGHTS[c] for c in COMPONENTS if c not in unscored)
    # A component without data is left out of the maximum and the rest rescaled to 0..100, so a
    # missing source neither lowers nor raises the score (ADR 0004). Unknown security is the
    # exception: the score is partial and kept below the go threshold.
    score = _round_half_up(MAX_SCORE * raw / possible) if possible else 0
    partial = "security" in unscored
    if partial:
        score = min(score, GO_THRESHOLD - 1)
    score = max(0, min(MAX_SCORE, score))
    insufficient = len(unscored) >= INSUFFICIENT_UNSCORED or set(unscored) >= INSUFFICIENT_TOGETHER
    return HealthScore(
        score=score,
        raw_score=raw,
        max_score=MAX_SCORE,
        points_possible=possible,
        partial=partial,
        # Without security data no risk level can be stated, whatever the other components say.
        risk="unknown" if insufficient or "security" in unscored else risk_band(score),
        breakdown=breakdown,
        deprecated=signals.deprecated,
        unscored=tuple(c for c in COMPONENTS if c in unscored),
        insufficient_data=insufficient,
        explanations={component: explanations[component] for component in COMPONENTS},
    )


# Each helper returns (component, points or None when unscored, explanation).
_Part = tuple[str, int | None, str]


def _maintenance(signals: HealthSignals, now: datetime) -> _Part:
    if signals.deprecated:
        return "maintenance", 0, "The package is deprecated, so maintenance scores 0."
    if signals.last_release_at is None:
        return "maintenance", None, "The date of the last release is unknown; not scored."
    days = days_between(signals.last_release_at, now)
    return "maintenance", maintenance_points(days), f"Last release {_ago(days)}."


def _security(signals: HealthSignals) -> _Part:
    vulns = signals.vulnerabilities
    if signals.malicious is True:
        return "security", 0, "The package is flagged as malicious, so security scores 0."
    if not vulns.known:
        return "security", None, "Vulnerability data is unavailable; security is not scored."
    version = signals.evaluated_version
    if vulns.count == 0:
        why = f"No known advisories affect {version}"
    else:
        verb = "affects" if vulns.count == 1 else "affect"
        why = f"{_severity_counts(vulns)} {verb} {version}"
    if vulns.kev_count:
        why += f"; {vulns.kev_count} in the CISA KEV catalog, so security scores 0"
    elif vulns.max_epss is not None and vulns.max_epss >= EPSS_CAPS[-1][0]:
        why += f"; exploit probability (EPSS) up to {vulns.max_epss:.0%}"
    why += "."
    if vulns.status == "partial":
        why += " Some advisory sources did not answer, so this may be incomplete."
    elif vulns.status == "stale" or vulns.stale:
        when = f" as of {vulns.data_as_of:%Y-%m-%d}" if vulns.data_as_of else ""
        why += f" The advisory data is stale{when}, so recent advisories may be missing."
    return "security", security_points(vulns, signals.malicious), why


def _popularity(signals: HealthSignals) -> _Part:
    weekly = signals.weekly_downloads
    if weekly is None:
        return "popularity", None, "Weekly downloads are not available; not scored."
    return "popularity", popularity_points(weekly), f"{max(0, weekly):,} downloads a week."


def _maturity(signals: HealthSignals, now: datetime) -> _Part:
    count = signals.version_count
    if not signals.release_history_known:
        return "maturity", None, "The registry keeps only the current version; not scored."
    if count <= 0:
        return "maturity", None, "No published versions are known; not scored."
    first = signals.first_release_at
    age = None if first is None else days_between(first, now)
    versions = f"{count} version{'s' if count != 1 else ''}"
    when = "first release date unknown" if age is None else f"first release {_ago(age)}"
    return "maturity", maturity_points(count, age), f"{versions}, {when}."


def _community(signals: HealthSignals) -> _Part:
    maintainers = signals.maintainers_count
    if maintainers is None or maintainers <= 0:
        return "community", None, "The number of maintainers is unknown; not scored."
    plural = "s" if maintainers != 1 else ""
    note = " (a bus factor of one)" if maintainers == 1 else ""
    people = maintainers
    bus = signals.bus_factor
    if bus is not None and maintainers > 1:
        people = min(maintainers, COMMUNITY_BUS_FACTOR_MULTIPLE * bus)
        note = f"; {bus} of them published half the releases (bus factor {bus})"
    points = community_points(people)
    if signals.new_publisher_on_latest:
        points = max(0, points - COMMUNITY_NEW_PUBLISHER_PENALTY)
        note += "; the latest release came from a first-time publisher"
    return "community", points, f"{maintainers} maintainer{plural}{note}."


def _severity_counts(vulns: VulnerabilitySummary) -> str:
    parts = [
        f"{n} {severity}"
        for severity, n in (
            ("critical", vulns.critical),
            ("high", vulns.high),
            ("medium", vulns.medium),
            ("low", vulns.low),
            ("unrated", vulns.unrated),
        )
        if n
    ]
    noun = "advisory" if vulns.count == 1 else "advisories"
    return f"{', '.join(parts)} {noun}"


def _ago(days: int) -> str:
    if days < 1:
        return "today"
    if days < 2 * 365:
        return f"{days} day{'s' if days != 1 else ''} ago"
    return f"{days / 365.25:.1f} years ago"
