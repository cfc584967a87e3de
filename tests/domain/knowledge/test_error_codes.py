"""Tool error codes: canonical on both sides, read only where tools print them, language-free."""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.error_codes import canonical_code, codes_in_line
from pkgintel.domain.knowledge.error_patterns import Form, normalise_error, normalise_line
from pkgintel.knowledge.error_fixes import load_error_knowledge


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("NU1101", "nuget NU1101"),
        ("nuget NU1101", "nuget NU1101"),
        ("dotnet   NU1101", "nuget NU1101"),
        ("NETSDK1045", "dotnet NETSDK1045"),
        ("CS0246", "csharp CS0246"),
        ("MSB3073", "msbuild MSB3073"),
        ("C1083", "msvc C1083"),
        ("LNK2019", "msvc LNK2019"),
        ("TS2307", "tsc TS2307"),
        ("E0433", "rustc E0433"),
        ("npm ERR! code ERESOLVE", "npm code ERESOLVE"),
        ("ERR_REQUIRE_ESM", "node ERR_REQUIRE_ESM"),
    ],
)
def test_a_code_pattern_has_one_spelling_however_it_was_written(
    written: str, canonical: str
) -> None:
    assert canonical_code(written) == canonical
    assert normalise_line(written, Form.CODE) == canonical


def test_every_shipped_code_pattern_is_already_canonical() -> None:
    codes = [e.pattern for e in load_error_knowledge() if e.form is Form.CODE]
    assert codes
    assert [c for c in codes if canonical_code(c) != c] == []


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        (
            "/src/App.csproj : error NU1101: Unable to find package Foo. No packages exist",
            ["nuget NU1101"],
        ),
        # A Visual Studio error list pasted in German and in French: the code is the same.
        (
            "Fehler\tNETSDK1045\tDas aktuelle .NET SDK unterstützt .NET Core 3.1 nicht als Ziel.",
            ["dotnet NETSDK1045"],
        ),
        (
            "Erreur\tCS0246\tLe nom de type ou d'espace de noms 'X' est introuvable",
            ["csharp CS0246"],
        ),
        (
            "C:\\p\\a.cs(9,7,9,19): error CS0246: Le nom de type ou d'espace de noms 'N' est "
            "introuvable",
            ["csharp CS0246"],
        ),
        ("x.c(3): fatal error C1083: Cannot open include file: 'io.h'", ["msvc C1083"]),
        ("LINK : fatal error LNK1104: cannot open file 'python311.lib'", ["msvc LNK1104"]),
        ("src/a.ts(1,20): error TS2307: Cannot find module 'x'", ["tsc TS2307"]),
    ],
)
def test_codes_are_read_where_the_tool_prints_them(line: str, codes: list[str]) -> None:
    assert codes_in_line(line) == codes


@pytest.mark.parametrize(
    "line",
    [
        "npm http fetch GET 200 https://registry.npmjs.org/pkg-1234 12ms",
        "Downloading CS1234-tools.tar.gz (NU1101 bytes)",  # a word, not where a tool prints a code
        "Compiling serde v1.0.2024",
    ],
)
def test_no_code_is_read_from_an_arbitrary_word(line: str) -> None:
    assert codes_in_line(line) == []


def test_a_localised_dotnet_log_carries_its_code_in_code_form() -> None:
    got = normalise_error(
        "  Wiederherzustellende Projekte werden ermittelt...\n"
        'C:\\src\\App\\App.csproj : error NU1101: Das Paket "Foo.Bar" wurde nicht gefunden.\n'
    )
    assert ("nuget NU1101", 1) in got.codes


def test_a_code_wrapped_by_the_console_is_joined() -> None:
    got = normalise_error(
        "C:\\src\\App\\App.csproj : error NU\n"
        "1101: Unable to find package Microsoft.AspNetCore.All. No pa\n"
        "ckages exist with this id in source(s): Microsoft Visual Studio Offline Packages\n"
    )
    assert [c for c, _ in got.codes] == ["nuget NU1101"]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "Failed to execute goal on project rest-api: Could not resolve dependencies for "
            "project com.mihome:rest-api:jar:0.1-SNAPSHOT: Could not find artifact x",
            "maven DependencyResolutionException",
        ),
        ("npm ERR! Could not resolve dependency:", "npm code ERESOLVE"),
        ("npm error ERESOLVE unable to resolve dependency tree", "npm code ERESOLVE"),
    ],
)
def test_a_line_naming_a_codes_subject_implies_the_code(line: str, code: str) -> None:
    assert codes_in_line(line) == [code]
