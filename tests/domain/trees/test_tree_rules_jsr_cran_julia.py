"""Tree rules of JSR, CRAN and Julia: which edges install, which version a requirement takes."""

from __future__ import annotations

import pytest

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.jsr_cran_julia_hackage import requirement_met_a
from pkgintel.domain.trees.resolution import (
    TREE_ECOSYSTEMS,
    Environment,
    conflict_why,
    edge_applies,
    one_version_per_name,
    pick_version,
)

ENV = Environment()


def _rels(*versions: str, yanked: tuple[str, ...] = ()) -> tuple[Release, ...]:
    return tuple(Release(v, yanked=v in yanked, prerelease="-" in v) for v in versions)


def test_the_three_have_tree_semantics_and_jsr_alone_keeps_several_versions() -> None:
    assert {Ecosystem.JSR, Ecosystem.CRAN, Ecosystem.JULIA} <= TREE_ECOSYSTEMS
    assert not one_version_per_name(Ecosystem.JSR)  # Deno dedupes by range, like npm
    assert one_version_per_name(Ecosystem.CRAN)
    assert one_version_per_name(Ecosystem.JULIA)
    assert conflict_why(Ecosystem.CRAN).startswith("install.packages installs the one current")
    assert "no backtracking" in conflict_why(Ecosystem.JULIA)
    # the others are untouched
    assert not one_version_per_name(Ecosystem.NPM) and one_version_per_name(Ecosystem.PYPI)
    assert conflict_why(Ecosystem.PYPI).startswith("pip installs one version per name")


# --- JSR ---------------------------------------------------------------------------------------

JSR = _rels("0.224.0", "1.0.0", "1.0.8", "1.1.0-rc.1", "1.1.3", "2.0.0", yanked=("1.0.8",))


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("^1.0.0", "1.1.3"),
        ("~1.0.0", "1.0.0"),  # 1.0.8 is yanked: skipped by a range
        ("1.0.8", "1.0.8"),  # ... but taken when pinned exactly
        ("", "2.0.0"),  # a bare `jsr:@std/path`: the newest
        (">=1.1.0-rc.1 <1.1.1", "1.1.0-rc.1"),  # the range names the pre-release
        ("^3.0.0", None),  # never invented
    ],
)
def test_jsr_specifiers_are_semver_ranges(requirement: str, expected: str | None) -> None:
    assert pick_version(Ecosystem.JSR, JSR, requirement) == expected


def test_jsr_unparsable_specifier_is_unevaluable_and_every_import_installs() -> None:
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.JSR, JSR, "not a range!")
    assert edge_applies(Ecosystem.JSR, Dependency("@std/path", "^1"), ENV).applies
    assert edge_applies(Ecosystem.JSR, Dependency("npm:chalk", "^5"), ENV).applies
    assert requirement_met_a(Ecosystem.JSR, "14.2.0", "^14.1.0") is True
    assert requirement_met_a(Ecosystem.JSR, "2.0.0", "^1.0.0") is False


# --- CRAN --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dep", "applies", "why"),
    [
        (Dependency("Rcpp", ">= 1.0.0"), True, None),
        (Dependency("methods", ""), False, "base package"),
        (Dependency("utils", ""), False, "base package"),
        (Dependency("Matrix", ">= 1.6-5"), False, "recommended package"),
        (Dependency("testthat", ">= 3.0.0", kind="optional"), False, "Suggests"),
    ],
)
def test_cran_installs_depends_imports_linking_to_and_skips_r_itself(
    dep: Dependency, applies: bool, why: str | None
) -> None:
    decision = edge_applies(Ecosystem.CRAN, dep, ENV)
    assert decision.applies is applies
    if why is not None:
        assert (decision.why or "").startswith(why)


def test_cran_requirements_compare_r_package_versions() -> None:
    current = _rels("1.0-12")
    assert pick_version(Ecosystem.CRAN, current, ">= 1.0-2") == "1.0-12"  # 12 > 2, not text
    assert pick_version(Ecosystem.CRAN, current, "") == "1.0-12"
    assert pick_version(Ecosystem.CRAN, current, "> 1.0-12") is None
    assert pick_version(Ecosystem.CRAN, current, "== 1.0.12") == "1.0-12"  # `-` and `.` alike
    assert pick_version(Ecosystem.CRAN, current, "!= 1.0-12") is None
    assert requirement_met_a(Ecosystem.CRAN, "0.9", "< 1.0") is True
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.CRAN, current, "~> 1.0")


# --- Julia -------------------------------------------------------------------------------------

JULIA = _rels("0.5.0", "0.5.3", "0.6.1", "1.2.0", "1.9.4", "2.0.0", yanked=("1.9.4",))


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("0.5", "0.5.3"),  # registry VersionRange: `0.5` is every 0.5.x
        ("0.5-0", "0.6.1"),  # 0.5.0 up to every 0.x
        ("1", "1.2.0"),  # every 1.x; the yanked 1.9.4 never
        ("1.2.0-1", "1.2.0"),
        ("0.5, 2", "2.0.0"),  # a union
        ("0.6-*", "2.0.0"),
        ("", "2.0.0"),  # no [compat] entry: any version
        ("3", None),
    ],
)
def test_julia_registry_compat_ranges(requirement: str, expected: str | None) -> None:
    assert pick_version(Ecosystem.JULIA, JULIA, requirement) == expected


def test_julia_skips_standard_libraries_and_rejects_caret_syntax() -> None:
    linalg = edge_applies(Ecosystem.JULIA, Dependency("LinearAlgebra", ""), ENV)
    assert not linalg.applies and (linalg.why or "").startswith("standard library")
    assert edge_applies(Ecosystem.JULIA, Dependency("DataFrames", "1"), ENV).applies
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.JULIA, JULIA, "^1.2")


# --- Hackage -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requirement", "version", "expected"),
    [
        (">=4.7 && <5", "4.18.2.1", True),
        (">=4.7 && <5", "5", False),
        ("^>=2.0", "2.0.3", True),  # major bound: >= 2.0 && < 2.1
        ("^>=2.0", "2.1", False),
        ("^>=1", "1.0.5", True),
        ("== 2.2.*", "2.2.1", True),
        ("== 2.2.*", "2.3", False),
        ("^>= {1.2, 2.0}", "2.0.5", True),
        ("== {1.2, 1.4}", "1.3", False),
        ("(>=1 && <2) || >=3", "2.5", False),
        ("(>=1 && <2) || >=3", "3.1", True),
        (">= 1.0", "1", False),  # PVP: 1 < 1.0
        ("-any", "0.1", True),
        ("-none", "0.1", False),
        ("", "9", True),
    ],
)
def test_cabal_ranges(requirement: str, version: str, expected: bool) -> None:
    assert requirement_met_a(Ecosystem.HACKAGE, version, requirement) is expected


def test_hackage_picks_the_newest_non_deprecated_version_in_range() -> None:
    releases = (
        Release("1.0.0"),
        Release("1.1.0"),
        Release("1.2.0", deprecated="deprecated on Hackage by its maintainers"),
        Release("2.0.0"),
    )
    assert pick_version(Ecosystem.HACKAGE, releases, "^>=1.1 || ^>=1.2") == "1.1.0"
    assert pick_version(Ecosystem.HACKAGE, releases, "==1.2.*") == "1.2.0"  # nothing else fits
    assert pick_version(Ecosystem.HACKAGE, releases, ">=3") is None
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.HACKAGE, releases, "~> 1.0")
    assert one_version_per_name(Ecosystem.HACKAGE)
    assert "no backtracking" in conflict_why(Ecosystem.HACKAGE)


def test_hackage_skips_boot_packages_other_branches_and_executables() -> None:
    base = edge_applies(Ecosystem.HACKAGE, Dependency("base", ">=4 && <5"), ENV)
    assert not base.applies and "comes with the compiler" in (base.why or "")
    text = edge_applies(Ecosystem.HACKAGE, Dependency("text", "^>=2.0"), ENV)
    assert not text.applies and "builds one from Hackage" in (text.why or "")
    win = Dependency("Win32", "", kind="conditional", marker="os(windows)")
    assert "only when `os(windows)`" in (edge_applies(Ecosystem.HACKAGE, win, ENV).why or "")
    exe = Dependency("optparse-applicative", "", kind="executable")
    assert "executables" in (edge_applies(Ecosystem.HACKAGE, exe, ENV).why or "")
    assert edge_applies(Ecosystem.HACKAGE, Dependency("aeson", "^>=2.2"), ENV).applies
