"""
Real, noisy error texts of the JVM, .NET, Rust, Go, Apple, Homebrew, Elixir, Dart, R, Julia, Haskell
and Perl toolchains reach the curated entries written for them: the normaliser turns each text
(with its own paths, versions, timestamps and log noise) into candidate patterns, and one of them
is exactly the stored pattern's hash. A text pasted as a single line is its own pattern.

The .NET entries are written as language-free codes (`nuget NU1101`, `dotnet NETSDK1045`,
`csharp CS0246`, `msbuild MSB3644`); they are checked for that canonical spelling here.
"""

from __future__ import annotations

from collections import Counter

import pytest

from pkgintel.domain.knowledge.error_patterns import (
    Form,
    error_hash,
    normalise_error,
    normalise_line,
)
from pkgintel.knowledge.error_fixes import load_error_knowledge

# (id, raw text as printed, the entry's pattern as written in the data file, its form)
CASES = [
    (
        "maven-enforcer-java-version",
        "[INFO] --- maven-enforcer-plugin:3.1.0:enforce (enforce-versions) @ billing ---\n"
        "[ERROR] Rule 0: org.apache.maven.plugins.enforcer.RequireJavaVersion failed with message:\n"
        "Detected JDK Version: 11.0.21 is not in the allowed range [17,).\n[INFO] BUILD FAILURE",
        "[ERROR] Rule 0: org.apache.maven.plugins.enforcer.RequireJavaVersion failed with message:",
        Form.SPECIFIC,
    ),
    (
        "maven-lombok-new-jdk",
        "[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.maven.plugins:"
        "maven-compiler-plugin:3.11.0:compile (default-compile) on project billing-api: Fatal error "
        "compiling: java.lang.ExceptionInInitializerError: com.sun.tools.javac.code.TypeTag :: "
        "UNKNOWN -> [Help 1]\n[ERROR] \n[ERROR] To see the full stack trace of the errors, re-run "
        "Maven with the -e switch.",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.13.0:compile"
        " (default-compile) on project app: Fatal error compiling: java.lang.ExceptionInInitializerError:"
        " com.sun.tools.javac.code.TypeTag :: UNKNOWN -> [Help 1]",
        Form.GENERIC,
    ),
    (
        "maven-running-on-jre",
        "[INFO] Compiling 42 source files to /home/ci/work/target/classes\n"
        "[ERROR] COMPILATION ERROR : \n[ERROR] No compiler is provided in this environment. "
        "Perhaps you are running on a JRE rather than a JDK?\n[INFO] 1 error",
        "[ERROR] No compiler is provided in this environment. Perhaps you are running on a JRE "
        "rather than a JDK?",
        Form.SPECIFIC,
    ),
    (
        "gradle-unsupported-java",
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\nUnsupported Java. \n"
        "Your build is currently configured to use Java 21.0.2 and Gradle 8.1.1.\n",
        "Unsupported Java.",
        Form.SPECIFIC,
    ),
    (
        "cargo-lock-file-v4",
        "error: failed to parse lock file at: /builds/team/app/Cargo.lock\n\nCaused by:\n"
        "  lock file version `4` was found, but this version of Cargo does not understand this "
        "lock file, perhaps Cargo needs to be updated?",
        "error: failed to parse lock file at: /app/Cargo.lock",
        Form.SPECIFIC,
    ),
    (
        "cargo-msvc-linker",
        "   Compiling proc-macro2 v1.0.86\nerror: linker `link.exe` not found\n  |\n"
        "  = note: program not found\n\nnote: the msvc targets depend on the msvc linker but "
        "`link.exe` was not found",
        "error: linker `link.exe` not found",
        Form.SPECIFIC,
    ),
    (
        "rustup-no-default",
        "$ cargo build --release\nerror: rustup could not choose a version of cargo to run, "
        "because one wasn't specified explicitly, and no default is configured.\nhelp: run "
        "'rustup default stable' to download the latest stable release of Rust",
        "error: rustup could not choose a version of cargo to run, because one wasn't specified "
        "explicitly, and no default is configured.",
        Form.GENERIC,
    ),
    (
        "go-missing-requirement",
        "$ go build ./...\ncmd/server/main.go:11:2: no required module provides package "
        "github.com/gorilla/mux; to add it:\n\tgo get github.com/gorilla/mux",
        "main.go:4:2: no required module provides package github.com/gorilla/mux; to add it:",
        Form.GENERIC,
    ),
    (
        "go-toolchain-directive",
        "go: errors parsing go.mod:\n/home/runner/work/svc/svc/go.mod:5: unknown directive: "
        "toolchain",
        "/app/go.mod:5: unknown directive: toolchain",
        Form.GENERIC,
    ),
    (
        "swiftpm-tools-version",
        "Fetching https://github.com/apple/swift-argument-parser from cache\nerror: package 'cli' "
        "is using Swift tools version 5.10.0 but the installed version is 5.8.1",
        "error: package 'app' is using Swift tools version 5.9.0 but the installed version is 5.7.2",
        Form.GENERIC,
    ),
    (
        "homebrew-missing-formula",
        'Error: No available formula with the name "pyhton3".',
        'Error: No available formula with the name "pyhton".',
        Form.GENERIC,
    ),
    (
        "cabal-solver",
        "Resolving dependencies...\nError: cabal: Could not resolve dependencies:\n"
        "[__0] trying: app-0.1.0.0 (user goal)\n[__1] next goal: base (dependency of app)",
        "Error: cabal: Could not resolve dependencies:",
        Form.SPECIFIC,
    ),
    (
        "julia-unsatisfiable",
        "   Resolving package versions...\nERROR: Unsatisfiable requirements detected for package "
        "DataFrames [a93c6f00]:\n DataFrames [a93c6f00] log:\n ├─possible versions are: "
        "0.11.7-1.6.1 or uninstalled",
        "ERROR: Unsatisfiable requirements detected for package DataFrames [a93c6f00]:",
        Form.GENERIC,
    ),
    (
        "r-configure-failed",
        "Configuration failed to find the libxml-2.0 library. Try installing:\n"
        "ERROR: configuration failed for package ‘xml2’\n"
        "* removing ‘/usr/local/lib/R/site-library/xml2’",
        "ERROR: configuration failed for package ‘sf’",
        Form.GENERIC,
    ),
    (
        "r-not-available-pasted",
        "package ‘ggplot3’ is not available for this version of R",
        "package ‘ggplot3’ is not available for this version of R",
        Form.GENERIC,
    ),
    (
        "cpanm-configure-failed-pasted",
        "! Configure failed for XML-Parser-2.47. See /home/dev/.cpanm/work/1712345678.4242/"
        "build.log for details.",
        "! Configure failed for XML-Parser-2.46. See /root/.cpanm/work/1700000000.123/build.log "
        "for details.",
        Form.GENERIC,
    ),
    (
        "mix-rebar3-pasted",
        '** (Mix) Could not find "rebar3", which is needed to build dependency :ranch  ',
        '** (Mix) Could not find "rebar3", which is needed to build dependency :ranch',
        Form.GENERIC,
    ),
    (
        "cocoapods-compatible-versions-pasted",
        '[!] CocoaPods could not find compatible versions for pod "GoogleUtilities/Environment":',
        '[!] CocoaPods could not find compatible versions for pod "Firebase/CoreOnly":',
        Form.GENERIC,
    ),
]

# The toolchains this knowledge covers, with the least number of entries each holds.
TOOLCHAIN_FLOOR = {
    "dotnet": 70,
    "maven": 40,
    "gradle": 40,
    "swiftpm": 12,
    "cocoapods": 12,
    "homebrew": 15,
    "mix": 12,
    "pub": 12,
    "R": 15,
    "julia-pkg": 10,
    "cabal": 10,
    "stack": 8,
    "cpanm": 12,
    "sbt": 6,
}
CODE_PREFIXES = ("nuget NU", "dotnet NETSDK", "csharp CS", "msbuild MSB")


@pytest.mark.parametrize(("case", "raw", "written", "form"), CASES, ids=[c[0] for c in CASES])
def test_real_text_reaches_its_entry(case: str, raw: str, written: str, form: Form) -> None:
    stored = normalise_line(written, form)
    by_hash = {e.error_hash: e for e in load_error_knowledge()}
    assert error_hash(stored) in by_hash, f"{case}: entry {stored!r} is not in the knowledge base"
    candidates = [error_hash(p) for p, _, _ in normalise_error(raw).candidate_patterns()]
    assert error_hash(stored) in candidates, (case, normalise_error(raw).candidate_patterns())


def test_every_toolchain_has_its_entries() -> None:
    tools = Counter(e.tool for e in load_error_knowledge())
    short = {t: tools[t] for t, floor in TOOLCHAIN_FLOOR.items() if tools[t] < floor}
    assert not short, short


def test_dotnet_codes_use_the_canonical_spelling() -> None:
    dotnet = [e for e in load_error_knowledge() if e.tool == "dotnet" and e.form is Form.CODE]
    assert len(dotnet) >= 60
    for entry in dotnet:
        assert entry.pattern.startswith(CODE_PREFIXES), entry.pattern
        assert entry.pattern.split(" ")[1].isalnum(), entry.pattern
        assert any(s.startswith("https://learn.microsoft.com/") for s in entry.sources), (
            entry.pattern
        )


def test_entries_give_commands_and_a_real_source() -> None:
    for entry in load_error_knowledge():
        if entry.tool not in TOOLCHAIN_FLOOR:
            continue
        assert entry.fix and all(step.strip() for step in entry.fix), entry.pattern
        assert all(s.startswith("https://") and "example.com" not in s for s in entry.sources), (
            entry
        )
