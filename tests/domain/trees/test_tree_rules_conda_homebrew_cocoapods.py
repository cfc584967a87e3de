"""Tree rules for Conda (MatchSpec versions), Homebrew (one version per formula) and CocoaPods
(`Pod::Requirement`, subspecs): which edges install, which published version is taken."""

from __future__ import annotations

import orjson
import pytest

from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError
from pkgintel.domain.ranges.conda import CondaGrammar
from pkgintel.domain.trees.conda_homebrew_cocoapods import (
    POD_ITSELF,
    UNSUPPORTED_WHY,
    is_tap_formula,
    missing_subspecs,
    pod_subspecs,
    requirement_met_b,
)
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.resolution import (
    TREE_ECOSYSTEMS,
    Environment,
    conflict_why,
    edge_applies,
    one_version_per_name,
    pick_version,
)

CONDA = Ecosystem.CONDA
PODS = Ecosystem.COCOAPODS
BREW = Ecosystem.HOMEBREW
ENV = Environment()


# --- conda VersionSpec -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "version", "expected"),
    [
        (">=1.2,<2", "1.9.9", True),
        (">=1.2,<2", "2.0", False),
        ("1.2.*", "1.2.9", True),
        ("1.2.*", "1.20", False),  # a prefix of parts, not of text
        ("1.2*", "1.2.3", True),
        ("1.2", "1.2.0", True),  # a bare version is exact, compared as VersionOrder
        ("1.2", "1.2.1", False),
        ("=1.2", "1.2.7", True),  # `=` is "starts with"
        (">=2.7,<2.8.0a0", "2.7.18", True),
        (">=2.7,<2.8.0a0", "2.8.0rc1", False),  # 2.8.0a0 < 2.8.0rc1
        ("~=1.4.2", "1.4.9", True),
        ("~=1.4.2", "1.5.0", False),
        ("!=1.2.*", "1.2.5", False),
        ("!=1.2.*", "1.3", True),
        ("1.2|>=3", "3.1", True),
        ("1.2|>=3", "2.0", False),
        ("(1.2|1.3),<1.3", "1.3", False),  # `,` binds tighter than `|`; parentheses group
        ("1.*.3", "1.5.3", True),  # a glob inside the version
        ("^1\\.[23]$", "1.3", True),
        ("*", "0.0.1", True),
        ("", "4.2", True),
        (">=1.0.*", "1.0", True),  # `.*` after >= is dropped
        ("1!2.0", "2.0", False),  # epochs differ
        ("2.0", "2.0+local", False),
    ],
)
def test_conda_version_spec_semantics(spec: str, version: str, expected: bool) -> None:
    assert CondaGrammar().parse(spec).contains(version) is expected


@pytest.mark.parametrize("spec", [">=", "(1.2", "1.2)", ">>1", "1.2,", "|1", "~=1.2.*", "^1.2"])
def test_conda_specs_outside_the_grammar_raise(spec: str) -> None:
    with pytest.raises(RangeSyntaxError):
        CondaGrammar().parse(spec)


CONDA_RELEASES = (
    Release("1.1"),
    Release("1.5"),
    Release("1.9", yanked=True, yanked_reason="no build under the `main` label"),
    Release("2.0a1", prerelease=True),
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (">=1.2,<2.0a0", "1.5"),  # 1.9 has no installable build: never picked
        (">=1.2,<2", "2.0a1"),  # 2.0a1 sorts below 2 (why conda-forge writes `<2.0a0`)
        ("1.9", None),  # not even pinned: it is not in the channel's index
        ("", "2.0a1"),  # conda's matcher has no pre-release rule
        ("<1", None),
    ],
)
def test_conda_picks_the_newest_installable_version_in_spec(
    spec: str, expected: str | None
) -> None:
    assert pick_version(CONDA, CONDA_RELEASES, spec) == expected


def test_conda_unparsable_spec_is_unevaluable() -> None:
    with pytest.raises(UnevaluableRequirement):
        pick_version(CONDA, CONDA_RELEASES, ">=1,(")


def test_conda_virtual_packages_and_python_are_platform_not_edges() -> None:
    glibc = edge_applies(CONDA, Dependency("__glibc", ">=2.17"), ENV)
    assert not glibc.applies and glibc.why and glibc.why.startswith("virtual package")
    old = edge_applies(CONDA, Dependency("python", ">=2.7,<2.8.0a0"), ENV)
    assert not old.applies and old.why and "does not admit Python 3.13" in old.why
    new = edge_applies(CONDA, Dependency("python", ">=3.9"), ENV)
    assert new.why and "admits Python 3.13" in new.why and "not admit" not in new.why
    assert edge_applies(CONDA, Dependency("python_abi", "3.13.*"), ENV).applies
    assert edge_applies(CONDA, Dependency("libgcc-ng", ">=12"), ENV).applies


# --- Homebrew ----------------------------------------------------------------------------------


def test_homebrew_installs_runtime_and_recommended_not_optional_build_or_macos_provided() -> None:
    def why(kind: str) -> str | None:
        decision = edge_applies(BREW, Dependency("x", "", kind), ENV)
        return None if decision.applies else decision.why

    assert why("runtime") is None and why("recommended") is None
    assert (why("optional") or "").startswith("optional: installed only with --with-x")
    assert "provided by macOS" in (why("uses_from_macos") or "")
    assert "not installed with a bottle" in (why("build") or "")


def test_homebrew_has_one_version_the_current_one() -> None:
    assert pick_version(BREW, (Release("3.4.0"),), "") == "3.4.0"
    with pytest.raises(UnevaluableRequirement):
        pick_version(BREW, (Release("3.4.0"),), ">= 3")
    assert requirement_met_b(BREW, "3.4.0", "") is True
    assert is_tap_formula("someone/tap/thing") and not is_tap_formula("openssl@3")


# --- CocoaPods ---------------------------------------------------------------------------------

POD_RELEASES = tuple(
    Release(v, prerelease="-" in v) for v in ("1.0.0", "2.0.0", "2.1.0", "2.2.0-beta.1", "3.0.0")
)


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("~> 2.0", "2.1.0"),  # not the pre-release, not 3.0.0
        ("~>2.0.0", "2.0.0"),  # the recorded podspecs write `~>4.5.0` without a blank
        (">= 2.2.0-beta.1", "3.0.0"),
        ("~> 2.2.0-beta.1", "2.2.0-beta.1"),  # naming a pre-release admits one
        ("", "3.0.0"),  # no requirement: `>= 0`
        ("~> 2.0, < 2.1", "2.0.0"),  # several requirements of one dependency all hold
        ("~> 9.0", None),
    ],
)
def test_cocoapods_requirements_pick_like_pod_install(
    requirement: str, expected: str | None
) -> None:
    assert pick_version(PODS, POD_RELEASES, requirement) == expected


def test_cocoapods_platform_dependencies_apply_on_ios_only() -> None:
    assert edge_applies(PODS, Dependency("A", "", marker="ios"), ENV).applies
    mac = edge_applies(PODS, Dependency("A", "", marker="osx"), ENV)
    assert not mac.applies and mac.why == "only on osx; this tree is for ios"


EXTRA = {
    "subspecs": "Core, Rx, Rx/Extras, Combine",
    "subspec_requires": orjson.dumps({"Rx": ["Core"]}).decode(),
}


def test_pod_subspecs_default_asked_nested_and_required() -> None:
    # no default_subspecs: every top-level subspec, each with all its children
    assert pod_subspecs(EXTRA, None) == ["Core", "Rx", "Rx/Extras", "Combine"]
    assert pod_subspecs({**EXTRA, "default_subspecs": "Combine"}, None) == ["Combine"]
    assert pod_subspecs({**EXTRA, "default_subspecs": "none"}, None) == []
    # Rx requires Core and brings its child Extras; asked lower-cased as the API's extras are
    assert pod_subspecs(EXTRA, ["rx"]) == ["Core", "Rx", "Rx/Extras"]
    # a nested subspec inherits its parent's dependencies but not the parent's other children
    assert pod_subspecs(EXTRA, ["Rx/Extras"]) == ["Rx", "Rx/Extras"]
    assert pod_subspecs({}, None) == []
    # the pod by name and one of its subspecs: the defaults and that subspec
    defaults = {**EXTRA, "default_subspecs": "Combine"}
    assert pod_subspecs(defaults, [POD_ITSELF, "Rx/Extras"]) == ["Rx", "Rx/Extras", "Combine"]
    assert missing_subspecs(EXTRA, [POD_ITSELF, "Rx", "Nope"]) == ["Nope"]


def test_one_version_per_name_and_conflict_sentences() -> None:
    for eco in (CONDA, BREW, PODS):
        assert eco in TREE_ECOSYSTEMS and one_version_per_name(eco)
    assert "SAT solver" in conflict_why(CONDA)
    assert "Molinillo" in conflict_why(PODS)


def test_swift_is_left_out_with_the_reason() -> None:
    assert Ecosystem.SWIFT not in TREE_ECOSYSTEMS
    assert "Package.swift" in UNSUPPORTED_WHY[Ecosystem.SWIFT]
