"""Maintainer trust: GitHub bodies parsed (real recorded ones from ../shared/data and a hand-written
user) and scored by the documented rule (docs/scoring.md, "Maintainer trust")."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.signals.github_facts import (
    Account,
    parse_account,
    parse_organisations,
    parse_repositories,
    parse_repository,
    validate_login,
)
from pkgintel.scoring.trust import TRUST_WEIGHTS, compute_trust
from tests.shared import read_shared_json

NOW = datetime(2026, 11, 24, tzinfo=UTC)
ADA = json.loads(
    (Path(__file__).parents[1] / "recordings" / "github" / "account-ada-example.json").read_text()
)


def test_repository_stats_from_the_recorded_scorecard_body():
    stats = parse_repository(
        read_shared_json("registry-fixtures", "github", "api.github.com_repos_ossf_scorecard.json")
    )
    assert stats is not None
    assert (stats.full_name, stats.stars, stats.forks, stats.open_issues) == (
        "ossf/scorecard",
        5139,
        581,
        363,
    )
    assert stats.archived is False and stats.owner_type == "Organization"
    assert stats.pushed_at == datetime(2025, 11, 14, 17, 30, 21, tzinfo=UTC)


def test_an_old_body_without_archived_says_unknown_not_false():
    stats = parse_repository(
        read_shared_json(
            "registry-fixtures", "github", "api.github.com_repos_gocardless_business.json"
        )
    )
    assert stats is not None and stats.stars == 133
    assert stats.archived is None


def test_organisation_account_from_the_recorded_body():
    acc = parse_account(
        read_shared_json(
            "registry-fixtures", "github", "api.github.com_orgs_octokit-fixture-org.json"
        )
    )
    assert acc is not None
    assert (acc.type, acc.public_repos, acc.followers) == ("Organization", 316, 0)
    score = compute_trust(acc, (), None, now=NOW)
    assert "organizations" in score.unscored
    assert score.breakdown["followers"] == 0


def test_user_trust_breakdown():
    acc = parse_account(ADA["user"])
    assert acc is not None
    repos = parse_repositories(ADA["repos"])
    orgs = parse_organisations(ADA["orgs"])
    score = compute_trust(acc, repos, orgs, now=NOW)
    assert score.unscored == ()
    assert score.max_score == 100
    b = score.breakdown
    assert b["account_age"] == 25  # 12 years
    assert b["activity"] == 15  # pushed 14 days ago
    assert b["organizations"] == 7  # one membership
    # a fork's stars are not the owner's work: fastcsv (2,400) counts, the forked linux does not
    assert b["popular_repos"] == 21  # round(25 * log10(2401) / 4)
    assert "fastcsv" in score.explanations["popular_repos"]
    assert score.score == sum(b.values())
    assert score.level == "high"


def test_missing_repositories_are_unscored_not_zero():
    acc = parse_account(ADA["user"])
    assert acc is not None
    full = compute_trust(acc, parse_repositories(ADA["repos"]), (), now=NOW)
    partial = compute_trust(acc, None, (), now=NOW)
    assert set(partial.unscored) == {"popular_repos", "activity"}
    assert partial.max_score == 100 - TRUST_WEIGHTS["popular_repos"] - TRUST_WEIGHTS["activity"]
    assert 0 <= partial.score <= 100
    assert full.breakdown["account_age"] == partial.breakdown["account_age"]


def test_a_new_account_scores_low():
    acc = Account("fresh", "User", None, datetime(2026, 11, 1, tzinfo=UTC), 0, 1)
    score = compute_trust(acc, (), (), now=NOW)
    assert score.breakdown["account_age"] == 0
    assert score.level == "low"


@given(
    followers=st.integers(0, 10**7),
    repos=st.integers(0, 10**5),
    days=st.integers(0, 10**4),
)
def test_trust_stays_in_range(followers: int, repos: int, days: int) -> None:
    from datetime import timedelta

    acc = Account("x", "User", None, NOW - timedelta(days=days), followers, repos)
    score = compute_trust(acc, None, None, now=NOW)
    assert 0 <= score.score <= 100


@pytest.mark.parametrize("login", ["-bad", "bad-", "a--b", "x" * 40, "a/b", ""])
def test_invalid_logins_are_refused(login: str):
    with pytest.raises(InvalidInput):
        validate_login(login)


def test_valid_login():
    assert validate_login("sindresorhus") == "sindresorhus"
    assert validate_login("a-b-c") == "a-b-c"
