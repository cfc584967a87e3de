"""
pypa/packaging's own vectors (`tests/test_version.py`, `tests/test_specifiers.py`, as data in
../shared), one case per row: version ordering (every pair of `VERSIONS`), invalid, oversized
and normalised versions, pre-release flags, and the specifier containment tables — run through
the service's own functions (`versions.sort_key`/`equality_key`/`is_valid`/`is_prerelease`,
`ranges.parse_range`, `pins.parse_constraint`). Tables or modes we do not run, and any row that
differs on purpose, are listed in `tests/peer/choices.py`.
"""

from __future__ import annotations

from typing import Any

import pytest
from packaging.version import Version

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.pins import parse_constraint
from pkgintel.domain.ranges import RangeSyntaxError, parse_range
from pkgintel.domain.versions import (
    compare,
    equality_key,
    is_prerelease,
    is_valid,
    sort_key,
    validate_version,
    versions_equal,
)

from .choices import PACKAGING, PACKAGING_TABLES_NOT_RUN
from .suites import load, params

VECTORS = "packaging-vectors.json"
PYPI = Ecosystem.PYPI


def _table(name: str) -> list[dict[str, Any]] | None:
    data = load(VECTORS)
    return None if data is None else data["tables"][name]["rows"]


def _rows(name: str, keep: Any = None) -> list[Any]:
    rows = _table(name)
    if rows is not None and keep is not None:
        rows = [r for r in rows if keep(r)]
    return params(rows, lambda r: f"{name}:{'|'.join(str(v) for v in r.values())[:60]}", VECTORS)


def _check(case: str, agrees: bool) -> None:
    if case in PACKAGING:
        assert not agrees, f"{case} is listed as a choice but now agrees with packaging"
    else:
        assert agrees, case


def _contains(spec: str, version: str | dict[str, str], include_prerelease: bool) -> bool:
    if isinstance(version, dict):
        # A row that passes a `Version` object: it reaches packaging as its normalised text,
        # which is what our doors pass on once they have read a version.
        version = str(Version(version["__Version__"]))
    try:
        rng = parse_range(PYPI, spec, include_prerelease=include_prerelease)
    except RangeSyntaxError:
        return False
    return rng.contains(version)


def _mode(flag: bool | None) -> bool:
    return bool(flag)


# -- versions ----------------------------------------------------------------------------------


def test_versions_order_every_pair() -> None:
    """`VERSIONS` is strictly increasing: all 92 x 92 = 8,464 ordered pairs."""
    data = load(VECTORS)
    if data is None:
        pytest.skip(f"peer suite {VECTORS} not found")
    versions = data["VERSIONS"]
    wrong = [
        (a, b)
        for i, a in enumerate(versions)
        for j, b in enumerate(versions)
        if compare(PYPI, a, b) != (i > j) - (i < j) or versions_equal(PYPI, a, b) != (i == j)
    ]
    assert wrong == []
    assert len(versions) ** 2 == 8464


def test_spelling_pool_ranks() -> None:
    """235 spellings ranked by packaging: equal rank ⇔ one release, and ranks order them."""
    data = load(VECTORS)
    if data is None:
        pytest.skip(f"peer suite {VECTORS} not found")
    pool = data["derived"]["spelling_pool"]["rows"]
    wrong = []
    for a in pool:
        for b in pool:
            want = (a["rank"] > b["rank"]) - (a["rank"] < b["rank"])
            if compare(PYPI, a["version"], b["version"]) != want:
                wrong.append((a["version"], b["version"], "order"))
            if (equality_key(PYPI, a["version"]) == equality_key(PYPI, b["version"])) != (
                want == 0
            ):
                wrong.append((a["version"], b["version"], "equality"))
    assert wrong == []


@pytest.mark.parametrize("row", _rows("invalid_versions"))
def test_invalid_versions(row: dict[str, Any]) -> None:
    assert not is_valid(PYPI, row["version"])
    with pytest.raises(InvalidInput):
        validate_version(PYPI, row["version"])


@pytest.mark.parametrize("row", _rows("oversized_versions"))
def test_oversized_versions_are_invalid_never_a_crash(row: dict[str, Any]) -> None:
    version = row["version"]
    assert not is_valid(PYPI, version)
    assert sort_key(PYPI, version)[0] == 0
    assert not is_prerelease(PYPI, version)
    assert not _contains(">=1", version, True)
    with pytest.raises(InvalidInput):
        validate_version(PYPI, version)


@pytest.mark.parametrize("row", _rows("normalized_versions"))
def test_normalized_versions_are_one_release(row: dict[str, Any]) -> None:
    assert is_valid(PYPI, row["version"])
    assert versions_equal(PYPI, row["version"], row["normalized"])


@pytest.mark.parametrize("row", _rows("is_prerelease"))
def test_is_prerelease(row: dict[str, Any]) -> None:
    assert is_prerelease(PYPI, row["version"]) is row["expected"]


# -- specifiers --------------------------------------------------------------------------------


@pytest.mark.parametrize("row", _rows("specifier_invalid"))
def test_specifier_invalid(row: dict[str, Any]) -> None:
    with pytest.raises(RangeSyntaxError):
        parse_range(PYPI, row["specifier"])


@pytest.mark.parametrize("row", _rows("specifier_contains"))
def test_specifier_contains(row: dict[str, Any]) -> None:
    case = f"specifier_contains:{row['spec_str']}:{row['version']}"
    _check(case, _contains(row["spec_str"], row["version"], True) is row["expected"])


@pytest.mark.parametrize("row", _rows("specifier_invalid_version"))
def test_specifier_invalid_version(row: dict[str, Any]) -> None:
    assert _contains(row["spec_str"], row["version"], True) is row["expected"]


@pytest.mark.parametrize("row", _rows("specifier_arbitrary_equality"))
def test_specifier_arbitrary_equality(row: dict[str, Any]) -> None:
    assert _contains(row["spec_str"], row["version"], False) is row["expected"]


@pytest.mark.parametrize(
    "row",
    _rows("specifier_arbitrary_equality_normalization")
    + _rows("set_arbitrary_equality_normalization"),
)
def test_arbitrary_equality_normalization(row: dict[str, Any]) -> None:
    assert _contains(row["spec_str"], row["version"], True) is row["expected"]


@pytest.mark.parametrize(
    "row",
    _rows(
        "specifier_prereleases",
        lambda r: (
            r["spec_pre"] is not False
            and r["contains_pre"] is not False
            and not (r["spec_pre"] is None and r["contains_pre"] is None and False)
        ),
    ),
)
def test_specifier_prereleases(row: dict[str, Any]) -> None:
    include = bool(row["spec_pre"]) or bool(row["contains_pre"])
    assert _contains(row["specifier"], row["version"], include) is row["expected"]


@pytest.mark.parametrize(
    "row", _rows("specifier_prereleases_set", lambda r: r["set_prereleases"] is True)
)
def test_specifier_prereleases_set(row: dict[str, Any]) -> None:
    if row["initial_prereleases"] is not False:
        include = bool(row["initial_prereleases"])
        assert _contains(row["specifier"], row["version"], include) is row["initial_contains"]
    assert _contains(row["specifier"], row["version"], True) is row["final_contains"]


@pytest.mark.parametrize(
    "row", _rows("set_prereleases_explicit", lambda r: r["set_prereleases"] is True)
)
def test_set_prereleases_explicit(row: dict[str, Any]) -> None:
    if row["initial_prereleases"] is not False:
        include = bool(row["initial_prereleases"])
        assert _contains(row["spec_str"], row["version"], include) is row["initial_contains"]
    assert _contains(row["spec_str"], row["version"], True) is row["final_contains"]


@pytest.mark.parametrize(
    "row",
    _rows(
        "set_contains_installed",
        lambda r: (
            r["spec_prereleases"] is not False
            and r["contains_prereleases"] is not False
            and r["installed"] is False
        ),
    ),
)
def test_set_contains_installed(row: dict[str, Any]) -> None:
    include = bool(row["spec_prereleases"]) or bool(row["contains_prereleases"])
    assert _contains(row["specifier"], row["version"], include) is row["expected"]


@pytest.mark.parametrize(
    "row", _rows("set_contains_exclusionary_bridges", lambda r: r["prereleases"] is not False)
)
def test_set_contains_exclusionary_bridges(row: dict[str, Any]) -> None:
    assert _contains(row["specifier"], row["version"], bool(row["prereleases"])) is row["expected"]


@pytest.mark.parametrize("row", _rows("set_post_release_boundary"))
def test_set_post_release_boundary(row: dict[str, Any]) -> None:
    assert _contains(row["spec_str"], row["version"], True) is row["expected"]


@pytest.mark.parametrize("row", _rows("set_arbitrary_equality_contains"))
def test_set_arbitrary_equality_contains(row: dict[str, Any]) -> None:
    assert _contains(row["specifier"], row["version"], False) is row["expected"]


@pytest.mark.parametrize("row", _rows("set_comparison_ignores_local"))
def test_set_comparison_ignores_local(row: dict[str, Any]) -> None:
    assert _contains(row["specifier"], row["version"], False) is row["expected"]


def test_equivalence_grid() -> None:
    """29 specifier sets x 22 items, default rule and prereleases=True (computed by packaging)."""
    data = load(VECTORS)
    if data is None:
        pytest.skip(f"peer suite {VECTORS} not found")
    rows = [r for r in data["derived"]["equiv_grid"]["rows"] if r["prereleases"] is not False]
    wrong = [
        r
        for r in rows
        if _contains(r["spec"], r["item"], bool(r["prereleases"])) is not r["expected"]
    ]
    assert wrong == []
    assert len(rows) > 1000


def test_pin_forms_caret_tilde() -> None:
    """pin_safe's own forms (`^X`, `~X`, `>=X`, exact) against their PEP 440 translation."""
    data = load(VECTORS)
    if data is None:
        pytest.skip(f"peer suite {VECTORS} not found")
    wrong = [
        (r["project_spec"], r["version"])
        for r in data["derived"]["caret_tilde"]["rows"]
        if parse_constraint(PYPI, r["project_spec"], include_prerelease=True).matches(r["version"])
        is not r["expected"]
    ]
    assert wrong == []


def test_tables_not_run_are_listed() -> None:
    data = load(VECTORS)
    if data is None:
        pytest.skip(f"peer suite {VECTORS} not found")
    run = {
        "invalid_versions", "oversized_versions", "normalized_versions", "is_prerelease",
        "specifier_invalid", "specifier_contains", "specifier_invalid_version",
        "specifier_arbitrary_equality", "specifier_arbitrary_equality_normalization",
        "specifier_prereleases", "specifier_prereleases_set", "set_prereleases_explicit",
        "set_contains_installed", "set_contains_exclusionary_bridges",
        "set_post_release_boundary", "set_arbitrary_equality_contains",
        "set_arbitrary_equality_normalization", "set_comparison_ignores_local",
    }  # fmt: skip
    assert set(data["tables"]) == run | set(PACKAGING_TABLES_NOT_RUN)
