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
