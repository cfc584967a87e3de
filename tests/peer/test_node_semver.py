"""
node-semver 7.8.5's own fixtures (`test/fixtures/*.js`, as data in ../shared), one case per row:
comparisons, equality, range-include, range-exclude (rows with options run with those options:
`loose`, `includePrerelease`), invalid and valid versions; plus the supplementary comparison
matrix and constraint grid computed with node-semver itself. Documented differences:
`tests/peer/choices.py`.
"""

from __future__ import annotations

from typing import Any

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import RangeSyntaxError
from pkgintel.domain.ranges.npm import NpmGrammar, compare, parse_version
from pkgintel.domain.versions import compare as eco_compare
from pkgintel.domain.versions import is_valid, npm_clean, versions_equal

from .choices import NODE_SEMVER
from .suites import load, params

FIXTURES = "node-semver-fixtures.json"


def _file(name: str) -> list[dict[str, Any]] | None:
    data = load(FIXTURES)
    return None if data is None else data["files"][name]


def _opts(row: dict[str, Any]) -> tuple[bool, bool]:
    o = row.get("options") or {}
    return bool(o.get("loose")), bool(o.get("includePrerelease"))


def _id(name: str) -> Any:
    return lambda row: f"{name}:{row['index']}"


def _check(case: str, agrees: bool) -> None:
    if case in NODE_SEMVER:
        assert not agrees, f"{case} is listed as a choice but now agrees with node-semver"
    else:
        assert agrees


@pytest.mark.parametrize("row", params(_file("comparisons.js"), _id("comparisons.js"), FIXTURES))
def test_comparisons(row: dict[str, Any]) -> None:
    loose, _ = _opts(row)
    a, b = parse_version(row["a"], loose=loose), parse_version(row["b"], loose=loose)
    assert a is not None and b is not None
    assert compare(a, b) == row["oracle"]["compare_ab"] == -compare(b, a)
    # The ordering the service uses everywhere (versions.sort_key) agrees on strict rows.
    if not loose:
        assert eco_compare(Ecosystem.NPM, row["a"], row["b"]) == row["oracle"]["compare_ab"]


@pytest.mark.parametrize("row", params(_file("equality.js"), _id("equality.js"), FIXTURES))
def test_equality(row: dict[str, Any]) -> None:
    loose, _ = _opts(row)
    a, b = parse_version(row["a"], loose=loose), parse_version(row["b"], loose=loose)
    assert a is not None and b is not None
    assert compare(a, b) == 0
    # Listed-version matching reads both sides as npm does, so they are one release.
    assert versions_equal(Ecosystem.NPM, row["a"], row["b"])
    assert npm_clean(row["a"]) == npm_clean(row["b"]) is not None


def _satisfies(row: dict[str, Any]) -> bool:
    loose, include_prerelease = _opts(row)
    if not isinstance(row["version"], str):
        return False
    try:
        rng = NpmGrammar(loose=loose).parse(row["range"], include_prerelease=include_prerelease)
    except RangeSyntaxError:
        return False  # node-semver's satisfies() is false for a range it cannot parse
    return rng.contains(row["version"])


@pytest.mark.parametrize(
    "row", params(_file("range-include.js"), _id("range-include.js"), FIXTURES)
)
def test_range_include(row: dict[str, Any]) -> None:
    _check(f"range-include.js:{row['index']}", _satisfies(row) is True)


@pytest.mark.parametrize(
    "row", params(_file("range-exclude.js"), _id("range-exclude.js"), FIXTURES)
)
def test_range_exclude(row: dict[str, Any]) -> None:
    _check(f"range-exclude.js:{row['index']}", _satisfies(row) is False)


@pytest.mark.parametrize(
    "row", params(_file("invalid-versions.js"), _id("invalid-versions.js"), FIXTURES)
)
def test_invalid_versions(row: dict[str, Any]) -> None:
    case = f"invalid-versions.js:{row['index']}"
    version = row["version"]
    if not isinstance(version, str):
        # A RegExp or an object: no door of ours accepts a non-string version (422).
        _check(case, True)
        return
    loose, _ = _opts(row)
    _check(case, parse_version(version, loose=loose) is None)


@pytest.mark.parametrize(
    "row", params(_file("valid-versions.js"), _id("valid-versions.js"), FIXTURES)
)
def test_valid_versions(row: dict[str, Any]) -> None:
    loose, _ = _opts(row)
    parsed = parse_version(row["version"], loose=loose)
    assert parsed is not None
    assert parsed[:3] == (row["major"], row["minor"], row["patch"])
    assert [p for _, p in parsed[3]] == row["prerelease"]
    assert npm_clean(row["version"]) == row["oracle"]["valid"]
    assert is_valid(Ecosystem.NPM, row["version"])


def test_supplementary_compare_matrix() -> None:
    data = load(FIXTURES)
    if data is None:
        pytest.skip(f"peer suite {FIXTURES} not found")
    sup = data["supplementary"]
    strict = sup["strict"]
    parsed = [parse_version(v) for v in strict]
    assert all(p is not None for p in parsed)
    wrong = [
        (a, b)
        for i, a in enumerate(strict)
        for j, b in enumerate(strict)
        if compare(parsed[i], parsed[j]) != int(sup["compare_matrix"][i][j]) - 1  # type: ignore[arg-type]
    ]
    assert wrong == []


def test_supplementary_constraints_grid() -> None:
    """92 ranges x 208 versions, default and includePrerelease: 38,272 node-semver answers."""
    data = load(FIXTURES)
    if data is None:
        pytest.skip(f"peer suite {FIXTURES} not found")
    sup = data["supplementary"]
    wrong = []
    for c in sup["constraints"]:
        for mode, include in (("default", False), ("includePrerelease", True)):
            rng = NpmGrammar().parse(c["range"], include_prerelease=include)
            for version, want in zip(sup["strict"], c[mode], strict=True):
                if rng.contains(version) != (want == "1"):
                    wrong.append((c["range"], mode, version))
    assert wrong == []
