"""Release notes → per-version sections and breaking changes, on real recorded bodies and files."""

from __future__ import annotations

from pathlib import Path

import pytest

from pkgintel.domain.knowledge.release_notes import (
    classify_entry,
    mark_major_bumps,
    parse_changelog,
    parse_github_releases,
    version_from_tag,
)
from tests.shared import read_shared_json

CHANGELOGS = Path(__file__).resolve().parents[2] / "recordings" / "changelogs"
GITHUB = "registry-fixtures/github"


def test_gocardless_releases_are_sections_per_version_with_links() -> None:
    body = read_shared_json(
        GITHUB, "api.github.com_repos_gocardless_business_releases_per_page_100.json"
    )
    sections = parse_github_releases(body, package="business")
    assert [s.version for s in sections] == [
        "1.7.0.beta",
        "1.7.0.alpha",
        "1.8.0",
        "1.7.0",
        "1.6.0",
        "1.5.0",
    ]
    by_version = {s.version: s for s in sections}
    assert by_version["1.8.0"].url == "https://github.com/gocardless/business/releases/tag/v1.8.0"
    assert by_version["1.8.0"].entries == (
        "Add 2018-2027 TARGET holiday defintions",
        "Add 2018-2027 Bankgirot holiday defintions",
    )
    assert by_version["1.8.0"].published_at is not None
    # Adding holiday definitions breaks nobody; the version heading inside 1.6.0's body is not an entry.
    assert all(not s.breaking for s in sections)
    assert "v1.6.0" not in by_version["1.6.0"].entries


def test_monorepo_tags_are_kept_apart_and_breaking_entries_found() -> None:
    body = read_shared_json(GITHUB, "api.github.com_repos_tmenier_Flurl_releases_per_page_100.json")
    http = parse_github_releases(body, package="Flurl.Http")
    core = parse_github_releases(body, package="Flurl")
    assert http and core
    assert not {s.url for s in http} & {s.url for s in core}
    v230 = next(s for s in http if s.version == "2.3.0")
    assert len(v230.breaking) >= 3
    assert all(b.kind == "explicit" and b.source_url == v230.url for b in v230.breaking)
    removal = next(s for s in http if s.version == "2.2.0")
    assert [b.kind for b in removal.breaking] == ["removal"]


def test_markdown_changelog_of_gocardless_business() -> None:
    text = (CHANGELOGS / "gocardless-business-CHANGELOG.md").read_text()
    url = "https://github.com/gocardless/business/blob/HEAD/CHANGELOG.md"
    sections = {s.version: s for s in parse_changelog(text, url=url)}
    assert list(sections)[:3] == ["2.3.0", "2.2.1", "2.2.0"]
    assert "1.0.0" in sections
    v2 = sections["2.0.0"]
    # The "BREAKING CHANGES" banner marks every entry of the section as breaking.
    assert {b.kind for b in v2.breaking} == {"explicit"}
    assert any("load_paths" in b.text for b in v2.breaking)
    assert sections["2.0.0"].published_at is not None
    assert sections["2.0.0"].published_at.date().isoformat() == "2020-05-04"
    assert [b.kind for b in sections["2.3.0"].breaking] == ["dropped_support"]
    assert [b.kind for b in sections["1.18.0"].breaking] == ["dropped_support"]
    assert [b.kind for b in sections["1.4.0"].breaking] == ["removal"]
    assert not sections["2.2.1"].breaking
    assert all(b.source_url == url for s in sections.values() for b in s.breaking)


def test_rst_changelog_of_itsdangerous() -> None:
    text = (CHANGELOGS / "pallets-itsdangerous-CHANGES.rst").read_text()
    sections = {s.version: s for s in parse_changelog(text, url="u")}
    assert "2.2.0" in sections and "0.19" in sections
    assert sections["2.2.0"].published_at is not None
    assert sections["2.2.0"].published_at.date().isoformat() == "2024-04-16"
    assert [b.kind for b in sections["2.1.0"].breaking] == ["dropped_support", "removal"]
    # "without breaking existing signatures" is not a breaking change.
    assert not sections["1.1.0"].breaking


@pytest.mark.parametrize(
    ("tag", "package", "expected"),
    [
        ("v1.2.3", None, "1.2.3"),
        ("1.2.3", "x", "1.2.3"),
        ("v1.7.0.beta", "business", "1.7.0.beta"),
        ("Flurl.Http.2.4.0", "Flurl.Http", "2.4.0"),
        ("Flurl.Http.2.4.0", "Flurl", None),
        ("release-candidate", None, None),
        ("@scope/pkg@3.0.0", "@scope/pkg", "3.0.0"),
    ],
)
def test_version_from_tag(tag: str, package: str | None, expected: str | None) -> None:
    assert version_from_tag(tag, package) == expected


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("BREAKING: drop the old API", "explicit"),
        ("This is a backwards-incompatible change", "explicit"),
        ("Dropped support for Node 12", "dropped_support"),
        ("Requires Python 3.9 or newer", "dropped_support"),
        ("Removed `foo()`", "removal"),
        ("Renamed `bar` to `baz`", "rename"),
        ("Fix a crash when parsing", None),
        ("Avoid breaking existing signatures", None),
    ],
)
def test_classify_entry(text: str, kind: str | None) -> None:
    assert classify_entry(text) == kind


def test_major_bump_added_only_where_no_breaking_entry_is_listed() -> None:
    text = "## 3.0.0\n- New thing\n\n## 2.0.0\n- Removed foo\n\n## 1.0.0\n- First\n"
    secs = list(reversed(parse_changelog(text, url="u")))
    marked = {s.version: s for s in mark_major_bumps(secs)}
    assert [b.kind for b in marked["3.0.0"].breaking] == ["major_bump"]
    assert [b.kind for b in marked["2.0.0"].breaking] == ["removal"]
    assert not marked["1.0.0"].breaking


def test_bad_bodies() -> None:
    with pytest.raises(ValueError, match="array"):
        parse_github_releases({"message": "Not Found"})
    assert (
        parse_github_releases([None, {"draft": True, "tag_name": "v1.0.0"}, {"tag_name": 5}]) == []
    )
    assert parse_changelog("no versions here\n", url="u") == []
