"""Bug issues → known bugs: labels, severity, versions named, fixed-in links; real recorded bodies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pkgintel.domain.knowledge.bugs import (
    is_bug_label,
    link_fixes,
    parse_github_issues,
    severity_from_labels,
    summarise,
    versions_named,
)
from tests.shared import read_shared_json

HAND = Path(__file__).resolve().parents[2] / "recordings" / "github" / "business-bug-issues.json"
GITHUB = "registry-fixtures/github"


@pytest.mark.parametrize(
    "name",
    [
        "api.github.com_repos_octokit-fixture-org_tmp-scenario-paginate-issues-20220719043836917-izyoe_issues_per_page_3.json",
        "api.github.com_repositories_515435940_issues_per_page_3_page_2.json",
        "api.github.com_search_issues_q_sesame_20repo_3Aoctokit-fixture-org_2Ftmp-scenario-search-issues-20220719044045959-jlcli.json",
    ],
)
def test_recorded_issue_lists_parse(name: str) -> None:
    body = read_shared_json(GITHUB, name)
    everything = parse_github_issues(body, bugs_only=False)
    assert everything and all(
        b.number > 0 and b.url.startswith("https://github.com/") for b in everything
    )
    assert all(b.state == "open" and b.created_at is not None for b in everything)
    # None of these test issues carries a bug label, so none is a known bug.
    assert parse_github_issues(body) == []


def test_hand_written_bug_list() -> None:
    bugs = parse_github_issues(json.loads(HAND.read_text()))
    assert [b.number for b in bugs] == [
        83,
        120,
        121,
    ]  # the enhancement and the pull request are left out
    by = {b.number: b for b in bugs}
    assert by[83].severity == "high"  # regression
    assert by[121].severity == "high"
    assert by[120].severity == "unrated"
    assert by[83].versions == ("2.2.0", "2.1.0")
    assert by[120].versions == ("2.3.0",)
    assert by[83].state == "closed" and by[83].closed_at is not None


def test_fixed_in_from_release_notes() -> None:
    bugs = parse_github_issues(json.loads(HAND.read_text()))
    notes = [
        ("2.2.0", "Add name"),
        ("2.2.1", "Fix regression on `Calendar#new` #83"),
        ("2.3.0", "see #83 #120"),
    ]
    linked = {b.number: b for b in link_fixes(bugs, notes)}
    assert linked[83].fixed_in == "2.2.1"
    assert linked[120].fixed_in is None  # still open: a reference is not a fix


def test_labels_and_versions() -> None:
    assert is_bug_label("bug") and is_bug_label("type: bug") and is_bug_label("kind/bug")
    assert not is_bug_label("debugging") and not is_bug_label("enhancement")
    assert severity_from_labels(["bug", "P0"]) == "critical"
    assert severity_from_labels(["bug", "priority: low"]) == "low"
    assert severity_from_labels(["bug"]) == "unrated"
    assert versions_named("fails on v1.2.3 and version 2.0; see 1.2 docs") == ("1.2.3", "2.0")


def test_summary() -> None:
    bugs = parse_github_issues(json.loads(HAND.read_text()))
    s = summarise(bugs, link="https://github.com/x/y/issues", scope="s")
    assert s.bugs_count == 3
    assert s.bugs_severity == {"high": 2, "unrated": 1}
    assert s.status_breakdown == {"open": 2, "closed": 1}
    with pytest.raises(ValueError, match="array"):
        parse_github_issues("nope")
