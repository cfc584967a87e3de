"""
Version ordering per ecosystem, table-driven from `tests/data/versions/<scheme>.json`.

Each file lists ascending chains, groups of equal spellings, pre-releases, releases and invalid
strings, as facts from the ecosystem's own documentation or test suite (named in `source`).
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import (
    SCHEME_BY_ECOSYSTEM,
    VersionScheme,
    compare,
    composer_normalize,
    is_prerelease,
    is_valid,
    newest_first,
    scheme_sort_key,
    sort_key,
    validate_version,
)

VECTORS = Path(__file__).resolve().parents[2] / "data" / "versions"


def _load() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(VECTORS.glob("*.json"))]


FILES = _load()
CASES = [(f, Ecosystem(e)) for f in FILES for e in f["ecosystems"]]
IDS = [f"{f['scheme']}-{e.value}" for f, e in CASES]


def test_every_ecosystem_has_a_scheme_and_a_vector_file() -> None:
    assert set(SCHEME_BY_ECOSYSTEM) == set(Ecosystem)
    covered = {Ecosystem(e) for f in FILES for e in f["ecosystems"]}
    assert covered == set(Ecosystem)
    assert {f["scheme"] for f in FILES} == {s.value for s in VersionScheme}
    for f in FILES:
        for e in f["ecosystems"]:
            assert SCHEME_BY_ECOSYSTEM[Ecosystem(e)].value == f["scheme"]


@pytest.mark.parametrize(("vectors", "ecosystem"), CASES, ids=IDS)
def test_ascending_chains(vectors: dict[str, Any], ecosystem: Ecosystem) -> None:
    for chain in vectors["ascending"]:
        for lower, higher in pairwise(chain):
            assert compare(ecosystem, lower, higher) == -1, (lower, higher)
            assert compare(ecosystem, higher, lower) == 1, (higher, lower)
        # Sorting a shuffled chain restores it.
        assert newest_first(ecosystem, list(reversed(chain)))[::-1] == chain
        assert newest_first(ecosystem, sorted(chain))[::-1] == chain


@pytest.mark.parametrize(("vectors", "ecosystem"), CASES, ids=IDS)
def test_equal_spellings(vectors: dict[str, Any], ecosystem: Ecosystem) -> None:
    for group in vectors["equal"]:
        for other in group[1:]:
            assert compare(ecosystem, group[0], other) == 0, (group[0], other)


@pytest.mark.parametrize(("vectors", "ecosystem"), CASES, ids=IDS)
def test_validity_and_prereleases(vectors: dict[str, Any], ecosystem: Ecosystem) -> None:
    valid = {v for chain in vectors["ascending"] for v in chain}
    valid |= {v for group in vectors["equal"] for v in group}
    for v in valid:
        assert is_valid(ecosystem, v), v
    for v in vectors["prerelease"]:
        assert is_valid(ecosystem, v), v
        assert is_prerelease(ecosystem, v), v
    for v in vectors["release"]:
        assert is_valid(ecosystem, v), v
        assert not is_prerelease(ecosystem, v), v
    for v in vectors["invalid"]:
        assert not is_valid(ecosystem, v), v
        assert not is_prerelease(ecosystem, v), v


@pytest.mark.parametrize(("vectors", "ecosystem"), CASES, ids=IDS)
def test_invalid_versions_sort_before_valid_ones(
    vectors: dict[str, Any], ecosystem: Ecosystem
) -> None:
    lowest = vectors["ascending"][0][0]
    for bad in vectors["invalid"]:
        assert sort_key(ecosystem, bad) < sort_key(ecosystem, lowest)
        assert newest_first(ecosystem, [bad, lowest]) == [lowest, bad]


@pytest.mark.parametrize("ecosystem", list(Ecosystem))
@given(text=st.text(max_size=40))
def test_never_raises_on_arbitrary_text(ecosystem: Ecosystem, text: str) -> None:
    key = sort_key(ecosystem, text)
    assert key[0] in (0, 1)
    assert is_valid(ecosystem, text) == (key[0] == 1)
    is_prerelease(ecosystem, text)


@pytest.mark.parametrize("ecosystem", list(Ecosystem))
def test_overlong_and_odd_strings_are_invalid_not_errors(ecosystem: Ecosystem) -> None:
    for text in ("1" * 300, "1.0\x00", "💥", "1.0.0" + "-a" * 200):
        assert isinstance(sort_key(ecosystem, text), tuple)


def test_validate_version_keeps_its_npm_and_pypi_contract() -> None:
    assert validate_version(Ecosystem.NPM, " 1.2.3 ") == "1.2.3"
    assert validate_version(Ecosystem.PYPI, "1.0.post1") == "1.0.post1"
    with pytest.raises(InvalidInput, match="SemVer"):
        validate_version(Ecosystem.NPM, "1.2")
    with pytest.raises(InvalidInput, match="PEP 440"):
        validate_version(Ecosystem.PYPI, "latest")
    with pytest.raises(InvalidInput, match="empty"):
        validate_version(Ecosystem.MAVEN, "  ")
    # Other ecosystems only refuse empty and overlong input.
    assert validate_version(Ecosystem.MAVEN, "1.0-whatever") == "1.0-whatever"


def test_semver_ranges_of_go_accept_osv_spelling() -> None:
    key = scheme_sort_key(VersionScheme.GO, "1.2.3")
    assert key == scheme_sort_key(VersionScheme.GO, "v1.2.3")


def test_composer_normalisation_matches_composer() -> None:
    assert composer_normalize("1.2") == "1.2.0.0"
    assert composer_normalize("v2.4.4-p9") == "2.4.4.0-patch9"
    assert composer_normalize("1.0.0-rc1") == "1.0.0.0-RC1"
    assert composer_normalize("1.x-dev") == "1.9999999.9999999.9999999-dev"
    assert composer_normalize("dev-main") is None
