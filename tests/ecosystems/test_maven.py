"""Maven adapter: metadata, POM parsing with inherited properties and licences, relocation, deps.dev
dates, on recorded Maven Central and deps.dev bodies."""

from __future__ import annotations

import json

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.ecosystems.maven import (
    MavenAdapter,
    build_info,
    parse_metadata,
    parse_pom,
    spdx_license,
    split_coordinates,
)
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

FIXTURES = "registry-fixtures/maven"

PARENT = """<project><groupId>org.example</groupId><artifactId>parent</artifactId><version>3</version>
<url>https://example.org/tiny</url>
<scm><url>https://github.com/example/tiny/tree/main</url></scm>
<licenses><license><name>Eclipse Public License - v 2.0</name></license></licenses>
<properties><jackson.version>2.17.1</jackson.version></properties>
<dependencyManagement><dependencies>
<dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version></dependency>
</dependencies></dependencyManagement></project>"""
CHILD = """<project xmlns="http://maven.apache.org/POM/4.0.0">
<parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>3</version></parent>
<artifactId>tiny</artifactId><version>1.0.0</version><description>Tiny ${project.artifactId}</description>
<dependencies>
<dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>${jackson.version}</version></dependency>
<dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><scope>test</scope></dependency>
<dependency><groupId>${project.groupId}</groupId><artifactId>tiny-extra</artifactId><version>${project.version}</version><optional>true</optional></dependency>
</dependencies></project>"""
META = """<metadata><groupId>org.example</groupId><artifactId>tiny</artifactId><versioning>
<latest>1.1.0-SNAPSHOT</latest><release>1.0.0</release>
<versions><version>0.9</version><version>1.0.0</version><version>1.1.0-SNAPSHOT</version></versions>
</versioning></metadata>"""


@pytest.mark.parametrize(
    ("name", "coords"),
    [
        ("com.google.guava:guava", ("com.google.guava", "guava")),
        ("com.google.guava/guava", ("com.google.guava", "guava")),
        (" org.example : tiny ", ("org.example", "tiny")),
        ("guava", None),
        ("a:b:c", None),
    ],
)
def test_coordinates(name: str, coords: tuple[str, str] | None) -> None:
    assert split_coordinates(name) == coords


@pytest.mark.parametrize(
    ("name", "url", "spdx"),
    [
        ("The Apache Software License, Version 2.0", None, "Apache-2.0"),
        (
            "Apache License, Version 2.0",
            "https://www.apache.org/licenses/LICENSE-2.0.txt",
            "Apache-2.0",
        ),
        (None, "https://opensource.org/licenses/MIT", "MIT"),
        ("Some Custom Licence", None, "Some Custom Licence"),
        (None, None, None),
    ],
)
def test_pom_licence_names_map_to_spdx(name: str | None, url: str | None, spdx: str | None) -> None:
    assert spdx_license(name, url) == spdx


def test_inheritance_resolves_properties_managed_versions_licence_and_scm() -> None:
    info = build_info(
        "org.example:tiny", parse_metadata(META), poms=[parse_pom(CHILD), parse_pom(PARENT)]
    )
    assert info.latest_version == "1.0.0"
    assert info.description == "Tiny tiny"
    assert info.license == "EPL-2.0"
    assert info.repository == "https://github.com/example/tiny"
    assert info.homepage == "https://example.org/tiny"
    assert [(d.name, d.requirement, d.kind) for d in info.dependencies] == [
        ("com.fasterxml.jackson.core:jackson-databind", "2.17.1", "runtime"),
        ("org.junit.jupiter:junit-jupiter", "5.10.2", "dev"),
        ("org.example:tiny-extra", "1.0.0", "optional"),
    ]
    assert info.release("1.1.0-SNAPSHOT").prerelease is True


def test_relocation_is_deprecation_with_successor() -> None:
    pom = parse_pom(
        "<project><groupId>old.group</groupId><artifactId>thing</artifactId><version>1.0</version>"
        "<distributionManagement><relocation><groupId>new.group</groupId></relocation>"
        "</distributionManagement></project>"
    )
    meta = parse_metadata(
        "<metadata><versioning><release>1.0</release><versions><version>1.0</version></versions></versioning></metadata>"
    )
    info = build_info("old.group:thing", meta, poms=[pom])
    assert info.deprecated is True
    assert info.extra["deprecated_successor"] == "new.group:thing"
    assert "new.group:thing" in (info.deprecated_message or "")


def test_body_that_is_not_metadata_is_invalid() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_metadata("<html><body>index of /</body></html>")
    with pytest.raises(RegistryResponseInvalid):
        parse_pom("<metadata/>")


@requires_shared
def test_guava_metadata_with_depsdev_dates() -> None:
    meta = parse_metadata(
        read_shared_bytes(
            FIXTURES, "repo.maven.apache.org_maven2_com_google_guava_guava_maven-metadata.xml"
        ).decode()
    )
    depsdev = read_shared_json(
        FIXTURES, "api.deps.dev_v3alpha_systems_maven_packages_com.google.guava_3Aguava.json"
    )
    info = build_info("com.google.guava:guava", meta, depsdev=depsdev)
    assert info.latest_version == "23.6-jre"  # <release>, though 23.7-rc1-jre sorts higher
    assert len(info.releases) == 70
    assert info.releases[0].version == "r03"  # Maven orders the old `rNN` names first
    dated = {r.version: r.published_at for r in info.releases if r.published_at}
    assert dated["10.0"].isoformat().startswith("2011-09-28")
    # No POM was read: licence and dependencies are unknown, not guessed.
    assert info.license is None
    assert "dependencies_unavailable" in info.extra


@requires_shared
def test_recorded_pom_with_licence_scm_and_developers() -> None:
    pom = parse_pom(
        read_shared_bytes(
            FIXTURES,
            "repo1.maven.org_maven2_dev_zio_zio-aws-autoscaling_3_5.17.225.2_zio-aws-autoscaling_3-5.17.225.2.pom.xml",
        ).decode()
    )
    meta = parse_metadata(
        read_shared_bytes(
            FIXTURES, "repo1.maven.org_maven2_dev_zio_zio-aws-autoscaling_3_maven-metadata.xml"
        ).decode()
    )
    info = build_info("dev.zio:zio-aws-autoscaling_3", meta, version="5.17.225.2", poms=[pom])
    assert info.license == "Apache-2.0"
    assert info.repository == "https://github.com/zio/zio-aws"
    assert [m.name for m in info.maintainers] == ["Daniel Vigovszky"]
    assert ("dev.zio:zio-aws-core_3", "5.17.225.2") in {
        (d.name, d.requirement) for d in info.dependencies
    }


async def test_fetch_follows_the_parent_chain() -> None:
    answers = {
        "/maven2/org/example/tiny/maven-metadata.xml": META,
        "/maven2/org/example/tiny/1.0.0/tiny-1.0.0.pom": CHILD,
        "/maven2/org/example/parent/3/parent-3.pom": PARENT,
    }

    def handler(request: httpx.Request) -> httpx.Response:
        body = answers.get(request.url.path)
        return httpx.Response(200, text=body) if body else httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await MavenAdapter(client).fetch_package("org.example/tiny")
    assert info.name == "org.example:tiny"
    assert info.license == "EPL-2.0"
    assert {s.name: s.status.value for s in info.sources} == {
        "repo.maven.apache.org POM": "ok",
        "deps.dev": "unavailable",
    }


def test_tree_records_keep_scope_optional_exclusions_inheritance_and_management() -> None:
    parent = parse_pom(
        """<project><groupId>org.example</groupId><artifactId>base</artifactId><version>7</version>
<properties><slf4j.version>2.0.13</slf4j.version></properties>
<dependencyManagement><dependencies>
<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>${slf4j.version}</version></dependency>
<dependency><groupId>io.netty</groupId><artifactId>netty-bom</artifactId><version>4.1.110.Final</version><type>pom</type><scope>import</scope></dependency>
</dependencies></dependencyManagement>
<dependencies>
<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId></dependency>
<dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>1.0</version></dependency>
</dependencies></project>"""
    )
    child = parse_pom(
        """<project><parent><groupId>org.example</groupId><artifactId>base</artifactId><version>7</version></parent>
<artifactId>svc</artifactId><version>2.0</version><dependencies>
<dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>33.2.0-jre</version>
<exclusions><exclusion><groupId>com.google.code.findbugs</groupId><artifactId>jsr305</artifactId></exclusion>
<exclusion><groupId>org.checkerframework</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>
<dependency><groupId>io.netty</groupId><artifactId>netty-handler</artifactId><scope>runtime</scope><optional>true</optional></dependency>
<dependency><groupId>org.example</groupId><artifactId>gone</artifactId><version>${nowhere}</version></dependency>
</dependencies></project>"""
    )
    meta = parse_metadata(
        "<metadata><versioning><release>2.0</release><versions><version>2.0</version></versions></versioning></metadata>"
    )
    info = build_info("org.example:svc", meta, poms=[child, parent])
    records = {(r["g"], r["a"]): r for r in json.loads(info.extra["maven_dependencies"])}
    # the child's own dependencies first; the parent's guava is replaced by the child's
    assert list(records) == [
        ("com.google.guava", "guava"),
        ("io.netty", "netty-handler"),
        ("org.example", "gone"),
        ("org.slf4j", "slf4j-api"),
    ]
    guava = records[("com.google.guava", "guava")]
    assert guava["v"] == "33.2.0-jre" and guava["x"] == [
        "com.google.code.findbugs:jsr305",
        "org.checkerframework:*",
    ]
    netty = records[("io.netty", "netty-handler")]
    assert (netty["s"], netty["o"], netty["v"]) == ("runtime", True, None)
    assert records[("org.example", "gone")]["v"] == "${nowhere}"  # left for the tree to name
    slf4j = records[("org.slf4j", "slf4j-api")]
    assert (slf4j["v"], slf4j["m"]) == ("2.0.13", True)  # inherited, managed by the parent
    # an imported BOM is not a managed artifact: it is named as not read
    assert json.loads(info.extra["maven_managed"]) == {"org.slf4j:slf4j-api": "2.0.13"}
    assert info.extra["maven_boms"] == "io.netty:netty-bom:4.1.110.Final"
    # the records stay off the wire's metadata
    from pkgintel.application.schemas.wire import REGISTRY_FACTS

    assert not {"maven_dependencies", "maven_managed", "maven_boms"} & set(REGISTRY_FACTS)


def test_management_fills_scope_and_exclusions_of_the_poms_own_dependencies() -> None:
    parent = parse_pom(
        """<project><groupId>org.example</groupId><artifactId>base</artifactId><version>7</version>
<dependencyManagement><dependencies>
<dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope></dependency>
<dependency><groupId>org.example</groupId><artifactId>lib</artifactId><version>2.0</version>
<exclusions><exclusion><groupId>commons-logging</groupId><artifactId>commons-logging</artifactId></exclusion></exclusions></dependency>
<dependency><groupId>org.example</groupId><artifactId>scoped</artifactId><scope>runtime</scope></dependency>
</dependencies></dependencyManagement></project>"""
    )
    child = parse_pom(
        """<project><parent><groupId>org.example</groupId><artifactId>base</artifactId><version>7</version></parent>
<artifactId>svc</artifactId><version>2.0</version><dependencies>
<dependency><groupId>junit</groupId><artifactId>junit</artifactId></dependency>
<dependency><groupId>org.example</groupId><artifactId>lib</artifactId></dependency>
<dependency><groupId>org.example</groupId><artifactId>scoped</artifactId><version>1.0</version><scope>compile</scope></dependency>
</dependencies></project>"""
    )
    meta = parse_metadata(
        "<metadata><versioning><release>2.0</release><versions><version>2.0</version></versions></versioning></metadata>"
    )
    info = build_info("org.example:svc", meta, poms=[child, parent])
    # junit's test scope comes from the parent's management: a test dependency, not a runtime one
    assert [(d.name, d.requirement, d.kind) for d in info.dependencies] == [
        ("junit:junit", "4.13.2", "dev"),
        ("org.example:lib", "2.0", "runtime"),
        ("org.example:scoped", "1.0", "runtime"),
    ]
    records = {r["a"]: r for r in json.loads(info.extra["maven_dependencies"])}
    assert records["junit"]["s"] == "test"
    assert records["lib"]["x"] == ["commons-logging:commons-logging"]
    assert records["scoped"]["s"] == "compile"  # declared scope wins over the managed one
    assert json.loads(info.extra["maven_managed_scopes"]) == {
        "junit:junit": "test",
        "org.example:scoped": "runtime",
    }


async def test_imported_boms_manage_versions_in_their_own_context() -> None:
    child = """<project><groupId>org.example</groupId><artifactId>app</artifactId><version>1.0</version>
<dependencyManagement><dependencies>
<dependency><groupId>org.example</groupId><artifactId>platform-bom</artifactId><version>5</version><type>pom</type><scope>import</scope></dependency>
<dependency><groupId>org.example</groupId><artifactId>missing-bom</artifactId><version>1</version><type>pom</type><scope>import</scope></dependency>
<dependency><groupId>org.example</groupId><artifactId>pinned</artifactId><version>9.9</version></dependency>
</dependencies></dependencyManagement>
<dependencies>
<dependency><groupId>org.example</groupId><artifactId>from-bom</artifactId></dependency>
<dependency><groupId>org.example</groupId><artifactId>pinned</artifactId></dependency>
</dependencies></project>"""
    bom_parent = """<project><groupId>org.example</groupId><artifactId>bom-parent</artifactId><version>2</version>
<properties><lib.version>3.2.1</lib.version></properties></project>"""
    bom = """<project><parent><groupId>org.example</groupId><artifactId>bom-parent</artifactId><version>2</version></parent>
<artifactId>platform-bom</artifactId><version>5</version><packaging>pom</packaging>
<dependencyManagement><dependencies>
<dependency><groupId>${project.groupId}</groupId><artifactId>from-bom</artifactId><version>${lib.version}</version></dependency>
<dependency><groupId>org.example</groupId><artifactId>pinned</artifactId><version>1.0</version></dependency>
</dependencies></dependencyManagement></project>"""
    answers = {
        "/maven2/org/example/app/maven-metadata.xml": META.replace("tiny", "app").replace(
            "1.0.0", "1.0"
        ),
        "/maven2/org/example/app/1.0/app-1.0.pom": child,
        "/maven2/org/example/platform-bom/5/platform-bom-5.pom": bom,
        "/maven2/org/example/bom-parent/2/bom-parent-2.pom": bom_parent,
    }

    def handler(request: httpx.Request) -> httpx.Response:
        body = answers.get(request.url.path)
        return httpx.Response(200, text=body) if body else httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await MavenAdapter(client).fetch_package("org.example:app", version="1.0")
    # the BOM's version, interpolated from the BOM's own parent; the explicit 9.9 wins over it
    assert [(d.name, d.requirement) for d in info.dependencies] == [
        ("org.example:from-bom", "3.2.1"),
        ("org.example:pinned", "9.9"),
    ]
    assert json.loads(info.extra["maven_managed"])["org.example:from-bom"] == "3.2.1"
    assert info.extra["maven_boms"] == "org.example:missing-bom:1"  # named, not guessed
