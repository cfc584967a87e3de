"""`compute_recommendation`: the precedence of rules, use_version, hints, issues and summary."""

from __future__ import annotations

from typing import Any

import pytest

from pkgintel.scoring import (
    ACTIONS,
    NO_VERSION,
    HealthSignals,
    compute_health,
    compute_recommendation,
)
from pkgintel.scoring.recommendation import VERDICTS, Recommendation
from tests.scoring.factories import NOW, days_ago, signals, vulns

FIXED = {"fix_available": True, "fixed_version": "4.17.22"}
OLD = days_ago(1000)


def recommend(s: HealthSignals) -> Recommendation:
    return compute_recommendation(s, compute_health(s, now=NOW))


@pytest.mark.parametrize(
    ("changes", "action", "use_version"),
    [
        # 1. malicious wins over everything
        ({"malicious": True}, "do_not_use", NO_VERSION),
        (
            {"malicious": True, "vulnerabilities": vulns(critical=1, **FIXED)},
            "do_not_use",
            NO_VERSION,
        ),
        # 2. critical/high/KEV with a fix → update
        ({"vulnerabilities": vulns(critical=1, **FIXED)}, "update_required", "4.17.22"),
        ({"vulnerabilities": vulns(high=2, **FIXED)}, "update_required", "4.17.22"),
        (
            {"vulnerabilities": vulns(critical=1, kev_count=1, **FIXED)},
            "update_required",
            "4.17.22",
        ),
        ({"vulnerabilities": vulns(medium=1, kev_count=1, **FIXED)}, "update_required", "4.17.22"),
        # a fix that no published release is named for is not an upgrade target
        ({"vulnerabilities": vulns(high=1, fix_available=True)}, "find_alternative", NO_VERSION),
        # an unrated advisory counts as medium: with a published fix, update
        ({"vulnerabilities": vulns(unrated=1, **FIXED)}, "update_required", "4.17.22"),
        ({"vulnerabilities": vulns(medium=1, **FIXED)}, "update_required", "4.17.22"),
        (
            {"vulnerabilities": vulns(critical=1, **FIXED), "deprecated": True},
            "update_required",
            "4.17.22",
        ),
        # 3. KEV or critical without a fix
        ({"vulnerabilities": vulns(critical=1)}, "do_not_use", NO_VERSION),
        ({"vulnerabilities": vulns(medium=1, kev_count=1)}, "do_not_use", NO_VERSION),
        ({"vulnerabilities": vulns(critical=1, high=1)}, "do_not_use", NO_VERSION),
        # 4. high without a fix
        ({"vulnerabilities": vulns(high=1)}, "find_alternative", NO_VERSION),
        ({"vulnerabilities": vulns(high=1), "deprecated": True}, "find_alternative", NO_VERSION),
        # 5. deprecated
        ({"deprecated": True}, "find_alternative", "4.17.21"),
        (
            {"deprecated": True, "weekly_downloads": None, "last_release_at": None},
            "find_alternative",
            "4.17.21",
        ),
        # 6. insufficient data
        ({"weekly_downloads": None, "last_release_at": None}, "insufficient_data", "4.17.21"),
        (
            {"maintainers_count": None, "version_count": 0, "weekly_downloads": None},
            "insufficient_data",
            "4.17.21",
        ),
        # an unfixed medium (or unrated) advisory on an unmaintained package: find an alternative
        (
            {"last_release_at": OLD, "vulnerabilities": vulns(medium=1)},
            "find_alternative",
            NO_VERSION,
        ),
        (
            {"last_release_at": OLD, "vulnerabilities": vulns(unrated=1)},
            "find_alternative",
            NO_VERSION,
        ),
        # 7. legacy: old, vulnerability data known, nothing medium or worse
        ({"last_release_at": OLD}, "legacy_but_working", "4.17.21"),
        (
            {"last_release_at": OLD, "vulnerabilities": vulns(low=1)},
            "legacy_but_working",
            "4.17.21",
        ),
        (
            {"last_release_at": OLD, "vulnerabilities": vulns("partial")},
            "legacy_but_working",
            "4.17.21",
        ),
        (
            {"last_release_at": OLD, "vulnerabilities": vulns("unavailable")},
            "use_with_caution",
            "4.17.21",
        ),
        ({"last_release_at": days_ago(730)}, "safe_to_use", "4.17.21"),
        # 8. safe only with complete data, a negative malware check, no medium advisory, score >= 70
        ({}, "safe_to_use", "4.17.21"),
        ({"vulnerabilities": vulns(low=2)}, "safe_to_use", "4.17.21"),
        ({"weekly_downloads": None}, "safe_to_use", "4.17.21"),
        # 9. otherwise caution
        ({"malicious": None}, "use_with_caution", "4.17.21"),
        ({"vulnerabilities": vulns("partial")}, "use_with_caution", "4.17.21"),
        ({"vulnerabilities": vulns("unavailable")}, "use_with_caution", "4.17.21"),
        ({"vulnerabilities": vulns("unavailable", critical=3)}, "use_with_caution", "4.17.21"),
        ({"vulnerabilities": vulns(medium=1)}, "use_with_caution", "4.17.21"),
        (
            {"weekly_downloads": 10, "maintainers_count": 1, "version_count": 2},
            "use_with_caution",
            "4.17.21",
        ),
    ],
)
def test_precedence(changes: dict[str, Any], action: str, use_version: str) -> None:
    rec = recommend(signals(**changes))
    assert rec.action == action
    assert rec.use_version == use_version
    assert rec.summary.startswith(VERDICTS[action] + ":")
    assert rec.summary.endswith(".")


def test_every_action_has_a_verdict() -> None:
    assert set(VERDICTS) == set(ACTIONS)
    assert len(ACTIONS) == 7


def test_update_required_hints_the_fixed_version() -> None:
    rec = recommend(
        signals(evaluated_version="4.17.15", vulnerabilities=vulns(critical=1, **FIXED))
    )
    assert rec.version_hint == "upgrade to 4.17.22"
    assert rec.issues[0] == "1 critical advisory affects 4.17.15."
    assert "Fixed in the published release 4.17.22." in rec.issues


def test_issues_are_most_severe_first() -> None:
    summary = vulns(critical=1, high=2, medium=1, low=1, kev_count=1, max_epss=0.3)
    rec = recommend(signals(vulnerabilities=summary, deprecated=True, deprecated_message="Use y."))
    assert rec.issues[:5] == (
        "1 advisory affecting 4.17.21 is in the CISA KEV catalog (exploited in the wild).",
        "1 critical advisory affects 4.17.21.",
        "2 high advisories affect 4.17.21.",
        "No published release fixes them.",
        "Deprecated: Use y.",
    )
    assert rec.issues[5:] == (
        "1 medium advisory affects 4.17.21.",
        "1 low advisory affects 4.17.21.",
        "Health score 50 is below 70.",
    )


def test_deprecation_message_becomes_a_sentence() -> None:
    rec = recommend(signals(deprecated=True, deprecated_message="  use lodash-es  "))
    assert rec.issues[0] == "Deprecated: use lodash-es."


def test_deprecation_message_is_in_issues_on_one_line() -> None:
    message = "This package is\n  no longer maintained. " + "x" * 400
    rec = recommend(signals(deprecated=True, deprecated_message=message))
    issue = rec.issues[0]
    assert issue.startswith("Deprecated: This package is no longer maintained.")
    assert "\n" not in issue
    assert len(issue) < 250


@pytest.mark.parametrize(
    ("changes", "issue"),
    [
        (
            {"vulnerabilities": vulns("unavailable")},
            "Vulnerability data unavailable: security not verified.",
        ),
        (
            {"vulnerabilities": vulns("partial")},
            "Vulnerability data is partial: some advisory sources did not answer.",
        ),
        ({"malicious": None}, "Not checked against malicious-package reports."),
        ({"weekly_downloads": None}, "Not scored for lack of data: popularity."),
        ({"last_release_at": OLD}, "No release in more than two years."),
        (
            {"vulnerabilities": vulns(low=1, max_epss=0.42)},
            "An advisory has a 42% exploit probability (EPSS).",
        ),
    ],
)
def test_caution_reasons_are_listed(changes: dict[str, Any], issue: str) -> None:
    assert issue in recommend(signals(**changes)).issues


def test_caution_summary_says_why() -> None:
    rec = recommend(signals(vulnerabilities=vulns("unavailable"), malicious=None))
    assert rec.summary == (
        "Use with caution: security not verified; not checked for malicious-package reports."
    )


def test_safe_package_has_no_issues() -> None:
    rec = recommend(signals())
    assert rec.issues == ()
    assert rec.version_hint is None


@pytest.mark.parametrize(
    ("latest_is_prerelease", "hint"),
    [(False, "the latest version is 4.17.21"), (True, None)],
)
def test_version_hint_points_to_latest(latest_is_prerelease: bool, hint: str | None) -> None:
    rec = recommend(signals(evaluated_version="4.17.20", latest_is_prerelease=latest_is_prerelease))
    assert rec.use_version == "4.17.20"
    assert rec.version_hint == hint


def test_malicious_names_no_version() -> None:
    rec = recommend(signals(malicious=True))
    assert rec.use_version == "none"
    assert rec.issues[0] == "Flagged as malicious: do not install any version."
    assert rec.version_hint is None
