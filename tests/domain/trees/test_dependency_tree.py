"""Pure tree rules: which declared edges install, which published version a range picks, cycles."""

from __future__ import annotations

import pytest

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.resolution import (
    Environment,
    conflict_why,
    edge_applies,
    find_cycles,
    nearest_nuget_group,
    one_version_per_name,
    pick_version,
)

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


# --- RubyGems, Composer, pub, Hex ---------------------------------------------------------------


def test_rubygems_installs_runtime_dependencies_only() -> None:
    env = Environment()
    assert edge_applies(Ecosystem.RUBYGEMS, Dependency("rack", ">= 2.2"), env).applies
    dev = edge_applies(Ecosystem.RUBYGEMS, Dependency("rspec", "~> 3", kind="dev"), env)
    assert not dev.applies and "runtime" in (dev.why or "")


def test_rubygems_pessimistic_ranges_pick_the_newest_final_release() -> None:
    releases = tuple(Release(v) for v in ("1.4.0", "1.4.9", "1.5.0", "2.0.0.rc1", "2.0.0", "2.1"))
    assert pick_version(Ecosystem.RUBYGEMS, releases, "~> 1.4.0") == "1.4.9"
    assert pick_version(Ecosystem.RUBYGEMS, releases, "~> 1.4") == "1.5.0"
    assert pick_version(Ecosystem.RUBYGEMS, releases, ">= 1.4, < 2.0.0") == "1.5.0"
    assert pick_version(Ecosystem.RUBYGEMS, releases, "") == "2.1"  # Gem::Requirement.default
    # a pre-release only when the requirement names one (Gem::Requirement#prerelease?)
    assert pick_version(Ecosystem.RUBYGEMS, releases, "< 2.0.0") == "1.5.0"
    assert pick_version(Ecosystem.RUBYGEMS, releases, "= 2.0.0.rc1") == "2.0.0.rc1"
    assert pick_version(Ecosystem.RUBYGEMS, releases, "~> 3.0") is None


def test_composer_installs_require_and_never_platform_packages() -> None:
    env = Environment()
    assert edge_applies(Ecosystem.COMPOSER, Dependency("psr/log", "^3.0"), env).applies
    for name in ("php", "php-64bit", "ext-json", "ext-mbstring", "lib-curl", "composer-plugin-api"):
        decision = edge_applies(Ecosystem.COMPOSER, Dependency(name, "*"), env)
        assert not decision.applies and "platform requirement" in (decision.why or ""), name
    marked = Dependency("php", ">=8.1", kind="platform")
    assert not edge_applies(Ecosystem.COMPOSER, marked, env).applies
    dev = edge_applies(Ecosystem.COMPOSER, Dependency("phpunit/phpunit", "^10", kind="dev"), env)
    assert not dev.applies and "require" in (dev.why or "")


def test_composer_picks_the_newest_stable_unless_the_constraint_lowers_stability() -> None:
    releases = tuple(
        Release(v) for v in ("v1.0.0", "v1.9.2", "v2.0.0-RC1", "v2.0.0", "v2.1.0-beta1", "3.0.0")
    )
    assert pick_version(Ecosystem.COMPOSER, releases, "^1.0") == "v1.9.2"
    assert pick_version(Ecosystem.COMPOSER, releases, "^2.0") == "v2.0.0"
    assert pick_version(Ecosystem.COMPOSER, releases, "^2.0@beta") == "v2.1.0-beta1"
    assert pick_version(Ecosystem.COMPOSER, releases, "~1.0 || ^3.0") == "3.0.0"
    assert pick_version(Ecosystem.COMPOSER, releases, "^4.0") is None
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.COMPOSER, releases, "dev-main")


def test_pub_skips_sdk_packages_and_keeps_other_sources_as_edges() -> None:
    env = Environment()
    assert edge_applies(Ecosystem.PUB, Dependency("meta", "^1.3.0"), env).applies
    flutter = edge_applies(Ecosystem.PUB, Dependency("flutter", "sdk:flutter", kind="sdk"), env)
    assert not flutter.applies and "flutter SDK" in (flutter.why or "")
    git = Dependency("forked", "", kind="source:git")
    assert edge_applies(Ecosystem.PUB, git, env).applies
    with pytest.raises(UnevaluableRequirement, match="git, path"):
        pick_version(Ecosystem.PUB, (Release("1.0.0"),), git.requirement)
    assert not edge_applies(Ecosystem.PUB, Dependency("test", "^1.0.0", kind="dev"), env).applies


def test_pub_prefers_stable_then_falls_back_to_a_prerelease() -> None:
    releases = (
        Release("0.7.2"),
        Release("0.7.9"),
        Release("0.8.0"),
        Release("1.0.0-dev.1", prerelease=True),
        Release("1.2.0"),
        Release("1.3.0", yanked=True),  # retracted
        Release("2.0.0-beta.1", prerelease=True),
    )
    assert pick_version(Ecosystem.PUB, releases, "^0.7.2") == "0.7.9"  # next *minor* below 1.0
    assert pick_version(Ecosystem.PUB, releases, "^1.0.0") == "1.2.0"  # retracted 1.3.0 skipped
    assert pick_version(Ecosystem.PUB, releases, "1.3.0") == "1.3.0"  # pinned: it may install
    assert pick_version(Ecosystem.PUB, releases, ">=2.0.0-alpha") == "2.0.0-beta.1"
    assert pick_version(Ecosystem.PUB, releases, ">0.8.0 <1.0.0") is None  # `<1.0.0` bars 1.0.0-dev
    # `Version.prioritize`: no stable version allowed (1.3.0 is retracted), so the pre-release
    assert pick_version(Ecosystem.PUB, releases, ">=1.3.0") == "2.0.0-beta.1"
    assert pick_version(Ecosystem.PUB, releases, "any") == "1.2.0"


def test_hex_leaves_optional_requirements_out() -> None:
    env = Environment()
    assert edge_applies(Ecosystem.HEX, Dependency("plug", "~> 1.14"), env).applies
    jason = edge_applies(Ecosystem.HEX, Dependency("jason", "~> 1.0", kind="optional"), env)
    assert not jason.applies and "optional" in (jason.why or "")


def test_hex_pessimistic_requirements_and_prereleases() -> None:
    releases = tuple(
        Release(v, prerelease="-" in v) for v in ("1.13.6", "1.14.2", "1.15.0-rc.0", "2.0.0")
    )
    assert pick_version(Ecosystem.HEX, releases, "~> 1.14") == "1.14.2"
    assert pick_version(Ecosystem.HEX, releases, "~> 1.13.0") == "1.13.6"
    assert pick_version(Ecosystem.HEX, releases, ">= 1.15.0-rc.0 and < 2.0.0") == "1.15.0-rc.0"
    assert pick_version(Ecosystem.HEX, releases, "~> 1.0 or ~> 2.0") == "2.0.0"
    assert pick_version(Ecosystem.HEX, releases, "~> 3.0") is None


def test_one_version_per_name_except_npm_and_cargo() -> None:
    assert not one_version_per_name(Ecosystem.NPM) and not one_version_per_name(Ecosystem.CARGO)
    for eco in (Ecosystem.PYPI, Ecosystem.RUBYGEMS, Ecosystem.COMPOSER, Ecosystem.PUB):
        assert one_version_per_name(eco)
    assert conflict_why(Ecosystem.COMPOSER).startswith("Composer installs one version")
    assert conflict_why(Ecosystem.RUBYGEMS).startswith("Bundler")


def test_nuget_uses_the_dependency_group_nearest_net8() -> None:
    groups = [".NETFramework4.6.2", "net6.0", ".NETStandard2.0", ".NETStandard2.1"]
    assert nearest_nuget_group(groups, "net8.0") == "net6.0"
    assert nearest_nuget_group([*groups, "net9.0"], "net8.0") == "net6.0"  # never a newer .NET
    assert (
        nearest_nuget_group([".NETStandard1.3", ".NETStandard2.0"], "net8.0") == ".NETStandard2.0"
    )
    assert nearest_nuget_group([".NETFramework4.5", "any"], "net8.0") == "any"
    # AssetTargetFallback: .NET Framework 4.6.1-4.8.1 only when nothing else fits
    assert nearest_nuget_group([".NETFramework4.7.2", "net45"], "net8.0") == ".NETFramework4.7.2"
    assert nearest_nuget_group([".NETFramework4.5", "net8.0-windows7.0"], "net8.0") is None


def test_nuget_edges_follow_the_chosen_group_empty_groups_included() -> None:
    env = Environment()
    groups = [".NETFramework4.6.2", "net6.0", ".NETStandard2.0"]
    event_log = Dependency("System.Diagnostics.EventLog", "[6.0.0, )", marker="net6.0")
    emit = Dependency("System.Reflection.Emit", "[4.7.0, )", marker=".NETStandard2.0")
    assert edge_applies(Ecosystem.NUGET, event_log, env, groups=groups).applies
    skipped = edge_applies(Ecosystem.NUGET, emit, env, groups=groups)
    assert not skipped.applies and "net6.0 group" in (skipped.why or "")
    # an empty net8.0 group means "nothing on net8.0", though no dependency names it
    assert not edge_applies(Ecosystem.NUGET, emit, env, groups=[*groups, "net8.0"]).applies
    agnostic = Dependency("Newtonsoft.Json", "[13.0.1, )", marker="any")
    assert edge_applies(Ecosystem.NUGET, agnostic, env, groups=["any"]).applies


def test_nuget_takes_the_lowest_applicable_version() -> None:
    releases = (
        Release("1.0.0"),
        Release("1.2.0", yanked=True),  # unlisted
        Release("1.3.0"),
        Release("2.0.0-beta.1", prerelease=True),
        Release("2.0.0"),
    )
    assert (
        pick_version(Ecosystem.NUGET, releases, "1.0.0") == "1.0.0"
    )  # a bare version is a minimum
    assert pick_version(Ecosystem.NUGET, releases, "[1.1.0, )") == "1.3.0"  # unlisted 1.2.0 skipped
    assert pick_version(Ecosystem.NUGET, releases, "[1.2.0]") == "1.2.0"  # pinned exactly
    assert pick_version(Ecosystem.NUGET, releases, "(1.3.0, )") == "2.0.0"  # no pre-release
    assert pick_version(Ecosystem.NUGET, releases, "[2.0.0-alpha, )") == "2.0.0-beta.1"
    assert pick_version(Ecosystem.NUGET, releases, "[3.0.0, )") is None
    with pytest.raises(UnevaluableRequirement):
        pick_version(Ecosystem.NUGET, releases, "1.*")  # floating: not evaluated
