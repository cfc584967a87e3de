"""
The verdict rules of `scoring/verdicts.py` (issue 11), one test per rule, plus property tests over
generated advisory sets and release lists.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pkgintel.scoring import compute_health, compute_recommendation
from pkgintel.scoring.signals import VulnerabilitySummary
from pkgintel.scoring.verdicts import (
    SEVERITY_RANK,
    Candidate,
    at_or_above,
    choose_upgrade,
    effective_severity,
    established,
    far_more_popular,
    malicious_status,
    scope_compatible,
)
from tests.scoring.factories import NOW, days_ago, signals

ACTION_ORDER = (
    "safe_to_use",
    "legacy_but_working",
    "use_with_caution",
    "insufficient_data",
    "update_required",
    "find_alternative",
    "do_not_use",
)
"""Verdicts from most to least favourable (for the monotonicity property)."""


def adv(aid: str, severity: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": aid, "severity": severity, **extra}


# -- effective severity -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("detail", "expected"),
    [
        (adv("A", "critical"), "critical"),
        (adv("A", "low"), "low"),
        (adv("A", None), "medium"),  # unrated: at least medium
        (adv("A", "none"), "low"),
        (adv("A", "low", kev={"in_catalog": True}), "critical"),
        (adv("A", "low", kev={"in_catalog": False}), "low"),
        (adv("A", "low", epss={"score": 0.65}), "high"),
        (adv("A", "low", epss={"score": 0.2}), "medium"),
        (adv("A", "low", epss={"score": 0.01}), "low"),
        (adv("A", None, epss={"score": 0.65}), "high"),
        (adv("A", "critical", epss={"score": 0.9}), "critical"),
    ],
)
def test_rule_unrated_counts_as_medium_and_kev_epss_raise(
    detail: dict[str, Any], expected: str
) -> None:
    assert effective_severity(detail) == expected


# -- upgrade paths -------------------------------------------------------------------------------


def test_rule_unfixed_low_does_not_erase_the_upgrade_path() -> None:
    """Symptom 1: a fixable critical next to an unfixed low → upgrade, the low a caveat."""
    current = [adv("CRIT", "critical"), adv("LOW", "low")]
    plan = choose_upgrade(
        current,
        [
            Candidate("1.1", (adv("CRIT", "critical"), adv("LOW", "low"))),
            Candidate("2.0", (adv("LOW", "low"),)),
        ],
    )
    assert (plan.target, plan.gate) == ("2.0", "medium")
    assert plan.clears == ("CRIT",)
    assert plan.remaining == (("LOW", "low"),)


def test_rule_upgrade_path_is_judged_gate_by_gate() -> None:
    """Symptom 11: a fixed critical next to an unfixed medium still gets its upgrade."""
    current = [adv("CRIT", "critical"), adv("MED", None)]
    cands = [
        Candidate("0.3.11", (adv("CRIT", "critical"), adv("MED", None))),
        Candidate("0.4.0", (adv("MED", None),)),
    ]
    plan = choose_upgrade(current, cands)
    assert (plan.target, plan.gate) == ("0.4.0", "high")
    assert plan.remaining == (("MED", "medium"),)


def test_rule_upgrade_target_is_checked_against_its_own_advisories() -> None:
    """Symptom 7: a release that fixes the old advisory but has a new critical is not a target."""
    current = [adv("OLD", "high")]
    cands = [Candidate("3.1", (adv("NEW", "critical"),)), Candidate("3.2", ())]
    plan = choose_upgrade(current, cands)
    assert plan.target == "3.2" and plan.clears == ("OLD",)


def test_rule_malicious_releases_are_never_targets() -> None:
    plan = choose_upgrade([adv("A", "high")], [Candidate("2.0", (), malicious=True)])
    assert plan.target is None and plan.exhausted


def test_rule_nothing_blocking_needs_no_upgrade() -> None:
    plan = choose_upgrade([adv("L", "low")], [Candidate("2.0", ())])
    assert plan.target is None and plan.gate is None and not plan.exhausted


# -- recommendation precedence over the new rules -----------------------------------------------


def recommend(**changes: Any) -> str:
    s = signals(**changes)
    return compute_recommendation(s, compute_health(s, now=NOW)).action


def test_rule_any_blocking_advisory_with_a_published_fix_requires_an_update() -> None:
    """Symptom 6: django 3.0 with unrated advisories is not told to stay."""
    summary = VulnerabilitySummary(
        "complete", unrated=10, fix_available=True, fixed_version="3.0.14"
    )
    assert recommend(vulnerabilities=summary, evaluated_version="3.0") == "update_required"


def test_rule_unfixed_advisory_on_an_unmaintained_package_finds_an_alternative() -> None:
    """Symptom 6: pycrypto 2.6.1 (unrated, unfixed, no release for years)."""
    summary = VulnerabilitySummary("complete", unrated=1)
    assert recommend(vulnerabilities=summary, last_release_at=days_ago(4000)) == "find_alternative"


def test_rule_stale_advisory_data_is_never_safe() -> None:
    """Symptom 9: old data loaded yesterday is still old data."""
    assert recommend() == "safe_to_use"
    assert (
        recommend(vulnerabilities=VulnerabilitySummary("complete", stale=True))
        == "use_with_caution"
    )


# -- malicious status ----------------------------------------------------------------------------


BASE = {"loaded": True, "reports": 1, "all_versions": False, "package_gone": False}


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({"loaded": False}, "unknown"),
        ({"reports": 0}, "clean"),
        ({"all_versions": True, "latest_version": "9", "latest_affected": False}, "malicious"),
        ({"asked_version": "1.0", "asked_affected": True}, "malicious"),
        ({"asked_version": "2.0", "asked_affected": False}, "historical_incident"),
        ({"latest_version": "1.0", "latest_affected": True}, "malicious"),
        ({"latest_version": "2.0", "latest_affected": False}, "historical_incident"),
        ({"latest_version": None}, "malicious"),  # no clean release is known
        ({"package_gone": True, "latest_version": None}, "malicious"),
    ],
)
def test_rule_malicious_unless_a_clean_release_is_known(
    changes: dict[str, Any], status: str
) -> None:
    args: dict[str, Any] = {
        **BASE,
        "asked_version": None,
        "asked_affected": None,
        "latest_version": None,
        "latest_affected": None,
        **changes,
    }
    assert malicious_status(**args).status == status


def test_rule_mainstream_malicious_keeps_review_advisory() -> None:
    args: dict[str, Any] = {**BASE, "asked_version": None, "asked_affected": None}
    hot = malicious_status(
        **args, latest_version="1", latest_affected=True, weekly_downloads=250_000
    )
    cold = malicious_status(**args, latest_version="1", latest_affected=True, weekly_downloads=10)
    assert hot.status == cold.status == "malicious"
    assert hot.review_advisory and not cold.review_advisory


# -- typosquat suspicion -------------------------------------------------------------------------


def test_rule_established_packages_are_not_suspects() -> None:
    assert established(monthly_downloads=50_000) is not None
    assert established(popularity_rank=1200) is not None
    assert established(release_count=40, first_release_days=900) is not None
    assert established(release_count=40, first_release_days=30) is None
    assert established(monthly_downloads=600) is None
    assert established() is None  # unknown facts never exempt


def test_rule_a_popular_package_is_never_a_suspect_of_a_less_popular_one() -> None:
    assert far_more_popular(1_000_000, 900)
    assert not far_more_popular(10_000, 9_000)
    assert far_more_popular(None, 10)


def test_rule_scopes_are_their_own_technique() -> None:
    assert not scope_compatible("@talkjs/core", "@tapjs/core", 2)
    assert scope_compatible("@babe1/core", "@babel/core", 1)
    assert not scope_compatible("@babe1/core", "@babel/traverse", 1)
    assert scope_compatible("@tapjs/mock", "@tapjs/clock", 0)
    assert scope_compatible("types-node", "@types/node", 0)


# -- properties ------------------------------------------------------------------------------------

severities = st.sampled_from(["critical", "high", "medium", "low", "none", None])
details_st = st.builds(
    lambda i, sev, kev, epss: adv(
        f"A{i}", sev, kev={"in_catalog": kev}, epss=None if epss is None else {"score": epss}
    ),
    st.integers(0, 6),
    severities,
    st.booleans(),
    st.one_of(st.none(), st.floats(0, 1)),
)
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)


@PROPERTY
@given(
    current=st.lists(details_st, min_size=1, max_size=5),
    later=st.lists(st.tuples(st.lists(details_st, max_size=3), st.booleans()), max_size=8),
)
def test_property_a_target_is_a_candidate_and_clears_its_gate(
    current: list[dict[str, Any]], later: list[tuple[list[dict[str, Any]], bool]]
) -> None:
    cands = [Candidate(f"{i + 1}.0", tuple(d), mal) for i, (d, mal) in enumerate(later)]
    plan = choose_upgrade(current, cands)
    if plan.target is None:
        return
    chosen = next(c for c in cands if c.version == plan.target)
    assert not chosen.malicious
    assert plan.gate is not None
    assert not any(at_or_above(d, plan.gate) for d in chosen.details)
    # no earlier candidate clears the same gate
    for c in cands[: cands.index(chosen)]:
        assert c.malicious or any(at_or_above(d, plan.gate) for d in c.details)


def summary_of(details: list[dict[str, Any]], **extra: Any) -> VulnerabilitySummary:
    eff = dict.fromkeys(SEVERITY_RANK, 0)
    for d in details:
        eff[effective_severity(d)] += 1
    stated = {
        s: sum(1 for d in details if d["severity"] == s)
        for s in ("critical", "high", "medium", "low")
    }
    return VulnerabilitySummary(
        "complete",
        **stated,
        unrated=sum(1 for d in details if d["severity"] in (None, "none")),
        kev_count=sum(1 for d in details if d["kev"]["in_catalog"]),
        effective=tuple(eff.items()),
        **extra,
    )


@PROPERTY
@given(
    base=st.lists(details_st, max_size=4),
    extra=details_st,
    fixed=st.booleans(),
    old=st.booleans(),
)
def test_property_adding_an_advisory_never_makes_a_verdict_more_favourable(
    base: list[dict[str, Any]], extra: dict[str, Any], fixed: bool, old: bool
) -> None:
    fix = {"fix_available": True, "fixed_version": "9.9.9"} if fixed else {}
    when = days_ago(1500) if old else days_ago(10)
    before = recommend(vulnerabilities=summary_of(base, **fix), last_release_at=when)
    after = recommend(vulnerabilities=summary_of([*base, extra], **fix), last_release_at=when)
    if before == "update_required" and after == "update_required":
        return
    assert ACTION_ORDER.index(after) >= ACTION_ORDER.index(before), (before, after)


@PROPERTY
@given(
    downloads=st.one_of(st.none(), st.integers(0, 10**8)),
    maintainers=st.one_of(st.none(), st.integers(1, 20)),
    days=st.integers(0, 4000),
)
def test_property_removing_data_moves_a_score_only_through_unscored(
    downloads: int | None, maintainers: int | None, days: int
) -> None:
    """A missing source is left out of the maximum: the score is the rescaled points, so dropping a
    component with full points never lowers it and dropping one with no points never raises it."""
    full = compute_health(
        signals(
            weekly_downloads=downloads,
            maintainers_count=maintainers,
            last_release_at=days_ago(days),
        ),
        now=NOW,
    )
    less = compute_health(
        signals(
            weekly_downloads=None, maintainers_count=maintainers, last_release_at=days_ago(days)
        ),
        now=NOW,
    )
    assert "popularity" in less.unscored
    assert less.points_possible == full.points_possible - (
        20 if "popularity" not in full.unscored else 0
    )
    assert less.max_score == full.max_score == 100
    assert (
        less.score == round(100 * less.raw_score / less.points_possible + 1e-9)
        or abs(less.score - 100 * less.raw_score / less.points_possible) <= 0.5
    )
    if full.breakdown["popularity"] == 20:
        assert less.score <= full.score
    if full.breakdown["popularity"] == 0:
        assert less.score >= full.score


@PROPERTY
@given(
    latest_affected=st.booleans(),
    gone=st.booleans(),
    weekly=st.one_of(st.none(), st.integers(0, 10**7)),
)
def test_property_malicious_is_never_downgraded_while_the_latest_is_affected(
    latest_affected: bool, gone: bool, weekly: int | None
) -> None:
    verdict = malicious_status(
        **BASE | {"package_gone": gone},
        asked_version=None,
        asked_affected=None,
        latest_version="1.0",
        latest_affected=latest_affected,
        weekly_downloads=weekly,
    )
    if latest_affected or gone:
        assert verdict.status == "malicious"


def test_rule_stale_status_is_never_safe_and_says_when() -> None:
    """Issue 27: `stale` is a vulnerability status of its own; the caution names the data's date."""
    summary = VulnerabilitySummary(
        "stale", stale=True, data_as_of=datetime(2024, 10, 10, tzinfo=UTC)
    )
    assert summary.known
    sig = signals(vulnerabilities=summary)
    rec = compute_recommendation(sig, compute_health(sig, now=NOW))
    assert rec.action == "use_with_caution"
    assert "stale (as of 2024-10-10)" in rec.summary
    assert any("stale (as of 2024-10-10)" in issue for issue in rec.issues)
