"""Maven's dependency rules (`domain/trees/maven.py`): the scope table, optional dependencies,
exclusions, the root's dependencyManagement, soft versions and ranges, nearest-wins mediation."""

from __future__ import annotations

import orjson
import pytest

from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.domain.trees.maven import (
    MAVEN_DEPENDENCIES,
    MAVEN_MANAGED,
    MavenDependency,
    UnresolvableVersion,
    dependencies_of,
    edge_scope,
    excluded_by,
    managed_scope,
    managed_versions,
    mediate,
    nearest_wins,
    pick_version,
    requirement,
)


def md(coords: str = "g:a", version: str | None = "1.0", **kw: object) -> MavenDependency:
    group, artifact = coords.split(":")
    return MavenDependency(group, artifact, version, **kw)  # type: ignore[arg-type]


# Maven's table (guide, "Dependency Scope"): rows the dependency's scope, columns the scope of its
# own dependency; None where it is not transitive.
@pytest.mark.parametrize(
    ("parent", "declared", "expected"),
    [
        ("compile", "compile", "compile"),
        ("compile", "runtime", "runtime"),
        ("runtime", "compile", "runtime"),
        ("runtime", "runtime", "runtime"),
        ("compile", "provided", None),
        ("compile", "test", None),
        ("compile", "system", None),
        ("runtime", "provided", None),
        ("compile", "import", None),
    ],
)
def test_scope_table(parent: str, declared: str, expected: str | None) -> None:
    assert edge_scope(parent, md(scope=declared)).scope == expected


def test_the_roots_own_scopes() -> None:
    assert edge_scope(None, md(scope="compile")).scope == "compile"
    assert edge_scope(None, md(scope="runtime")).scope == "runtime"
    provided = edge_scope(None, md(scope="provided"))
    assert provided.scope is None and "compile classpath only" in (provided.why or "")
    assert edge_scope(None, md(scope="test")).scope is None
    assert "BOM" in (edge_scope(None, md(scope="import")).why or "")


def test_optional_is_kept_at_the_root_and_not_transitive() -> None:
    assert edge_scope(None, md(optional=True)).scope == "compile"
    below = edge_scope("compile", md(optional=True))
    assert below.scope is None and "not transitive" in (below.why or "")


def test_exclusions_match_exactly_or_by_wildcard() -> None:
    path = (("org.slf4j:slf4j-api", "the edge r → x"), ("commons-logging:*", "the edge x → y"))
    assert excluded_by(md("org.slf4j:slf4j-api"), path) == (
        "excluded by <exclusion> org.slf4j:slf4j-api on the edge r → x"
    )
    assert excluded_by(md("commons-logging:commons-logging"), path) is not None
    assert excluded_by(md("org.slf4j:slf4j-simple"), path) is None
    assert excluded_by(md("any:thing"), (("*:*", "e"),)) is not None
    assert excluded_by(md("any:thing"), ()) is None


def test_the_roots_dependency_management_pins_transitive_versions_only() -> None:
    managed = {"g:a": "2.0"}
    assert requirement(md(version="1.0"), transitive=True, root_managed=managed) == (
        "2.0",
        "dependencyManagement of the root",
    )
    # a direct dependency's declared version is the root's own choice
    assert requirement(md(version="1.0"), transitive=False, root_managed=managed) == (
        "1.0",
        "declared",
    )
    assert requirement(md(version="1.5", managed=True), transitive=False, root_managed={}) == (
        "1.5",
        "dependencyManagement of its POM",
    )


def test_unknown_versions_are_errors_with_the_reason() -> None:
    with pytest.raises(UnresolvableVersion, match=r"\$\{netty.version\}"):
        requirement(md(version="${netty.version}"), transitive=True, root_managed={})
    with pytest.raises(UnresolvableVersion, match=r"io\.netty:netty-bom:4\.1\.0"):
        requirement(
            md(version=None), transitive=True, root_managed={}, boms="io.netty:netty-bom:4.1.0"
        )


RELEASES = tuple(
    Release(v) for v in ("1.0", "1.5-beta-1", "1.5", "1.9.9-SNAPSHOT", "2.0", "3.0", "3.1")
)


@pytest.mark.parametrize(
    ("req", "picked"),
    [
        ("1.5", "1.5"),  # soft: that version
        ("1.7", None),  # soft, not published: never another
        ("[1.0,2.0)", "1.5"),  # highest in range, the snapshot left out
        ("[1.0,1.9.9-SNAPSHOT]", "1.9.9-SNAPSHOT"),  # a bound names a snapshot
        ("[1.0,1.5)", "1.5-beta-1"),  # Maven ranges take qualifiers
        ("(,1.0],[3.0,3.1)", "3.0"),  # a union
        ("[2.0]", "2.0"),
        ("[4.0,)", None),
    ],
)
def test_pick_version(req: str, picked: str | None) -> None:
    assert pick_version(RELEASES, req) == picked


def test_a_range_that_does_not_parse_is_unresolvable() -> None:
    with pytest.raises(UnresolvableVersion):
        pick_version(RELEASES, "[2.0,1.0),[0.5")


def test_nearest_wins_then_the_first_declaration() -> None:
    # level 2, in order: b's shared, c's shared, c's near, d's other; near was placed at level 1
    winners, losers = nearest_wins(["g:shared", "g:shared", "g:near", "g:other"], {"g:near"})
    assert winners == [0, 3] and losers == [1, 2]


def test_an_omitted_declaration_is_reported_not_failed() -> None:
    soft = mediate("g:a", "1.0", "g:p@1", "g:a@2.0", "2.0")
    assert not soft.duplicate and soft.conflict is not None
    assert soft.conflict["mediation"] == "nearest_wins" and "not an error" in soft.conflict["why"]
    assert mediate("g:a", "2.0", "g:p@1", "g:a@2.0", "2.0").duplicate
    assert mediate("g:a", "[1.0,3.0)", "g:p@1", "g:a@2.0", "2.0").conflict is None
    hard = mediate("g:a", "[3.0,)", "g:p@1", "g:a@2.0", "2.0").conflict
    assert hard is not None and hard["mediation"] == "range_not_met"


def test_records_from_the_adapter_and_the_fallback_for_older_snapshots() -> None:
    record = {"g": "g", "a": "a", "v": "1", "m": True, "s": "runtime", "o": True, "x": ["x:y"]}
    info = PackageInfo(
        Ecosystem.MAVEN,
        "g:root",
        "1",
        dependencies=(Dependency("g:a", "1"),),
        extra={
            MAVEN_DEPENDENCIES: orjson.dumps([record]).decode(),
            MAVEN_MANAGED: '{"g:b":"2"}',
        },
    )
    [dep], full = dependencies_of(info)
    assert full and (dep.scope, dep.optional, dep.exclusions, dep.managed) == (
        "runtime",
        True,
        ("x:y",),
        True,
    )
    assert managed_versions(info) == {"g:b": "2"}
    old = PackageInfo(
        Ecosystem.MAVEN,
        "g:root",
        "1",
        dependencies=(Dependency("g:a", "1", "optional"), Dependency("g:t", "4", "dev")),
    )
    deps, full = dependencies_of(old)
    assert not full
    assert [(d.name, d.scope, d.optional) for d in deps] == [
        ("g:a", "compile", True),
        ("g:t", "test", False),
    ]


def test_the_roots_managed_scope_replaces_a_transitive_dependencys_scope() -> None:
    scopes = {"g:t": "test", "g:r": "runtime", "g:c": "compile"}
    made_test = managed_scope("compile", md("g:t"), scopes)
    assert made_test is not None and made_test.scope is None
    assert "root's dependencyManagement" in (made_test.why or "")
    made_runtime = managed_scope("compile", md("g:r"), scopes)
    assert made_runtime is not None and made_runtime.scope == "runtime"
    # a managed compile under a runtime parent is still runtime (the scope table applies again)
    made_compile = managed_scope("runtime", md("g:c", scope="runtime"), scopes)
    assert made_compile is not None and made_compile.scope == "runtime"
    assert managed_scope("compile", md("g:other"), scopes) is None
