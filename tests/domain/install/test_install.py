"""Install commands (`domain/install/commands.py`): tools per ecosystem, quoting, and exact pins when asked."""

from __future__ import annotations

import pytest

from pkgintel.domain.install.commands import INSTALLERS, install_commands
from pkgintel.domain.packages import Ecosystem


@pytest.mark.parametrize(
    ("ecosystem", "name", "version", "exact", "expected"),
    [
        (
            Ecosystem.CARGO,
            "regex",
            "1.10.2",
            False,
            {"cargo": "cargo add regex@1.10.2", "Cargo.toml": 'regex = "1.10.2"'},
        ),
        (
            Ecosystem.CARGO,
            "regex",
            "1.10.2",
            True,
            {"cargo": "cargo add regex@=1.10.2", "Cargo.toml": 'regex = "=1.10.2"'},
        ),
        (
            Ecosystem.GO,
            "github.com/aws/smithy-go",
            "v1.25.1",
            True,
            {
                "go": "go get github.com/aws/smithy-go@v1.25.1",
                "go.mod": "require github.com/aws/smithy-go v1.25.1",
            },
        ),
        (
            Ecosystem.NUGET,
            "Newtonsoft.Json",
            "13.0.3",
            True,
            {
                "dotnet": "dotnet add package Newtonsoft.Json --version 13.0.3",
                "PackageReference": '<PackageReference Include="Newtonsoft.Json" Version="13.0.3" />',
                "paket": "paket add Newtonsoft.Json --version 13.0.3",
            },
        ),
    ],
)
def test_commands(
    ecosystem: Ecosystem, name: str, version: str, exact: bool, expected: dict[str, str]
) -> None:
    assert install_commands(ecosystem, name, version, exact=exact) == expected


def test_maven_xml_and_both_gradle_dsls() -> None:
    loose = install_commands(Ecosystem.MAVEN, "com.google.guava:guava", "33.0.0-jre")
    assert loose["maven"] == (
        "<dependency>\n  <groupId>com.google.guava</groupId>\n  <artifactId>guava</artifactId>\n"
        "  <version>33.0.0-jre</version>\n</dependency>"
    )
    assert loose["gradle"] == "implementation 'com.google.guava:guava:33.0.0-jre'"
    assert loose["gradle_kotlin"] == 'implementation("com.google.guava:guava:33.0.0-jre")'
    # Gradle takes the highest version in the graph unless the declaration is strict.
    exact = install_commands(Ecosystem.MAVEN, "com.google.guava:guava", "33.0.0-jre", exact=True)
    assert exact["gradle_kotlin"] == 'implementation("com.google.guava:guava:33.0.0-jre!!")'


def test_shell_metacharacters_are_quoted() -> None:
    cmd = install_commands(Ecosystem.NUGET, "x;rm", "1.0.0")["dotnet"]
    assert cmd == "dotnet add package 'x;rm' --version 1.0.0"
    xml = install_commands(Ecosystem.NUGET, 'a"b', "1")["PackageReference"]
    assert "Include='a\"b'" in xml


def test_every_ecosystem_has_install_commands_naming_the_package() -> None:
    assert set(INSTALLERS) == set(Ecosystem)
    names = {Ecosystem.SWIFT: "apple/swift-nio", Ecosystem.JSR: "@std/path", Ecosystem.MAVEN: "g:a"}
    for eco in Ecosystem:
        name = names.get(eco, "Tinypkg")
        commands = install_commands(eco, name, "1.2.3")
        assert commands, eco
        short = name.split("/")[-1].split(":")[-1].lower()
        assert any(short in c.lower() for c in commands.values()), (eco, commands)
