"""The normaliser on real error texts of each toolchain: decisive line, placeholders, stable hash."""

from __future__ import annotations

import hashlib

import pytest

from pkgintel.domain.knowledge.error_patterns import (
    Form,
    error_hash,
    is_error_hash,
    normalise_error,
    normalise_line,
    search_terms,
)

# (toolchain, raw text as printed, expected primary pattern, expected tool)
CASES = [
    (
        "pip",
        "Traceback (most recent call last):\n"
        '  File "/home/u/proj/setup.py", line 3, in <module>\n'
        "    from distutils.core import setup\n"
        "ModuleNotFoundError: No module named 'distutils'",
        "ModuleNotFoundError: No module named 'distutils'",
        "python",
    ),
    (
        "pip",
        "error: externally-managed-environment\n\n× This environment is externally managed\n"
        "╰─> To install Python packages system-wide, try apt install\n    python3-xyz",
        "error: externally-managed-environment",
        "pip",
    ),
    (
        "pip",
        "ERROR: Could not find a version that satisfies the requirement torch==1.8.0 "
        "(from versions: 2.2.0, 2.2.1)\nERROR: No matching distribution found for torch==1.8.0",
        "ERROR: Could not find a version that satisfies the requirement torch==<version> "
        "(from versions: <version>, <version>)",
        "pip",
    ),
    (
        "npm",
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR!\n"
        "npm ERR! While resolving: my-app@0.1.0\nnpm ERR! Found: react@18.2.0\n"
        "npm ERR! Could not resolve dependency:\n"
        'npm ERR! peer react@"^17.0.0" from react-dom@17.0.2\n'
        "npm ERR! A complete log of this run can be found in:\n"
        "npm ERR!     /home/u/.npm/_logs/2023-01-01T10_00_00_000Z-debug-0.log",
        "npm error code ERESOLVE",
        "npm",
    ),
    (
        "npm (v10 prefix)",
        "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/nope - Not found",
        "npm error code E404",
        "npm",
    ),
    (
        "pnpm",
        ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because '
        "pnpm-lock.yaml is not up to date with package.json",
        'ERR_PNPM_OUTDATED_LOCKFILE Cannot install with "frozen-lockfile" because '
        "pnpm-lock.yaml is not up to date with package.json",
        "pnpm",
    ),
    (
        "yarn",
        "➤ YN0000: ┌ Resolution step\n"
        "➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.",
        "YN0028: The lockfile would have been modified by this install, which is explicitly forbidden.",
        "yarn",
    ),
    (
        "rustc",
        "error[E0433]: failed to resolve: use of undeclared crate or module `tokio`\n"
        " --> src/main.rs:1:5\n  |\n1 | use tokio::runtime;\n",
        "error[E0433]: failed to resolve: use of undeclared crate or module `tokio`",
        "rustc",
    ),
    (
        "cargo",
        "error: package `clap_lex v0.7.0` cannot be built because it requires rustc 1.74 or "
        "newer, while the currently active rustc version is 1.70.0",
        "error: package `clap_lex <version>` cannot be built because it requires rustc <version> "
        "or newer, while the currently active rustc version is <version>",
        "cargo",
    ),
    (
        "go",
        "go: downloading github.com/foo/bar v1.2.3\n"
        "go: github.com/foo/bar@v1.2.3: missing go.sum entry for go.mod file; to add it:\n"
        "\tgo mod download github.com/foo/bar",
        "go: github.com/foo/bar@<version>: missing go.sum entry for go.mod file; to add it:",
        "go",
    ),
    (
        "bundler",
        "Could not find gem 'rails (~> 7.0.4)' in locally installed gems.",
        "Could not find gem 'rails (~> <version>)' in locally installed gems.",
        "bundler",
    ),
    (
        "composer",
        "Your requirements could not be resolved to an installable set of packages.\n\n"
        "  Problem 1\n    - Root composer.json requires php ^8.1 but your php version (7.4.33) "
        "does not satisfy that requirement.",
        "Your requirements could not be resolved to an installable set of packages.",
        "composer",
    ),
    (
        "maven",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.8.1:compile "
        "(default-compile) on project demo: Fatal error compiling: invalid target release: 17 -> [Help 1]",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:<version>:compile "
        "(default-compile) on project <name>: Fatal error compiling: invalid target release: 17 -> [Help 1]",
        "maven",
    ),
    (
        "gradle",
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
        "Execution failed for task ':app:compileDebugKotlin'.\n> Unsupported class file major version 65",
        "Execution failed for task ':app:compileDebugKotlin'.",
        "gradle",
    ),
    (
        "conda",
        "Collecting package metadata (current_repodata.json): done\nSolving environment: failed\n\n"
        "PackagesNotFoundError: The following packages are not available from current channels:\n\n"
        "  - pytorch-cuda=11.8",
        "PackagesNotFoundError: The following packages are not available from current channels:",
        "conda",
    ),
    (
        "ruby (Module::Class exception)",
        "rake aborted!\nPsych::DisallowedClass: Tried to load unspecified class: Symbol\n"
        "/home/y/app/config.rb:17:in `config'",
        "Psych::DisallowedClass: Tried to load unspecified class: Symbol",
        "ruby",
    ),
    (
        "composer (PHP error-log timestamp)",
        "[10-Jul-2023 01:06:43 UTC] PHP Fatal error:  Composer detected issues in your platform: "
        'Your Composer dependencies require a PHP version ">= 8.1.0". You are running 8.0.29. in '
        "/home/p/vendor/composer/platform_check.php on line 24",
        "PHP Fatal error: Composer detected issues in your platform: Your Composer dependencies "
        'require a PHP version ">= <version>". You are running <version>. in <path> on line <n>',
        "composer",
    ),
    (
        "bundler (locked Bundler missing)",
        "/usr/share/rvm/rubies/ruby-2.6.2/lib/ruby/2.6.0/rubygems.rb:283:in `find_spec_for_exe': "
        "Could not find 'bundler' (2.0.1) required by your /home/g/Gemfile.lock. "
        "(Gem::GemNotFoundException)",
        "<path>:<line>:in `find_spec_for_exe': Could not find 'bundler' (<version>) required by "
        "your <path> (Gem::GemNotFoundException)",
        "bundler",
    ),
    (
        "go (go.mod parse error line)",
        "go: errors parsing go.mod:\n/pgp2ssh/go.mod:3: invalid go version '1.21.8': must match "
        "format 1.23",
        "go: errors parsing go.mod:",
        "go",
    ),
]


@pytest.mark.parametrize(("toolchain", "raw", "pattern", "tool"), CASES, ids=[c[0] for c in CASES])
def test_primary_pattern_and_tool(toolchain: str, raw: str, pattern: str, tool: str) -> None:
    got = normalise_error(raw)
    assert got.pattern == pattern
    assert got.tool == tool
    assert got.error_hash == hashlib.sha256(pattern.encode()).hexdigest()


@pytest.mark.parametrize(("toolchain", "raw", "pattern", "tool"), CASES, ids=[c[0] for c in CASES])
def test_patterns_are_fixed_points(toolchain: str, raw: str, pattern: str, tool: str) -> None:
    for line in normalise_error(raw).lines:
        assert normalise_line(line.specific) == line.specific
        assert normalise_line(line.generic, Form.GENERIC) == line.generic


def test_volatile_parts_do_not_change_the_hash() -> None:
    a = normalise_error(
        "File \"/home/alice/app/x.py\", line 12\nImportError: cannot import name 'url_quote' from "
        "'werkzeug.urls' (/home/alice/venv/lib/python3.11/site-packages/werkzeug/urls.py)"
    )
    b = normalise_error(
        "File \"C:\\Users\\bob\\app\\x.py\", line 99\nImportError: cannot import name 'url_quote' from "
        "'werkzeug.urls' (C:\\venv\\Lib\\site-packages\\werkzeug\\urls.py)"
    )
    assert a.error_hash == b.error_hash
    assert a.pattern == "ImportError: cannot import name 'url_quote' from 'werkzeug.urls' (<path>)"


def test_generic_form_replaces_quoted_identifiers_and_npm_specs() -> None:
    got = normalise_error("ModuleNotFoundError: No module named 'requests'")
    assert got.lines[0].generic == "ModuleNotFoundError: No module named '<name>'"
    npm = normalise_line('npm ERR! peer react@"^17.0.0" from react-dom@17.0.2', Form.GENERIC)
    assert npm == "npm error peer <pkg>@<version> from <pkg>@<version>"


def test_error_codes_are_collected_from_any_line() -> None:
    got = normalise_error(
        "npm ERR! code ERESOLVE\nError [ERR_REQUIRE_ESM]: require() of ES Module x not supported.\n"
        "error[E0308]: mismatched types\n"
        "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/DependencyResolutionException"
    )
    assert [c for c, _ in got.codes] == [
        "npm code ERESOLVE",
        "node ERR_REQUIRE_ESM",
        "rustc E0308",
        "maven DependencyResolutionException",
    ]


def test_python_traceback_takes_the_last_exception() -> None:
    got = normalise_error(
        "Traceback (most recent call last):\nKeyError: 'a'\n\nDuring handling of the above "
        "exception, another exception occurred:\n\nTraceback (most recent call last):\n"
        "RuntimeError: boom"
    )
    assert got.pattern == "RuntimeError: boom"


def test_noise_only_input_has_no_pattern() -> None:
    got = normalise_error("npm WARN deprecated x@1.0.0\nadded 12 packages in 3s\n")
    assert got.pattern == ""
    assert got.lines == ()


def test_single_unknown_line_is_its_own_pattern() -> None:
    got = normalise_error("something odd happened at 0x7ffde4a0 in 12ms")
    assert got.pattern == "something odd happened at <hex> in <duration>"


def test_hash_helpers() -> None:
    h = error_hash("x")
    assert is_error_hash(h)
    assert not is_error_hash(h.upper())
    assert not is_error_hash("abc")


def test_search_terms_skip_placeholders_and_stop_words() -> None:
    terms = search_terms(normalise_error("ModuleNotFoundError: No module named 'distutils'"))
    assert terms == ["modulenotfounderror", "module", "named", "distutils"]


def test_jvm_module_ids_and_go_mod_lines_are_volatile() -> None:
    a = normalise_error(
        "> Unable to make field private final java.lang.String java.io.File.path accessible: "
        'module java.base does not "opens java.io" to unnamed module @7da5a539'
    )
    b = normalise_error(
        "> Unable to make field private final java.lang.String java.io.File.path accessible: "
        'module java.base does not "opens java.io" to unnamed module @4b4f3f8f'
    )
    assert a.error_hash == b.error_hash
    assert a.pattern.endswith("to unnamed module @<hex>")
    got = normalise_error("go: errors parsing go.mod:\n/src/go.mod:3: invalid go version '1.22.0'")
    assert "<path>:<line>: invalid go version '<version>'" in [x.specific for x in got.lines]
