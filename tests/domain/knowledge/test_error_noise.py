"""Real-world noise around a decisive line leaves its pattern unchanged: paths, versions, line
numbers, temp dirs, timestamps, ANSI colours, log prefixes, quoting; message cores; vetoes."""

from __future__ import annotations

import pytest

from pkgintel.domain.knowledge.error_guards import (
    names_differ,
    similar_but_different,
    tools_differ,
    tools_in,
)
from pkgintel.domain.knowledge.error_patterns import (
    Form,
    core_prefixes,
    message_core,
    normalise_error,
    normalise_line,
    pattern_core_keys,
)


@pytest.mark.parametrize(
    "line",
    [
        # POSIX and Windows paths, incl. folders with spaces.
        "Error: Cannot find module '/home/ci/work/app/node_modules/x/index.js'",
        "Error: Cannot find module 'C:\\Users\\me\\app\\node_modules\\x\\index.js'",
        "Error: Cannot find module 'C:\\Program Files\\nodejs\\node_modules\\x\\index.js'",
    ],
)
def test_paths_posix_and_windows(line: str) -> None:
    assert normalise_line(line) == "Error: Cannot find module '<path>'"


def test_windows_sdk_path_with_spaces_is_one_placeholder() -> None:
    got = normalise_line(
        "C:\\Program Files\\dotnet\\sdk\\8.0.300\\Sdks\\Microsoft.NET.Sdk\\targets\\"
        "Microsoft.NET.TargetFrameworkInference.targets(166,5): error NETSDK1045: The current "
        ".NET SDK does not support targeting .NET 9.0."
    )
    assert got.startswith("<path>(166,5): error NETSDK1045: The current .NET SDK")
    assert "Files" not in got


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("\x1b[31mnpm ERR!\x1b[39m code ERESOLVE", "npm error code ERESOLVE"),
        ("npm error code ERESOLVE", "npm error code ERESOLVE"),
        ("#12 0.258 npm ERR! code ERESOLVE", "npm error code ERESOLVE"),  # docker build step
        ("2024-05-01T10:00:00.123Z npm ERR! code ERESOLVE", "npm error code ERESOLVE"),
        ("[DEBUG]:   \t  npm ERR! code ERESOLVE", "npm error code ERESOLVE"),
        ("11>npm ERR! code ERESOLVE", "npm error code ERESOLVE"),  # MSBuild node prefix
        ("##[error]npm ERR! code ERESOLVE", "npm error code ERESOLVE"),
        ("remote: npm ERR! code ERESOLVE", "npm error code ERESOLVE"),
        ("  ×   npm ERR! code ERESOLVE", "npm error code ERESOLVE"),
        ("> npm ERR! code ERESOLVE", "npm error code ERESOLVE"),  # quoted in an issue
    ],
)
def test_log_prefixes_and_colours(raw: str, want: str) -> None:
    assert normalise_line(raw) == want


def test_java_caused_by_is_a_decisive_exception_line() -> None:
    got = normalise_error(
        "    at org.codehaus.plexus.classworlds.launcher.Launcher.main (Launcher.java:356)\n"
        "Caused by: org.codehaus.plexus.compiler.CompilerException: invalid target release: 14\n"
        "    at org.codehaus.plexus.compiler.javac.JavaxToolsCompiler.compileInProcess (J.java:1)\n"
    )
    assert (
        got.pattern == "org.codehaus.plexus.compiler.CompilerException: invalid target release: 14"
    )


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("Error: ENOSPC: watch '/tmp/x/a.json' at 2023-01-02 10:11:12", "<time>"),
        ("ERROR: Failed building wheel for psutil-5.9.8", "<version>"),
        ("warning: unused in /tmp/pip-install-ab12cd34/x/setup.py", "<path>"),
        ("error: hash mismatch sha512-" + "A" * 86 + "==", "<integrity>"),
        ('Error: Cannot find matching keyid: {"signatures":[{"sig":"MEQ"}]}', "<json>"),
        ("ERROR: Unsatisfiable requirements detected for package CBOR [7f3e1038]:", "[<id>]"),
        ("ERROR: Unsatisfiable requirements detected for package FactCheck [01605889]:", "[<id>]"),
    ],
)
def test_volatile_parts_become_placeholders(raw: str, want: str) -> None:
    assert want in normalise_line(raw)


def test_line_and_column_numbers() -> None:
    assert normalise_line("src/main.rs:12:5: error: x") == "<path>:<line>: error: x"
    assert normalise_line('  File "/a/b.py", line 30, in <module>') == (
        'File "<path>", line <n>, in <module>'
    )


def test_quoting_specific_keeps_names_generic_drops_them() -> None:
    assert normalise_line("No module named 'cv2'") == "No module named 'cv2'"
    assert normalise_line("No module named 'cv2'", Form.GENERIC) == "No module named '<name>'"
    assert normalise_line("No module named ‘cv2’", Form.GENERIC) == "No module named ‘<name>’"


def test_resolver_explanations_lose_their_unquoted_package_names_in_generic_form() -> None:
    a = "So, because app depends on flutter_test any from sdk, version solving failed."
    b = "So, because other_app depends on flutter_test any from sdk, version solving failed."
    assert normalise_line(a, Form.GENERIC) == normalise_line(b, Form.GENERIC)
    # Words that are no names stay.
    kept = normalise_line(
        "ERROR: Cannot install a and b because these package versions", Form.GENERIC
    )
    assert "because these package versions" in kept


@pytest.mark.parametrize(
    "line",
    [
        "<path>:<line>: fatal error: Python.h: No such file or directory",
        "fatal error: Python.h: No such file or directory",
        "Error: Python.h: No such file or directory.",
    ],
)
def test_message_core_leaves_location_tool_and_level_aside(line: str) -> None:
    assert message_core(line) == "Python.h: No such file or directory"


def test_message_core_of_exceptions_and_short_lines() -> None:
    assert (
        message_core("java.lang.IllegalArgumentException: Unsupported class file major version 61")
        == "Unsupported class file major version 61"
    )
    assert message_core("Internal Error: Cannot find matching keyid: <json>") == (
        "Cannot find matching keyid: <json>"
    )
    assert message_core("error: x") == ""  # too short to say anything
    assert message_core(message_core("Error: pg_config executable not found.")) == (
        "pg_config executable not found"
    )
    assert pattern_core_keys("No module named 'cv2'") == (
        "No module named 'cv2'",
        "No module named '<name>'",
    )


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ('[!] CocoaPods could not find compatible versions for pod "X":', "solver"),
        ("! Configure failed for Foo-1.0. See /root/.cpanm/build.log for details.", "cpanm"),
        ("** (Mix) Hex dependency resolution failed, relax the version requirements", "solver"),
        (
            "Warning in install.packages :\n  installation of package ‘units’ had non-zero exit status",
            "r",
        ),
        ("Error: No such keg: /usr/local/Cellar/vivaldi", "homebrew"),
        ('1.263 Internal Error: Cannot find matching keyid: {"a":1}', "corepack"),
        (
            "Fehler\tNETSDK1045\tDas aktuelle .NET SDK unterstützt .NET 9.0 nicht als Ziel.",
            "dotnet",
        ),
        ("gyp: binding.gyp not found", "node-gyp"),
        ("cabal: Could not resolve dependencies:", "solver"),
    ],
)
def test_decisive_lines_of_the_thin_toolchains(text: str, family: str) -> None:
    got = normalise_error(text)
    assert got.lines, text
    assert got.lines[0].family == family


def test_vetoes() -> None:
    assert names_differ("No module named 'setuptools_rust'", "No module named 'pkg_resources'")
    assert not names_differ("No module named 'yaml'", "No module named '<name>'")
    assert not names_differ("No module named 'yaml'", "No module named 'yaml'")
    cocoapods = '[!] CocoaPods could not find compatible versions for pod "VolumeBar":'
    bundler = 'Bundler could not find compatible versions for gem "<name>":'
    assert tools_differ(tools_in(cocoapods), bundler)
    assert not tools_differ(tools_in("Bundler could not find gem foo"), bundler)
    assert not tools_differ(frozenset(), bundler)  # the input names no tool: no veto
    assert similar_but_different(cocoapods, bundler, tools_in(cocoapods))


def test_leading_clauses_of_a_core() -> None:
    core = "Hex dependency resolution failed, relax the version requirements (by using mix)"
    assert core_prefixes(core) == [
        "Hex dependency resolution failed, relax the version requirements",
        "Hex dependency resolution failed",
    ]
    assert core_prefixes("short, x") == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (  # Go module paths
            "x.go:15:2: missing go.sum entry for module providing package golang.org/x/text/bidi "
            "(imported by golang.org/x/net/idna); to add:",
            "y.go:3:8: missing go.sum entry for module providing package github.com/a/b/v3/api "
            "(imported by github.com/c/d/internal/e); to add:",
        ),
        (  # pub: the dependents before `depends on`, the SDK package after it
            "Because every version of flutter_test from sdk depends on path 1.6.4 and viewer "
            "depends on path ^1.7.0, flutter_test from sdk is forbidden.",
            "Because every version of flutter_test from sdk depends on meta 1.3.0 and app "
            "depends on meta ^1.4.0, flutter_test from sdk is forbidden.",
        ),
        (  # SwiftPM ranges `a..<b`
            "Dependencies could not be resolved because no versions of 'swift-syntax' match the "
            "requirement 509.0.0..<510.0.0 and root depends on 'swift-syntax' 509.0.0..<510.0.0.",
            "Dependencies could not be resolved because no versions of 'swift-algorithms' match "
            "the requirement 1.0.0..<2.0.0 and root depends on 'swift-algorithms' 1.0.0..<2.0.0.",
        ),
    ],
)
def test_generic_form_is_shared_by_two_real_variants(a: str, b: str) -> None:
    assert normalise_line(a, Form.GENERIC) == normalise_line(b, Form.GENERIC)


def test_paths_are_not_mistaken_for_base64() -> None:
    got = normalise_line(
        "missing go.sum entry (imported by github.com/diamondburned/gtkcord4/internal/gtkcord)",
        Form.GENERIC,
    )
    assert "<b64>" not in got


def test_resolver_explanations_are_decisive() -> None:
    got = normalise_error(
        "Because every version of flutter_test from sdk depends on path 1.6.4 and viewer depends "
        "on path ^1.7.0, flutter_test from sdk is forbidden.\n"
        "So, because viewer depends on flutter_test any from sdk, version solving failed.\n"
    )
    assert [line.family for line in got.lines] == ["solver", "solver"]


def test_a_compiler_alone_names_no_tool() -> None:
    gcc_log = tools_in("error: command 'x86_64-linux-gnu-gcc' failed with exit status 1")
    assert gcc_log == frozenset({"compiler"})
    assert not tools_differ(gcc_log, "pip")  # native builds run under pip
    assert tools_differ(tools_in("$ cpanm Test::TCP"), "error: command 'gcc' failed")
