"""CPAN prerequisite rules (`domain/trees/cpan.py`) and the perl core-module list they read."""

from __future__ import annotations

import pytest

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError
from pkgintel.domain.trees.cpan import (
    distribution_range,
    edge_applies,
    installed_with_perl,
    parse_range,
    pick_version,
    requirement_met,
)
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.resolution import TREE_ECOSYSTEMS, conflict_why
from pkgintel.domain.trees.resolution import pick_version as pick_any
from pkgintel.knowledge.cpan_core import CORE_PERL, core_modules


@pytest.mark.parametrize(
    ("version", "requirement", "met"),
    [
        ("1.0048", "0", True),
        ("1.0048", "", True),
        ("1.0048", "1.0", True),  # bare version = at least
        ("0.99", "1.0", False),
        ("1.2", ">= 1.2, < 2", True),
        ("2.0", ">= 1.2, < 2", False),
        ("1.19", ">= 1.2, < 2", False),  # decimal: 1.19 is v1.190, below 1.2 = v1.200
        ("1.5", "== 1.5", True),
        ("1.50", "== 1.5", True),  # 1.50 and 1.5 are one decimal version
        ("1.3", "!= 1.3", False),
        ("v1.21.5", ">= v1.21.0", True),
        ("1.002003", "v1.2.3", True),  # decimal 1.002003 = v1.2.3
    ],
)
def test_requirement_met(version: str, requirement: str, met: bool) -> None:
    assert requirement_met(version, requirement) is met


@pytest.mark.parametrize("text", ["~> 1.2", ">= 1.2 || < 1", "latest", ">= "])
def test_text_outside_the_grammar_is_never_guessed(text: str) -> None:
    with pytest.raises(RangeSyntaxError):
        parse_range(text)
    assert requirement_met("1.0", text) is None


def test_pick_version_takes_the_newest_in_range_and_skips_developer_releases() -> None:
    releases = [Release(v) for v in ("1.0", "1.5", "1.9_01", "2.0")]
    assert pick_version(releases, "0") == "2.0"
    assert pick_version(releases, ">= 1.0, < 2") == "1.5"
    assert pick_version(releases, "== 1.9_01") == "1.9_01"
    assert pick_version(releases, ">= 3") is None
    withdrawn = [Release("1.0"), Release("2.0", yanked=True)]
    assert pick_version(withdrawn, "1.0") == "1.0"


def test_core_modules_are_installed_with_perl_when_their_version_suffices() -> None:
    core = core_modules()
    assert CORE_PERL == "5.36.0"
    assert core["strict"] == "1.12" and core["Test::More"] == "1.302190"
    assert "Plack" not in core
    any_version = installed_with_perl(Dependency("strict", "0", "runtime"), core, CORE_PERL)
    assert any_version == "ships with perl 5.36.0"
    enough = installed_with_perl(Dependency("Test::More", "0.98", "runtime"), core, CORE_PERL)
    assert enough is not None and "1.302190" in enough
    # A dual-life module newer than perl's copy comes from CPAN.
    assert installed_with_perl(Dependency("Test::More", "1.4", "runtime"), core, CORE_PERL) is None
    assert installed_with_perl(Dependency("Plack", "0", "runtime"), core, CORE_PERL) is None


def test_only_runtime_requires_are_followed() -> None:
    assert edge_applies(Dependency("Plack", "1.0", "runtime")) is None
    assert edge_applies(Dependency("perl", "5.008", "runtime")) is not None
    why = edge_applies(Dependency("Test::More", "0", "dev"))
    assert why is not None and why.startswith("dev prerequisite")
    assert edge_applies(Dependency("JSON::XS", "0", "optional")) is not None


def test_a_module_requirement_bounds_the_distribution_only_for_its_main_module() -> None:
    assert distribution_range("Plack", ">= 1.0047, < 2", "Plack", "Plack") == ">= 1.0047, < 2"
    # any version of another module: any version of the distribution that ships it
    assert distribution_range("Plack::Request", "0", "Plack", "Plack") == "0"
    assert distribution_range("Plack::Request", "", "Plack", "Plack") == "0"
    with pytest.raises(UnevaluableRequirement, match="not the main module of Plack"):
        distribution_range("Plack::Request", "1.0", "Plack", "Plack")
    with pytest.raises(UnevaluableRequirement, match="none declared"):
        distribution_range("Foo::Bar", "1.0", "Foo", None)
    with pytest.raises(UnevaluableRequirement):
        distribution_range("Plack", "~> 1.0", "Plack", "Plack")


def test_cpan_is_a_tree_ecosystem_with_its_own_dispatch() -> None:
    assert Ecosystem.CPAN in TREE_ECOSYSTEMS
    assert Ecosystem.SWIFT not in TREE_ECOSYSTEMS
    releases = [Release(v) for v in ("1.0", "1.5", "2.0_01")]
    assert pick_any(Ecosystem.CPAN, releases, "< 2") == "1.5"
    with pytest.raises(UnevaluableRequirement):
        pick_any(Ecosystem.CPAN, releases, "^1.0")
    assert "one version of a distribution" in conflict_why(Ecosystem.CPAN)
