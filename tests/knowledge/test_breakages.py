"""The curated compatibility matrix (`knowledge/compat/breakages.yaml`) and its loader's checks."""

from __future__ import annotations

from typing import Any

import pytest

from pkgintel.domain.knowledge.compat import RUNTIMES, key
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import GRAMMARS
from pkgintel.knowledge.breakages import (
    BreakageDataError,
    load_breakage_index,
    load_breakages,
    parse_breakages,
)


def entry(**over: str) -> dict[str, Any]:
    base = {
        "ecosystem": "pypi",
        "package": "flask",
        "versions": "<2.0",
        "other": "jinja2",
        "other_versions": ">=3.1.0",
        "reason": "Flask 1.x imports escape from jinja2.",
        "fix": "Upgrade Flask to 2.x.",
        "source": "https://github.com/mobidic/SEAL/issues/20",
    }
    return base | over


def test_the_shipped_matrix_is_large_sourced_and_parses() -> None:
    entries = load_breakages()
    assert len(entries) >= 150
    assert {b.ecosystem for b in entries} >= {
        Ecosystem.PYPI,
        Ecosystem.NPM,
        Ecosystem.RUBYGEMS,
        Ecosystem.MAVEN,
        Ecosystem.CARGO,
    }
    seen = set()
    for b in entries:
        assert b.source.startswith("https://") and b.reason and b.fix
        GRAMMARS[b.ecosystem].parse(b.versions)
        GRAMMARS[RUNTIMES.get(b.other, b.ecosystem)].parse(b.other_versions)
        ident = (b.ecosystem, key(b.ecosystem, b.package), b.versions, b.other, b.other_versions)
        assert ident not in seen
        seen.add(ident)
    assert load_breakage_index().size == len(entries)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"versions": "<<2"}, "not a pypi range"),
        ({"other": "python", "other_versions": "~~3"}, "not a pypi range"),
        (
            {"ecosystem": "rubygems", "other": "ruby", "other_versions": "=> 3"},
            "not a rubygems range",
        ),
        ({"source": "http://example.org/x"}, "https URL"),
        ({"fix": ""}, "missing fix"),
        ({"ecosystem": "nope"}, "nope"),
        ({"ecosystem": "go"}, "no range grammar for go"),
        ({"package": "python", "other": "flask"}, "runtime goes on the `other` side"),
    ],
)
def test_a_bad_entry_is_refused_naming_it(change: dict[str, str], message: str) -> None:
    with pytest.raises(BreakageDataError, match="breakage 2") as err:
        parse_breakages({"breakages": [entry(), entry(**change)]})
    assert message in str(err.value)


def test_a_duplicate_pair_is_refused_under_the_ecosystems_name_folding() -> None:
    with pytest.raises(BreakageDataError, match="duplicates breakage 1"):
        parse_breakages({"breakages": [entry(), entry(package="Flask", reason="again")]})


def test_the_document_needs_a_list() -> None:
    with pytest.raises(BreakageDataError):
        parse_breakages({"breakage": []})
