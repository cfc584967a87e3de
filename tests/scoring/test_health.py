"""`compute_health`: each component's formula at its thresholds, unscored components, risk and colour."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pkgintel.scoring import (
    COMPONENTS,
    VulnerabilitySummary,
    badge_colour,
    compute_health,
    risk_band,
)
from tests.scoring.factories import HEALTHY, NOW, days_ago, signals, vulns


def test_healthy_package_scores_100() -> None:
    health = compute_health(HEALTHY, now=NOW)
    assert health.score == 100
    assert health.risk == "low"
    assert health.colour == "green"
    assert health.unscored == ()
    assert not health.insufficient_data
    assert health.max_score == 100
    assert tuple(health.breakdown) == COMPONENTS
    assert tuple(health.explanations) == COMPONENTS
    assert all(health.explanations.values())


@pytest.mark.parametrize(
    ("days", "points"),
    [
        (0, 25),
        (90, 25),
        (91, 21),
        (180, 21),
        (181, 16),
        (365, 16),
        (366, 10),
        (730, 10),
        (731, 5),
        (1460, 5),
        (1461, 0),
        (5000, 0),
        (-10, 25),  # a release date in the future counts as today
    ],
)
def test_maintenance_by_days_since_last_release(days: int, points: int) -> None:
    health = compute_health(signals(last_release_at=days_ago(days)), now=NOW)
    assert health.breakdown["maintenance"] == points


def test_maintenance_is_zero_when_deprecated() -> None:
    health = compute_health(signals(deprecated=True, deprecated_message="use x"), now=NOW)
    assert health.breakdown["maintenance"] == 0
    assert "maintenance" not in health.unscored
    assert health.deprecated


def test_maintenance_unscored_without_release_date() -> None:
    health = compute_health(signals(last_release_at=None), now=NOW)
    assert health.breakdown["maintenance"] == 0
    assert health.unscored == ("maintenance",)


def test_naive_datetimes_are_read_as_utc() -> None:
    naive = days_ago(100).replace(tzinfo=None)
    health = compute_health(signals(last_release_at=naive), now=NOW)
    assert health.breakdown["maintenance"] == 21


@pytest.mark.parametrize(
    ("summary", "points"),
    [
        (vulns(), 25),
        (vulns(critical=1), 13),
        (vulns(critical=2), 1),
        (vulns(critical=3), 0),
        (vulns(high=1), 18),
        (vulns(high=3, medium=2), 0),
        (vulns(medium=1), 22),
        (vulns(low=1), 24),
        (vulns(critical=1, high=1, medium=1, low=1), 2),
        (vulns(medium=1, kev_count=1), 0),
        (vulns(low=1, max_epss=0.6), 5),
        (vulns(low=1, max_epss=0.5), 5),
        (vulns(low=1, max_epss=0.49), 15),
        (vulns(low=1, max_epss=0.1), 15),
        (vulns(low=1, max_epss=0.09), 24),
        (vulns(critical=1, max_epss=0.2), 13),  # the cap never raises points
        (vulns("partial", high=1), 18),
    ],
)
def test_security_formula(summary: VulnerabilitySummary, points: int) -> None:
    health = compute_health(signals(vulnerabilities=summary), now=NOW)
    assert health.breakdown["security"] == points
    assert "security" not in health.unscored


def test_security_partial_data_is_said_in_explanation() -> None:
    health = compute_health(signals(vulnerabilities=vulns("partial")), now=NOW)
    assert health.breakdown["security"] == 25
    assert "incomplete" in health.explanations["security"]


def test_security_unavailable_is_unscored_and_counts_are_ignored() -> None:
    summary = vulns("unavailable", critical=0, low=0)
    health = compute_health(signals(vulnerabilities=summary), now=NOW)
    assert health.breakdown["security"] == 0
    assert health.unscored == ("security",)
    # 75 points of the 75 the scored components could earn: 100 rescaled, but unknown security
    # keeps the score below the go threshold (ADR 0004).
    assert (health.raw_score, health.points_possible, health.partial) == (75, 75, True)
    assert health.max_score == 100
    assert health.score == 69
    assert "unavailable" in health.explanations["security"]


@pytest.mark.parametrize("status", ["complete", "unavailable"])
def test_malicious_scores_security_zero(status: str) -> None:
    health = compute_health(signals(malicious=True, vulnerabilities=vulns(status)), now=NOW)
    assert health.breakdown["security"] == 0
    assert "security" not in health.unscored
    assert "malicious" in health.explanations["security"]


@pytest.mark.parametrize(
    ("weekly", "points"),
    [
        (0, 0),
        (9, 3),
        (99, 6),
        (999, 9),
        (9_999, 11),
        (99_999, 14),
        (999_999, 17),
        (9_999_999, 20),
        (2_000_000_000, 20),
        (-5, 0),
    ],
)
def test_popularity_by_weekly_downloads(weekly: int, points: int) -> None:
    health = compute_health(signals(weekly_downloads=weekly), now=NOW)
    assert health.breakdown["popularity"] == points


def test_popularity_unscored_when_downloads_unknown() -> None:
    health = compute_health(signals(weekly_downloads=None), now=NOW)
    assert health.breakdown["popularity"] == 0
    assert health.unscored == ("popularity",)


@pytest.mark.parametrize(
    ("versions", "age_days", "points"),
    [
        (1, None, 0),
        (2, None, 2),
        (5, None, 5),
        (10, None, 7),
        (30, None, 10),
        (500, None, 10),
        (30, 730, 15),
        (30, 729, 13),
        (30, 365, 13),
        (30, 364, 11),
        (30, 90, 11),
        (30, 89, 10),
        (1, 5000, 5),
    ],
)
def test_maturity_by_versions_and_age(versions: int, age_days: int | None, points: int) -> None:
    first = None if age_days is None else days_ago(age_days)
    health = compute_health(signals(version_count=versions, first_release_at=first), now=NOW)
    assert health.breakdown["maturity"] == points


def test_maturity_unscored_without_versions() -> None:
    health = compute_health(signals(version_count=0), now=NOW)
    assert health.breakdown["maturity"] == 0
    assert health.unscored == ("maturity",)


@pytest.mark.parametrize(
    ("maintainers", "points"), [(1, 5), (2, 9), (3, 12), (4, 12), (5, 15), (80, 15)]
)
def test_community_by_maintainers(maintainers: int, points: int) -> None:
    health = compute_health(signals(maintainers_count=maintainers), now=NOW)
    assert health.breakdown["community"] == points


@pytest.mark.parametrize("maintainers", [None, 0])
def test_community_unscored_when_maintainers_unknown(maintainers: int | None) -> None:
    health = compute_health(signals(maintainers_count=maintainers), now=NOW)
    assert health.breakdown["community"] == 0
    assert health.unscored == ("community",)


@pytest.mark.parametrize(
    ("changes", "insufficient"),
    [
        ({"weekly_downloads": None}, False),
        ({"weekly_downloads": None, "maintainers_count": None}, False),
        ({"weekly_downloads": None, "last_release_at": None}, True),
        (
            {"weekly_downloads": None, "maintainers_count": None, "version_count": 0},
            True,
        ),
        (
            {"vulnerabilities": vulns("unavailable"), "maintainers_count": 0, "version_count": 0},
            True,
        ),
    ],
)
def test_insufficient_data(changes: dict[str, object], insufficient: bool) -> None:
    health = compute_health(signals(**changes), now=NOW)
    assert health.insufficient_data is insufficient
    assert (health.risk == "unknown") is (insufficient or "security" in health.unscored)
    assert health.raw_score == sum(health.breakdown.values())


def test_risk_is_unknown_without_security_data() -> None:
    health = compute_health(signals(vulnerabilities=vulns("unavailable")), now=NOW)
    assert not health.insufficient_data
    assert health.unscored == ("security",)
    assert health.risk == "unknown"


def test_unscored_are_listed_in_component_order() -> None:
    changes = {"maintainers_count": None, "last_release_at": None, "weekly_downloads": None}
    health = compute_health(signals(**changes), now=NOW)
    assert health.unscored == ("maintenance", "popularity", "community")


@pytest.mark.parametrize(
    ("score", "risk", "colour"),
    [
        (100, "low", "green"),
        (80, "low", "green"),
        (79, "medium", "yellow"),
        (60, "medium", "yellow"),
        (59, "high", "orange"),
        (40, "high", "orange"),
        (39, "critical", "red"),
        (0, "critical", "red"),
    ],
)
def test_risk_bands_and_badge_colours(score: int, risk: str, colour: str) -> None:
    assert risk_band(score) == risk
    assert badge_colour(score) == colour


def test_score_and_colour_follow_breakdown() -> None:
    old = signals(
        last_release_at=days_ago(1000),
        weekly_downloads=999,
        maintainers_count=1,
        vulnerabilities=vulns(high=1),
    )
    health = compute_health(old, now=NOW)
    assert health.breakdown == {
        "maintenance": 5,
        "security": 18,
        "popularity": 9,
        "maturity": 15,
        "community": 5,
    }
    assert health.score == 52
    assert health.risk == "high"
    assert health.colour == "orange"


def test_explanations_name_the_facts() -> None:
    health = compute_health(
        signals(vulnerabilities=vulns(critical=1, kev_count=1), maintainers_count=1), now=NOW
    )
    assert "30 days ago" in health.explanations["maintenance"]
    assert "KEV" in health.explanations["security"]
    assert "40,000,000" in health.explanations["popularity"]
    assert "114 versions" in health.explanations["maturity"]
    assert "bus factor" in health.explanations["community"]


def test_unknown_vulnerability_status_is_rejected() -> None:
    with pytest.raises(ValueError, match="status"):
        VulnerabilitySummary(status="ok")


def test_negative_counts_are_rejected() -> None:
    with pytest.raises(ValueError, match="negative"):
        VulnerabilitySummary(status="complete", high=-1)


def test_now_is_the_only_clock() -> None:
    later = datetime(2030, 1, 1, tzinfo=UTC)
    assert compute_health(HEALTHY, now=later).breakdown["maintenance"] == 5
    assert compute_health(HEALTHY, now=NOW).breakdown["maintenance"] == 25
