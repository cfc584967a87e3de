"""
`/api/tree/maven/...` and `/api/licenses/maven/...`: hand-written `maven-metadata.xml` and POM bodies
in Maven Central's layout for Maven's rules — scopes, optional dependencies of dependencies,
exclusions along a path, the root's dependencyManagement, nearest-wins mediation (an omitted
declaration is a `conflicts` entry with `mediation`, not an error), soft versions and ranges, and
versions that cannot be known — plus the recorded zio-aws-autoscaling POM from ../shared.
"""

from __future__ import annotations

import httpx
import pytest

from pkgintel.config import Settings
from tests.api.tree_bodies import ids as _ids
from tests.api.tree_bodies import node as _node
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

CENTRAL = "https://repo.maven.apache.org/maven2"
APACHE = "<licenses><license><name>Apache License, Version 2.0</name></license></licenses>"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories and no OSV fallback: node counts are "unavailable" without a call.
    return settings.model_copy(update={"osv_api_fallback": False})


def dep(
    coords: str,
    version: str | None = None,
    *,
    scope: str | None = None,
    optional: bool = False,
    exclusions: tuple[str, ...] = (),
) -> str:
    group, artifact = coords.split(":")
    parts = [f"<groupId>{group}</groupId><artifactId>{artifact}</artifactId>"]
    if version is not None:
        parts.append(f"<version>{version}</version>")
    if scope:
        parts.append(f"<scope>{scope}</scope>")
    if optional:
        parts.append("<optional>true</optional>")
    if exclusions:
        parts.append("<exclusions>")
        for ex in exclusions:
            g, a = ex.split(":")
            parts.append(
                f"<exclusion><groupId>{g}</groupId><artifactId>{a}</artifactId></exclusion>"
            )
        parts.append("</exclusions>")
    return f"<dependency>{''.join(parts)}</dependency>"


def artifact(
    registry: ReplayRegistry,
    coords: str,
    versions: dict[str, list[str]],
    *,
    managed: list[str] = (),  # type: ignore[assignment]
    licence: str = APACHE,
    extra: str = "",
) -> None:
    """`maven-metadata.xml` listing `versions` (newest last = `<release>`) and one POM per version
    whose `<dependencies>` are `versions[v]` (`dep(...)` strings)."""
    group, name = coords.split(":")
    base = f"{CENTRAL}/{group.replace('.', '/')}/{name}"
    listed = "".join(f"<version>{v}</version>" for v in versions)
    registry.add(
        f"{base}/maven-metadata.xml",
        (
            f"<metadata><groupId>{group}</groupId><artifactId>{name}</artifactId><versioning>"
            f"<release>{list(versions)[-1]}</release><versions>{listed}</versions>"
            "</versioning></metadata>"
        ).encode(),
    )
    management = (
        f"<dependencyManagement><dependencies>{''.join(managed)}</dependencies></dependencyManagement>"
        if managed
        else ""
    )
    for v, deps in versions.items():
        registry.add(
            f"{base}/{v}/{name}-{v}.pom",
            (
                f"<project><groupId>{group}</groupId><artifactId>{name}</artifactId>"
                f"<version>{v}</version>{licence}{extra}{management}"
                f"<dependencies>{''.join(deps)}</dependencies></project>"
            ).encode(),
        )


async def test_maven_tree_scopes_optional_exclusions_management_and_nearest_wins(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    artifact(
        registry,
        "org.acme:app",
        {
            "1.0": [
                dep("org.acme:a", "1.0", exclusions=("org.acme:excluded-lib",)),
                dep("org.acme:b", "[1.0,2.0)", scope="runtime"),
                dep("org.acme:servlet-api", "4.0", scope="provided"),
                dep("junit:junit", "4.13", scope="test"),
                dep("org.acme:opt", "1.0", optional=True),
                dep("org.acme:near", "1.0"),
            ]
        },
        managed=[dep("org.acme:pinned", "1.1")],
    )
    artifact(
        registry,
        "org.acme:a",
        {
            "1.0": [
                dep("org.acme:excluded-lib", "1.0"),
                dep("org.acme:shared", "2.0"),
                dep("org.acme:near", "9.0"),
                dep("org.acme:pinned", "1.0"),
                dep("org.acme:a-test", "1.0", scope="test"),
                dep("org.acme:a-opt", "1.0", optional=True),
                dep("org.acme:a-provided", "1.0", scope="provided"),
            ]
        },
    )
    # [1.0,2.0) takes 1.5: the highest published version in range, not 2.0
    artifact(
        registry,
        "org.acme:b",
        {
            "1.0": [],
            "1.5": [dep("org.acme:shared", "3.0"), dep("org.acme:c", "1.0")],
            "2.0": [],
        },
    )
    artifact(registry, "org.acme:shared", {"2.0": [dep("org.acme:excluded-lib", "1.0")], "3.0": []})
    artifact(registry, "org.acme:near", {"1.0": [], "9.0": []})
    artifact(registry, "org.acme:pinned", {"1.0": [], "1.1": []})
    artifact(registry, "org.acme:opt", {"1.0": []})
    # reached through b, not a: a's exclusion does not reach it
    artifact(registry, "org.acme:c", {"1.0": [dep("org.acme:excluded-lib", "1.0")]})
    artifact(
        registry,
        "org.acme:excluded-lib",
        {"1.0": []},
        licence="<licenses><license><name>GPL-3.0-only</name></license></licenses>",
    )

    resp = await client.get("/api/tree/maven/org.acme:app")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["root"] == "org.acme:app@1.0"
    assert _ids(body) == {
        "org.acme:app@1.0",
        "org.acme:a@1.0",
        "org.acme:b@1.5",
        "org.acme:opt@1.0",
        "org.acme:near@1.0",
        "org.acme:shared@2.0",
        "org.acme:pinned@1.1",
        "org.acme:c@1.0",
        "org.acme:excluded-lib@1.0",
    }
    kinds = {n["id"]: (n["kind"], n["depth"]) for n in body["nodes"]}
    assert kinds["org.acme:a@1.0"] == ("compile", 1)
    assert kinds["org.acme:b@1.5"] == ("runtime", 1)
    assert kinds["org.acme:opt@1.0"] == ("optional", 1)  # the root's own optional: on its classpath
    assert kinds["org.acme:shared@2.0"] == ("compile", 2)
    assert kinds["org.acme:c@1.0"] == ("runtime", 2)  # runtime × compile → runtime
    assert kinds["org.acme:excluded-lib@1.0"] == ("runtime", 3)
    # the root's dependencyManagement pins a's transitive pinned 1.0 to 1.1
    assert _node(body, "org.acme:pinned@1.1")["requirement"] == "1.1"
    assert "org.acme:pinned 1.0 → 1.1" in body["environment"]["managed_versions"]
    # nearest wins: near 1.0 (depth 1) over a's 9.0; shared 2.0 (a, declared first) over b's 3.0
    conflicts = {(c["package"], c["requirement"]): c for c in body["conflicts"]}
    assert set(conflicts) == {("org.acme:near", "9.0"), ("org.acme:shared", "3.0")}
    near = conflicts[("org.acme:near", "9.0")]
    assert near["kept"] == "org.acme:near@1.0" and near["required_by"] == "org.acme:a@1.0"
    assert near["mediation"] == "nearest_wins" and "not an error" in near["why"]
    assert conflicts[("org.acme:shared", "3.0")]["required_by"] == "org.acme:b@1.5"
    assert set(_node(body, "org.acme:b@1.5")["dependencies"]) == {
        "org.acme:shared@2.0",
        "org.acme:c@1.0",
    }
    skipped = {(s["parent"], s["name"]): s["why"] for s in body["skipped"]}
    assert skipped[("org.acme:app@1.0", "org.acme:servlet-api")].startswith("provided scope")
    assert skipped[("org.acme:app@1.0", "junit:junit")].startswith("test scope")
    assert skipped[("org.acme:a@1.0", "org.acme:a-opt")].startswith("optional dependency")
    assert skipped[("org.acme:a@1.0", "org.acme:a-provided")].startswith("provided scope")
    for parent in ("org.acme:a@1.0", "org.acme:shared@2.0"):  # the exclusion holds below a
        assert skipped[(parent, "org.acme:excluded-lib")].startswith(
            "excluded by <exclusion> org.acme:excluded-lib on the edge org.acme:app@1.0 → org.acme:a"
        )
    for never in ("servlet-api", "junit", "a-opt", "a-test", "a-provided"):
        assert not any(f"/{never}/" in h for h in registry.hits), never
    assert body["unresolved"] == [] and body["complete"] is True
    assert "mvn dependency:tree -Dscope=runtime" in body["environment"]["classpath"]

    lic = (await client.get("/api/licenses/maven/org.acme:app?target=Apache-2.0")).json()
    assert lic["license"] == "Apache-2.0"
    assert [f["id"] for f in lic["flagged"]] == ["org.acme:excluded-lib@1.0"]
    assert lic["by_license"] == {"Apache-2.0": 7, "GPL-3.0-only": 1}
    assert lic["target_compatibility"]["verdict"] == "incompatible"


async def test_maven_unknown_versions_are_unresolved_never_guessed(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    artifact(
        registry,
        "org.acme:gaps",
        {
            "2.0": [
                dep("org.acme:gone", "1.0"),
                dep("org.acme:prop", "${prop.version}"),
                dep("org.acme:bare"),
                dep("org.acme:ranged", "[5.0,)"),
                dep("org.acme:fine", "1.0"),
            ]
        },
        managed=[dep("org.acme:platform-bom", "3.0", scope="import")],
    )
    artifact(registry, "org.acme:gone", {"2.0": []})
    artifact(registry, "org.acme:ranged", {"1.0": [], "4.9": []})
    artifact(registry, "org.acme:prop", {"1.0": []})
    artifact(registry, "org.acme:bare", {"1.0": []})
    # a farther declaration of gone does not stand in for the unresolved nearest one
    artifact(registry, "org.acme:fine", {"1.0": [dep("org.acme:gone", "2.0")]})

    body = (await client.get("/api/tree/maven/org.acme:gaps")).json()
    assert _ids(body) == {"org.acme:gaps@2.0", "org.acme:fine@1.0"}
    unresolved = {u["name"]: u for u in body["unresolved"]}
    assert set(unresolved) == {"org.acme:gone", "org.acme:prop", "org.acme:bare", "org.acme:ranged"}
    assert unresolved["org.acme:gone"]["reason"] == "no_matching_version"
    assert "has no version '1.0'" in unresolved["org.acme:gone"]["detail"]
    assert unresolved["org.acme:ranged"]["reason"] == "no_matching_version"
    assert unresolved["org.acme:prop"]["reason"] == "unevaluable"
    assert "${prop.version}" in unresolved["org.acme:prop"]["detail"]
    assert unresolved["org.acme:bare"]["reason"] == "unevaluable"
    assert "org.acme:platform-bom:3.0" in unresolved["org.acme:bare"]["detail"]
    # nothing is fetched for versions that cannot be known
    assert not any("/prop/" in h or "/bare/" in h for h in registry.hits)
    skipped = {(s["parent"], s["name"]): s["why"] for s in body["skipped"]}
    assert "nearest definition" in skipped[("org.acme:fine@1.0", "org.acme:gone")]
    assert body["conflicts"] == []
    lic = (await client.get("/api/licenses/maven/org.acme:gaps")).json()
    assert lic["compatibility"]["verdict"] == "unknown"  # never "compatible" with gaps


async def test_maven_tree_depth_and_size_limits_are_named(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    artifact(
        registry, "org.acme:top", {"1.0": [dep("org.acme:l1", "1.0"), dep("org.acme:w", "1.0")]}
    )
    artifact(registry, "org.acme:l1", {"1.0": [dep("org.acme:l2", "1.0")]})
    artifact(registry, "org.acme:l2", {"1.0": []})
    artifact(registry, "org.acme:w", {"1.0": []})
    body = (await client.get("/api/tree/maven/org.acme:top?max_depth=1")).json()
    assert _ids(body) == {"org.acme:top@1.0", "org.acme:l1@1.0", "org.acme:w@1.0"}
    assert body["truncated"] is True and _node(body, "org.acme:l1@1.0")["not_expanded"] == 1
    body = (await client.get("/api/tree/maven/org.acme:top?max_deps=1")).json()
    assert _ids(body) == {"org.acme:top@1.0", "org.acme:l1@1.0"}
    assert any("max_deps 1 reached" in t for t in body["truncation"])


@requires_shared
async def test_maven_tree_on_the_recorded_zio_aws_autoscaling_pom(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    # The recorded POM (5.17.225.2) and metadata; two of its six dependencies written here.
    artifact(registry, "dev.zio:zio_3", {"1.0.0": [], "2.0.0": []})
    artifact(registry, "dev.zio:zio-aws-core_3", {"5.17.225.2": [dep("dev.zio:zio_3", "1.0.0")]})
    body = (await client.get("/api/tree/maven/dev.zio:zio-aws-autoscaling_3")).json()
    assert body["root"] == "dev.zio:zio-aws-autoscaling_3@5.17.225.2"
    assert _ids(body) == {
        "dev.zio:zio-aws-autoscaling_3@5.17.225.2",
        "dev.zio:zio-aws-core_3@5.17.225.2",
        "dev.zio:zio_3@2.0.0",
    }
    assert _node(body, "dev.zio:zio_3@2.0.0")["kind"] == "compile"
    # the root declares zio_3 2.0.0 at depth 1: zio-aws-core's 1.0.0 is omitted for conflict
    [omitted] = body["conflicts"]
    assert omitted["required_by"] == "dev.zio:zio-aws-core_3@5.17.225.2"
    assert omitted["requirement"] == "1.0.0" and omitted["mediation"] == "nearest_wins"
    # the four not written here are not on the replay registry: named, not invented
    assert {u["name"] for u in body["unresolved"]} == {
        "org.scala-lang:scala3-library_3",
        "software.amazon.awssdk:autoscaling",
        "dev.zio:zio-streams_3",
        "dev.zio:zio-mock_3",
    }
    assert {u["reason"] for u in body["unresolved"]} == {"not_found"}
    assert _node(body, body["root"])["license"] == "Apache-2.0"


async def test_the_roots_dependency_management_sets_transitive_scopes(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    artifact(
        registry,
        "org.acme:scoped-app",
        {"1.0": [dep("org.acme:mid", "1.0")]},
        managed=[
            dep("org.acme:made-test", scope="test"),
            dep("org.acme:made-runtime", scope="runtime"),
        ],
    )
    artifact(
        registry,
        "org.acme:mid",
        {"1.0": [dep("org.acme:made-test", "1.0"), dep("org.acme:made-runtime", "1.0")]},
    )
    artifact(registry, "org.acme:made-runtime", {"1.0": [dep("org.acme:leaf", "1.0")]})
    artifact(registry, "org.acme:leaf", {"1.0": []})
    body = (await client.get("/api/tree/maven/org.acme:scoped-app")).json()
    kinds = {n["id"]: n["kind"] for n in body["nodes"]}
    assert kinds == {
        "org.acme:scoped-app@1.0": "root",
        "org.acme:mid@1.0": "compile",
        "org.acme:made-runtime@1.0": "runtime",
        "org.acme:leaf@1.0": "runtime",  # compile under runtime → runtime
    }
    [skip] = [s for s in body["skipped"] if s["name"] == "org.acme:made-test"]
    assert skip["why"].startswith("test scope set by the root's dependencyManagement")
    assert not any("/made-test/" in h for h in registry.hits)


async def test_an_imported_bom_of_the_root_pins_transitive_versions(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    artifact(
        registry,
        "org.acme:bom-app",
        {"1.0": [dep("org.acme:mid", "1.0"), dep("org.acme:versionless")]},
        managed=[dep("org.acme:acme-bom", "2", scope="import")],
    )
    registry.add(
        f"{CENTRAL}/org/acme/acme-bom/2/acme-bom-2.pom",
        (
            "<project><groupId>org.acme</groupId><artifactId>acme-bom</artifactId><version>2</version>"
            "<dependencyManagement><dependencies>"
            + dep("org.acme:versionless", "1.1")
            + dep("org.acme:leaf", "2.0")
            + "</dependencies></dependencyManagement></project>"
        ).encode(),
    )
    artifact(registry, "org.acme:mid", {"1.0": [dep("org.acme:leaf", "1.0")]})
    artifact(registry, "org.acme:versionless", {"1.0": [], "1.1": []})
    artifact(registry, "org.acme:leaf", {"1.0": [], "2.0": []})
    body = (await client.get("/api/tree/maven/org.acme:bom-app")).json()
    assert _ids(body) == {
        "org.acme:bom-app@1.0",
        "org.acme:mid@1.0",
        "org.acme:versionless@1.1",
        "org.acme:leaf@2.0",
    }
    assert "org.acme:leaf 1.0 → 2.0" in body["environment"]["managed_versions"]
    assert body["unresolved"] == []
