"""The tree resolutions: one per ecosystem a tree is resolved for, each built on the public
`Resolution`, and the cache codec that gives back the tree it was given."""

from __future__ import annotations

from datetime import UTC, datetime

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.trees.resolution import TREE_ECOSYSTEMS
from pkgintel.domain.trees.values import DependencyTree, TreeNode, Unresolved
from pkgintel.services.trees.codec import decode_tree, encode_tree
from pkgintel.services.trees.conda_homebrew_cocoapods import CondaHomebrewCocoaPodsResolution
from pkgintel.services.trees.cpan import CpanResolution
from pkgintel.services.trees.go import GoResolution
from pkgintel.services.trees.jsr_cran_julia_hackage import JsrCranJuliaHackageResolution
from pkgintel.services.trees.maven import MavenResolution
from pkgintel.services.trees.registry import RESOLUTIONS
from pkgintel.services.trees.resolution import Resolution

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def test_every_tree_ecosystem_has_exactly_one_resolution() -> None:
    assert set(RESOLUTIONS) == set(TREE_ECOSYSTEMS)


def test_each_family_resolves_its_own_ecosystems() -> None:
    assert RESOLUTIONS[Ecosystem.GO] is GoResolution
    assert RESOLUTIONS[Ecosystem.MAVEN] is MavenResolution
    assert RESOLUTIONS[Ecosystem.CPAN] is CpanResolution
    assert Ecosystem.SWIFT not in RESOLUTIONS  # no dependency data: a 422 saying why
    for eco in (Ecosystem.CONDA, Ecosystem.HOMEBREW, Ecosystem.COCOAPODS):
        assert RESOLUTIONS[eco] is CondaHomebrewCocoaPodsResolution
    for eco in (Ecosystem.JSR, Ecosystem.CRAN, Ecosystem.JULIA, Ecosystem.HACKAGE):
        assert RESOLUTIONS[eco] is JsrCranJuliaHackageResolution
    for eco in (Ecosystem.NPM, Ecosystem.PYPI, Ecosystem.CARGO, Ecosystem.NUGET):
        assert RESOLUTIONS[eco] is Resolution
    assert all(issubclass(cls, Resolution) for cls in RESOLUTIONS.values())


def _tree() -> DependencyTree:
    node = TreeNode(
        id="left-pad@1.3.0",
        name="left-pad",
        version="1.3.0",
        depth=0,
        requirement=None,
        kind="root",
        required_by=(),
        latest_version="1.3.0",
        health_score=42,
        risk="high",
        vulnerabilities=None,
        vulnerability_status="unavailable",
        severities={},
        license="WTFPL",
        license_risk="low",
        copyleft=None,
        deprecated=True,
        malicious=None,
        dependencies=("x@1.0.0",),
        minimums=(("root@1.0.0", "1.3.0"),),
    )
    return DependencyTree(
        ecosystem=Ecosystem.NPM,
        root=node.id,
        nodes=(node,),
        unresolved=(Unresolved("left-pad@1.3.0", "x", "^2", "no_matching_version", "none"),),
        conflicts=({"package": "x", "kept": "x@1.0.0"},),
        skipped=({"parent": node.id, "name": "y", "requirement": "*", "why": "dev"},),
        cycles=(("a@1", "b@1"),),
        truncated=True,
        truncation=("max_depth 3 reached: 1 dependencies of 1 packages not expanded",),
        max_depth=3,
        max_deps=200,
        environment={"python_version": "3.12"},
        computed_at=NOW,
        sources=(
            SourceStatus("dependency-tree", "dependency_tree", SourceState.OK, NOW, "1 resolved"),
            SourceStatus("npm", "registry", SourceState.STALE, None, None, NOW),
        ),
    )


def test_the_codec_gives_back_the_tree_it_was_given() -> None:
    tree = _tree()
    assert decode_tree(encode_tree(tree)) == tree
