"""Hypothesis properties of the scoring core, over arbitrary (valid) signals."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pkgintel.scoring import (
    ACTIONS,
    COMPONENTS,
    DEFAULT_WEIGHTS,
    GO_THRESHOLD,
    LICENSE_CLASSES,
    LICENSE_RISKS,
    VULNERABILITY_STATUSES,
    HealthSignals,
    VulnerabilitySummary,
    classify_license,
    compute_health,
    compute_recommendation,
)
from pkgintel.scoring.recommendation import VERDICTS
from tests.scoring.factories import NOW

PROPERTY = settings(max_examples=300, database=None, deadline=None)

counts = st.integers(min_value=0, max_value=12)
moments = st.none() | st.datetimes(
    min_value=datetime(1995, 1, 1), max_value=datetime(2030, 1, 1), timezones=st.just(UTC)
)
versions = st.sampled_from(["1.0.0", "2.3.4", "0.1.0-beta.1", "4.17.21"])

summaries = st.builds(
    VulnerabilitySummary,
    status=st.sampled_from(VULNERABILITY_STATUSES),
    critical=counts,
    high=counts,
    medium=counts,
    low=counts,
    kev_count=st.integers(min_value=0, max_value=3),
    max_epss=st.none() | st.floats(min_value=0, max_value=1),
    fix_available=st.booleans(),
    fixed_version=st.none() | versions,
)

health_signals = st.builds(
    HealthSignals,
    last_release_at=moments,
    first_release_at=moments,
    version_count=st.integers(min_value=0, max_value=5000),
    weekly_downloads=st.none() | st.integers(min_value=0, max_value=10**10),
    maintainers_count=st.none() | st.integers(min_value=0, max_value=200),
    deprecated=st.booleans(),
    deprecated_message=st.none() | st.text(max_size=300),
    vulnerabilities=summaries,
    malicious=st.none() | st.booleans(),
    latest_version=versions,
    evaluated_version=versions,
    latest_is_prerelease=st.booleans(),
)


def rescaled(health: object) -> int:
    """The score rule of ADR 0004: points over the scored maximum, to 0..100, capped at 69 when
    security is unscored."""
    points = sum(health.breakdown.values())  # type: ignore[attr-defined]
    possible = health.points_possible  # type: ignore[attr-defined]
    score = int(100 * points / possible + 0.5) if possible else 0
    return min(score, 69) if "security" in health.unscored else score  # type: ignore[attr-defined]


@PROPERTY
@given(health_signals)
def test_score_is_the_sum_of_a_bounded_breakdown(signals: HealthSignals) -> None:
    health = compute_health(signals, now=NOW)
    assert 0 <= health.score <= 100
    assert health.raw_score == sum(health.breakdown.values())
    assert health.max_score == 100
    assert health.points_possible == 100 - sum(DEFAULT_WEIGHTS[c] for c in health.unscored)
    assert health.score == rescaled(health)
    assert tuple(health.breakdown) == COMPONENTS
    for component, points in health.breakdown.items():
        assert isinstance(points, int)
        assert 0 <= points <= DEFAULT_WEIGHTS[component]
    for component in health.unscored:
        assert health.breakdown[component] == 0
    assert (health.risk == "unknown") is (health.insufficient_data or "security" in health.unscored)
    assert health.colour in ("green", "yellow", "orange", "red")


@PROPERTY
@given(health_signals)
def test_a_new_unfixed_critical_advisory_never_raises_the_score(signals: HealthSignals) -> None:
    worse = replace(
        signals.vulnerabilities,
        critical=signals.vulnerabilities.critical + 1,
        fix_available=False,
        fixed_version=None,
    )
    before = compute_health(signals, now=NOW).score
    after = compute_health(replace(signals, vulnerabilities=worse), now=NOW).score
    assert after <= before


@PROPERTY
@given(health_signals)
def test_recommendation_is_well_formed(signals: HealthSignals) -> None:
    rec = compute_recommendation(signals, compute_health(signals, now=NOW))
    assert rec.action in ACTIONS
    assert isinstance(rec.use_version, str)
    assert rec.use_version
    assert rec.summary.startswith(VERDICTS[rec.action] + ": ")
    assert all(isinstance(issue, str) and issue for issue in rec.issues)


@PROPERTY
@given(health_signals)
def test_unverified_security_is_never_safe(signals: HealthSignals) -> None:
    unknown = replace(
        signals, vulnerabilities=replace(signals.vulnerabilities, status="unavailable")
    )
    rec = compute_recommendation(unknown, compute_health(unknown, now=NOW))
    assert rec.action != "safe_to_use"


@PROPERTY
@given(health_signals)
def test_safe_to_use_has_every_guarantee(signals: HealthSignals) -> None:
    health = compute_health(signals, now=NOW)
    rec = compute_recommendation(signals, health)
    if rec.action == "safe_to_use":
        vulns = signals.vulnerabilities
        assert vulns.status == "complete"
        assert signals.malicious is False
        assert not signals.deprecated
        assert vulns.critical == vulns.high == vulns.medium == vulns.kev_count == 0
        assert health.score >= GO_THRESHOLD
        assert not health.insufficient_data


@PROPERTY
@given(health_signals, st.integers(min_value=1, max_value=5), st.booleans(), versions)
def test_a_fixable_vulnerable_version_must_be_updated(
    signals: HealthSignals, n: int, critical: bool, fixed: str
) -> None:
    vulns = replace(
        signals.vulnerabilities,
        status="complete",
        critical=n if critical else 0,
        high=0 if critical else n,
        fix_available=True,
        fixed_version=fixed,
    )
    vulnerable = replace(signals, vulnerabilities=vulns, malicious=False)
    rec = compute_recommendation(vulnerable, compute_health(vulnerable, now=NOW))
    assert rec.action == "update_required"
    assert rec.use_version == fixed


@PROPERTY
@given(st.none() | st.text(max_size=400))
def test_classify_license_never_raises(raw: str | None) -> None:
    assessment = classify_license(raw)
    assert assessment.license_risk in LICENSE_RISKS
    assert assessment.license_class in LICENSE_CLASSES
    assert assessment.commercial_safe is (
        assessment.license_class in ("permissive", "weak_copyleft")
    )


@PROPERTY
@given(
    st.lists(
        st.sampled_from(
            ["MIT", "GPL-2.0-only", "LGPL-3.0-or-later", "AGPL-3.0-only", "ISC", "Foo"]
        ),
        min_size=2,
        max_size=4,
    )
)
def test_or_is_never_stricter_than_and(ids: list[str]) -> None:
    rank = {"permissive": 0, "weak_copyleft": 1, "strong_copyleft": 2, "network_copyleft": 3}
    either = classify_license(" OR ".join(ids)).license_risk
    both = classify_license(" AND ".join(ids)).license_risk
    if "Foo" in ids:
        assert both == "unknown"
    else:
        assert rank[either] <= rank[both]
