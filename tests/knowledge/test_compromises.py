"""The curated compromise knowledge base: every entry valid and sourced; lookups by version."""

from __future__ import annotations

import datetime as dt

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.compromises import (
    CompromiseDataError,
    compromises_for,
    load_incidents,
    parse_incidents,
)

GOOD: dict[str, object] = {
    "id": "x-2020",
    "title": "x",
    "kind": "account_takeover",
    "disclosed": dt.date(2020, 1, 1),
    "summary": "s",
    "sources": ["https://example.org/x"],
    "packages": [{"ecosystem": "npm", "package": "x", "versions": ["1.0.1"], "remediation": "r"}],
}


def test_shipped_incidents_are_sourced_and_cover_the_known_cases() -> None:
    incidents = load_incidents()
    ids = {i.id for i in incidents}
    assert {
        "event-stream-2018",
        "ua-parser-js-2021",
        "coa-rc-2021",
        "colors-faker-2022",
        "node-ipc-2022",
        "eslint-scope-2018",
        "ctx-2022",
        "torchtriton-2022",
        "xz-utils-2024",
    } <= ids
    for incident in incidents:
        assert incident.sources and all(s.startswith("https://") for s in incident.sources)
        assert all(p.versions or p.all_versions for p in incident.packages)


def test_lookup_judges_the_version() -> None:
    [m] = compromises_for(Ecosystem.NPM, "ua-parser-js", "0.7.29")
    assert m.version_affected is True
    [m] = compromises_for(Ecosystem.NPM, "ua-parser-js", "0.7.30")
    assert m.version_affected is False
    [m] = compromises_for(Ecosystem.NPM, "ua-parser-js")
    assert m.version_affected is None
    [m] = compromises_for(Ecosystem.HOMEBREW, "xz", "5.6.1")
    assert m.version_affected is True
    [m] = compromises_for(Ecosystem.PYPI, "CTX", "0.2.6")  # PEP 503 names
    assert m.version_affected is True
    assert compromises_for(Ecosystem.NPM, "left-pad", "1.0.0") == ()
    assert compromises_for(Ecosystem.PYPI, "event-stream", "3.3.6") == ()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sources": ["ftp://example.org"]}, "not an http"),
        ({"sources": []}, "at least one source"),
        ({"kind": "oops"}, "unknown kind"),
        ({"disclosed": "yesterday"}, "must be a date"),
        ({"packages": [{"ecosystem": "nope", "package": "x", "remediation": "r"}]}, "ecosystem"),
        ({"packages": [{"ecosystem": "npm", "package": "x", "remediation": "r"}]}, "all_versions"),
    ],
)
def test_malformed_entries_are_refused(change: dict[str, object], message: str) -> None:
    assert parse_incidents([GOOD])[0].id == "x-2020"
    with pytest.raises(CompromiseDataError, match=message):
        parse_incidents([{**GOOD, **change}])
    with pytest.raises(CompromiseDataError, match="duplicate"):
        parse_incidents([GOOD, GOOD])


def test_every_shipped_entry_is_valid_and_flags_only_its_own_releases() -> None:
    """Fields present, dates ISO and not in the future, https sources, versions that parse in the
    ecosystem's semantics (checked by the loader), and no release outside the listed ones flagged."""
    incidents = load_incidents()
    assert len(incidents) >= 100
    assert len({i.id for i in incidents}) == len(incidents)
    today = dt.date.today()
    for incident in incidents:
        assert incident.title and incident.summary and incident.kind
        assert type(incident.disclosed) is dt.date and incident.disclosed <= today
        assert all(s.startswith("https://") and " " not in s for s in incident.sources)
        for p in incident.packages:
            assert p.remediation
            matches = {m.incident.id: m for m in compromises_for(p.ecosystem, p.package, None)}
            assert incident.id in matches
            if p.all_versions:
                continue
            for v in p.versions:
                [hit] = [m for m in compromises_for(p.ecosystem, p.package, v) if m.affected is p]
                assert hit.version_affected is True, (incident.id, p.package, v)
            # a release no source names is never called compromised
            assert p.affects("987654.3.2") is False, (incident.id, p.package)


def test_versions_match_as_the_ecosystem_compares_releases() -> None:
    # PEP 440: 1.82.7.0 is 1.82.7; 1.82.70 is another release
    [m] = compromises_for(Ecosystem.PYPI, "litellm", "1.82.7.0")
    assert m.version_affected is True
    [m] = compromises_for(Ecosystem.PYPI, "LiteLLM", "1.82.70")
    assert m.version_affected is False
    # npm reads a leading v loosely
    [m] = compromises_for(Ecosystem.NPM, "axios", "v1.14.1")
    assert m.version_affected is True
    [m] = compromises_for(Ecosystem.NPM, "axios", "1.14.0")
    assert m.version_affected is False
    # a package that only ever carried the attack is affected in every release
    [m] = compromises_for(Ecosystem.CARGO, "rustdecimal", "1.23.5")
    assert m.version_affected is True and m.affected.all_versions


def test_nuget_go_maven_and_packagist_incidents_are_judged_in_their_own_semantics() -> None:
    # NuGet: ids are case-insensitive and 7.1.8 is 7.1.8.0; 7.1.7 was never named
    [m] = compromises_for(Ecosystem.NUGET, "betalgo.open.ai", "7.1.8.0")
    assert m.incident.id == "nuget-iamreboot-2023-10" and m.version_affected is True
    [m] = compromises_for(Ecosystem.NUGET, "Betalgo.Open.AI", "7.1.7")
    assert m.version_affected is False
    # Packagist: only the overwritten 5.0.2 of intercom/intercom-php
    [m] = compromises_for(Ecosystem.COMPOSER, "intercom/intercom-php", "5.0.2")
    assert m.incident.kind == "release_pipeline" and m.version_affected is True
    [m] = compromises_for(Ecosystem.COMPOSER, "intercom/intercom-php", "5.0.1")
    assert m.version_affected is False
    # Go and Maven impostors carried the attack in every release
    [m] = compromises_for(Ecosystem.GO, "github.com/boltdb-go/bolt", "v1.3.1")
    assert m.version_affected is True and m.affected.all_versions
    assert compromises_for(Ecosystem.GO, "github.com/boltdb/bolt", "v1.3.1") == ()
    [m] = compromises_for(Ecosystem.MAVEN, "io.github.leetcrunch:scribejava-core", "8.3.3")
    assert m.version_affected is True
    assert compromises_for(Ecosystem.MAVEN, "com.github.scribejava:scribejava-core", "8.3.3") == ()
    # a CalVer npm release published through a hijacked workflow, and the re-release after it
    [m] = compromises_for(Ecosystem.NPM, "@bitwarden/cli", "2026.4.0")
    assert m.version_affected is True
    [m] = compromises_for(Ecosystem.NPM, "@bitwarden/cli", "2026.4.1")
    assert m.version_affected is False


def test_the_base_spans_registries_and_kinds() -> None:
    incidents = load_incidents()
    ecosystems = {p.ecosystem for i in incidents for p in i.packages}
    assert {
        Ecosystem.NPM,
        Ecosystem.PYPI,
        Ecosystem.RUBYGEMS,
        Ecosystem.CARGO,
        Ecosystem.NUGET,
        Ecosystem.GO,
        Ecosystem.MAVEN,
        Ecosystem.COMPOSER,
    } <= ecosystems
    kinds = {i.kind for i in incidents}
    assert {
        "account_takeover",
        "release_pipeline",
        "maintainer_sabotage",
        "malicious_package",
    } <= kinds


@pytest.mark.parametrize(
    ("package", "message"),
    [
        (
            {
                "ecosystem": "rubygems",
                "package": "x",
                "versions": ["not a version!"],
                "remediation": "r",
            },
            "does not parse",
        ),
        (
            {"ecosystem": "pypi", "package": "x", "versions": [""], "remediation": "r"},
            "does not parse",
        ),
        (
            {
                "ecosystem": "npm",
                "package": "x",
                "versions": ["1.0.0"],
                "all_versions": True,
                "remediation": "r",
            },
            "not both",
        ),
    ],
)
def test_entries_with_unreadable_or_contradictory_versions_are_refused(
    package: dict[str, object], message: str
) -> None:
    with pytest.raises(CompromiseDataError, match=message):
        parse_incidents([{**GOOD, "packages": [package]}])


def test_plain_http_sources_are_refused() -> None:
    with pytest.raises(CompromiseDataError, match="not an https URL"):
        parse_incidents([{**GOOD, "sources": ["http://example.org/x"]}])
