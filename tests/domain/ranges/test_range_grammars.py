"""
Range grammars of the ecosystems added after PyPI and npm, table-driven from
`tests/data/ranges/<scheme>.json`.

Each file carries reference vectors taken (as facts) from the tool's own test suite — its
repository, path and commit are in `source` — as rows `range`, `version`, `expected` and, where
the reference test used a non-default mode, `include_prerelease`. `invalid` lists texts the tool
rejects, `valid` texts it accepts. `choices` lists the rows where we answer differently on
purpose, with the reason; the test checks that each still differs (so a fixed row is noticed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import GRAMMARS, RangeSyntaxError, parse_range
from pkgintel.domain.versions import is_valid, versions_equal

VECTORS = Path(__file__).resolve().parents[2] / "data" / "ranges"
FILES = {p.stem: json.loads(p.read_text()) for p in sorted(VECTORS.glob("*.json"))}

ROWS = [
    pytest.param(Ecosystem(f["ecosystem"]), row, id=f"{name}-{i}-{row['range']}@{row['version']}")
    for name, f in FILES.items()
    for i, row in enumerate(f["cases"])
]
INVALID = [
    pytest.param(Ecosystem(f["ecosystem"]), text, id=f"{name}-{text!r}")
    for name, f in FILES.items()
    for text in f.get("invalid", [])
]
VALID = [
    pytest.param(Ecosystem(f["ecosystem"]), text, id=f"{name}-{text!r}")
    for name, f in FILES.items()
    for text in f.get("valid", [])
]
CHOICES = [
    pytest.param(Ecosystem(f["ecosystem"]), row, id=f"{name}-{row['range']}@{row['version']}")
    for name, f in FILES.items()
    for row in f.get("choices", [])
]

EXACT = {
    Ecosystem.CARGO: "={}",
    Ecosystem.RUBYGEMS: "= {}",
    Ecosystem.MAVEN: "[{}]",
    Ecosystem.NUGET: "[{}]",
    Ecosystem.COMPOSER: "=={}",
    Ecosystem.PUB: "{}",
    Ecosystem.HEX: "== {}",
    Ecosystem.HACKAGE: "=={}",
    Ecosystem.CONDA: "=={}",
}
"""How each grammar writes "exactly this version"."""


def test_every_new_grammar_has_vectors_and_an_exact_form() -> None:
    covered = {Ecosystem(f["ecosystem"]) for f in FILES.values()}
    assert covered == set(GRAMMARS) - {Ecosystem.PYPI, Ecosystem.NPM}  # those run in tests/peer
    assert set(EXACT) == covered
    for f in FILES.values():
        src = f["source"]
        assert src["url"].startswith("https://github.com/") and len(src["commit"]) == 40
        assert f["cases"], f["scheme"]
    assert Ecosystem.GO not in GRAMMARS  # minimal version selection: no ranges to evaluate


@pytest.mark.parametrize(("ecosystem", "row"), ROWS)
def test_reference_vectors(ecosystem: Ecosystem, row: dict[str, Any]) -> None:
    rng = parse_range(
        ecosystem, row["range"], include_prerelease=row.get("include_prerelease", False)
    )
    assert rng.contains(row["version"]) is row["expected"]


@pytest.mark.parametrize(("ecosystem", "row"), CHOICES)
def test_documented_choices_still_differ(ecosystem: Ecosystem, row: dict[str, Any]) -> None:
    assert row["reason"]
    try:
        rng = parse_range(
            ecosystem, row["range"], include_prerelease=row.get("include_prerelease", False)
        )
    except RangeSyntaxError:
        assert row["ours"] == "invalid"
        return
    assert rng.contains(row["version"]) is row["ours"]
    assert row["ours"] != row["expected"]


@pytest.mark.parametrize(("ecosystem", "text"), INVALID)
def test_texts_the_tool_rejects_are_syntax_errors(ecosystem: Ecosystem, text: str) -> None:
    with pytest.raises(RangeSyntaxError):
        parse_range(ecosystem, text)


@pytest.mark.parametrize(("ecosystem", "text"), VALID)
def test_texts_the_tool_accepts_parse(ecosystem: Ecosystem, text: str) -> None:
    parse_range(ecosystem, text)


_VERSIONS = st.builds(
    lambda major, minor, patch, pre: f"{major}.{minor}.{patch}" + (f"-{pre}" if pre else ""),
    st.integers(0, 3),
    st.integers(0, 3),
    st.integers(0, 3),
    st.sampled_from([None, "alpha", "alpha.1", "beta", "beta.2", "rc.1"]),
)


@pytest.mark.parametrize("ecosystem", sorted(EXACT, key=str))
@given(version=_VERSIONS, others=st.lists(_VERSIONS, max_size=12))
def test_an_exact_range_contains_exactly_the_equal_versions(
    ecosystem: Ecosystem, version: str, others: list[str]
) -> None:
    # Versions the scheme cannot spell (`1.0.0-alpha` on Hackage) are no versions of it.
    assume(is_valid(ecosystem, version))
    text = EXACT[ecosystem].format(version)
    for include_prerelease in (False, True):
        rng = parse_range(ecosystem, text, include_prerelease=include_prerelease)
        assert rng.contains(version)
        for other in filter(lambda o: is_valid(ecosystem, o), others):
            assert rng.contains(other) is versions_equal(ecosystem, version, other), other


@pytest.mark.parametrize("ecosystem", sorted(EXACT, key=str))
@given(text=st.text(max_size=40), version=st.text(max_size=20))
def test_never_raises_but_syntax_errors(ecosystem: Ecosystem, text: str, version: str) -> None:
    try:
        rng = parse_range(ecosystem, text)
    except RangeSyntaxError:
        return
    assert rng.contains(version) in (True, False)
    assert rng.contains("9" * 5000) is False


DEFAULT_RULES = [
    # ecosystem, range, version, include_prerelease, expected — each tool's pre-release rule
    (Ecosystem.RUBYGEMS, ">= 1.0", "1.5.0.rc1", False, False),  # gem install / Bundler
    (Ecosystem.RUBYGEMS, ">= 1.0", "1.5.0.rc1", True, True),  # Gem::Requirement#satisfied_by?
    (Ecosystem.RUBYGEMS, ">= 1.0.rc1", "1.5.0.rc1", False, True),  # the requirement names one
    (Ecosystem.NUGET, "[1.0,2.0)", "1.5.0-beta", False, False),  # restore: no pre-release bound
    (Ecosystem.NUGET, "[1.0,2.0)", "1.5.0-beta", True, True),  # VersionRange.Satisfies
    (Ecosystem.COMPOSER, "^1.0", "1.5.0-beta", False, False),  # minimum-stability stable
    (Ecosystem.COMPOSER, "^1.0@beta", "1.5.0-beta", False, True),  # flag lowers it
    (Ecosystem.COMPOSER, "^1.0@beta", "1.5.0-alpha", False, False),  # ... to beta, not alpha
    (Ecosystem.COMPOSER, ">=1.0.0-RC1", "1.5.0-RC2", False, True),  # named stability RC
    (Ecosystem.COMPOSER, ">=1.0.0-RC1", "1.5.0-beta", False, False),
    (Ecosystem.PUB, "^1.0.0", "1.5.0-dev", False, False),
    (Ecosystem.PUB, "^1.0.0", "1.5.0-dev", True, True),  # VersionConstraint.allows
    (Ecosystem.PUB, "^1.0.0", "2.0.0-dev", True, False),  # <2.0.0 excludes 2.0.0's pre-releases
    (Ecosystem.PUB, ">=1.0.0-dev <2.0.0", "1.5.0-dev", False, True),
    (Ecosystem.HEX, "~> 1.3", "1.4.0-rc.0", False, False),  # Hex resolver
    (Ecosystem.HEX, "~> 1.3", "1.4.0-rc.0", True, True),  # Version.match? allow_pre: true
    (Ecosystem.HEX, "~> 1.4.0-rc.0", "1.4.0-rc.1", False, True),
    (Ecosystem.HEX, "~> 1.4.0-rc.0 or ~> 2.0", "2.1.0-rc.1", False, False),  # per branch
    (Ecosystem.MAVEN, "[1.0,2.0)", "1.5-SNAPSHOT", False, True),  # no rule of its own
    (Ecosystem.MAVEN, "[1.0,2.0)", "2.0-SNAPSHOT", False, True),  # sorts below 2.0
    (Ecosystem.CARGO, ">=1.0.0", "1.5.0-beta", True, True),  # option lifts Cargo's rule
    (Ecosystem.CARGO, ">=1.0.0", "1.5.0-beta", False, False),
]


@pytest.mark.parametrize(("ecosystem", "text", "version", "include", "expected"), DEFAULT_RULES)
def test_each_tools_prerelease_rule(
    ecosystem: Ecosystem, text: str, version: str, include: bool, expected: bool
) -> None:
    assert parse_range(ecosystem, text, include_prerelease=include).contains(version) is expected
