"""Pure tree rules: which declared edges install, which published version a range picks, cycles."""

from __future__ import annotations

import pytest

from pkgintel.domain.dependency_tree import (
    Environment,
    UnevaluableRequirement,
    edge_applies,
    find_cycles,
    pick_version,
)
from pkgintel.domain.packages import Dependency, Ecosystem, Release

NPM_RELEASES = tuple(
    Release(v, prerelease="-" in v) for v in ("1.0.0", "1.2.3", "1.3.0-rc.1", "1.9.9", "2.0.0")
)


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("^1.0.0", "1.9.9"),
        ("~1.2.0", "1.2.3"),
        ("1.x", "1.9.9"),
        ("*", "2.0.0"),
        ("", "2.0.0"),
        ("latest", "2.0.0"),
        (">=1.3.0-rc.1 <1.4.0", "1.3.0-rc.1"),  # the range names the pre-release: npm admits it
        ("^3.0.0", None),  # nothing published satisfies: never invented
        ("1.2.3 || 2.0.0", "2.0.0"),
    ],
)
def test_npm_picks_the_newest_published_version_in_range(
    requirement: str, expected: str | None
) -> None:
    assert pick_version(Ecosystem.NPM, NPM_RELEASES, requirement) == expected


def test_npm_requirements_that_are_not_ranges_are_unevaluable() -> None:
    for req in ("git+https://github.com/x/y.git", "file:../local", "npm:other@^1.0.0", "next"):
        with pytest.raises(UnevaluableRequirement):
            pick_version(Ecosystem.NPM, NPM_RELEASES, req)


def test_pypi_skips_prereleases_and_yanked_releases_unless_pinned() -> None:
    releases = (
        Release("2.0"),
        Release("2.1", yanked=True),
        Release("2.2rc1", prerelease=True),
        Release("1.9"),
    )
    assert pick_version(Ecosystem.PYPI, releases, ">=2.0") == "2.0"
    assert pick_version(Ecosystem.PYPI, releases, "==2.1") == "2.1"  # PEP 592: a pin may install it
    assert pick_version(Ecosystem.PYPI, releases, ">=2.2rc1") == "2.2rc1"
    assert pick_version(Ecosystem.PYPI, releases, "<1.0") is None


def test_cargo_requirements_are_caret_by_default() -> None:
    releases = tuple(Release(v) for v in ("0.3.1", "0.3.9", "0.4.0", "1.0.0"))
    assert pick_version(Ecosystem.CARGO, releases, "0.3.1") == "0.3.9"
    assert pick_version(Ecosystem.CARGO, releases, "=0.3.1") == "0.3.1"


def test_pep_508_markers_and_extras() -> None:
    env = Environment(python_version="3.12")
    old_py = Dependency("tomli", ">=1", marker='python_version < "3.11"')
    windows = Dependency("colorama", "", marker='sys_platform == "win32"')
    socks = Dependency("PySocks", ">=1.5.6", kind="extra:socks", marker='extra == "socks"')
    assert not edge_applies(Ecosystem.PYPI, old_py, env).applies
    assert "3.12" in (edge_applies(Ecosystem.PYPI, old_py, env).why or "")
    assert not edge_applies(Ecosystem.PYPI, windows, env).applies
    assert not edge_applies(Ecosystem.PYPI, socks, env).applies
    assert edge_applies(Ecosystem.PYPI, socks, env, ["socks"]).applies
    assert edge_applies(Ecosystem.PYPI, Dependency("idna", ">=2"), env).applies
    assert edge_applies(Ecosystem.PYPI, old_py, Environment(python_version="3.9")).applies


def test_npm_and_cargo_edge_kinds() -> None:
    env = Environment()
    for kind in ("runtime", "optional", "peer"):
        assert edge_applies(Ecosystem.NPM, Dependency("x", "^1", kind=kind), env).applies
    assert not edge_applies(Ecosystem.NPM, Dependency("x", "^1", kind="dev"), env).applies
    assert edge_applies(Ecosystem.CARGO, Dependency("cc", "1", kind="build"), env).applies
    optional = edge_applies(Ecosystem.CARGO, Dependency("serde", "1", kind="optional"), env)
    assert not optional.applies and "feature" in (optional.why or "")
    assert not edge_applies(Ecosystem.CARGO, Dependency("x", "1", kind="dev"), env).applies


def test_cycles_are_found_once() -> None:
    edges = {"a": ["b"], "b": ["c", "d"], "c": ["a"], "d": ["d"], "e": ["a"]}
    cycles = find_cycles(edges)
    assert sorted(map(tuple, cycles)) == [("a", "b", "c", "a"), ("d", "d")]
    assert find_cycles({"a": ["b"], "b": []}) == []
