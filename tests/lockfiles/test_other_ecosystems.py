"""Cargo.lock, go.sum, composer.lock, Gemfile.lock, pubspec.lock, mix.lock, packages.lock.json
(NuGet) and gradle.lockfile on hand-written inputs."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.lockfiles.base import LockfileParser
from pkgintel.lockfiles.cargo_lock import CargoLockParser
from pkgintel.lockfiles.composer_lock import ComposerLockParser
from pkgintel.lockfiles.gemfile_lock import GemfileLockParser
from pkgintel.lockfiles.go_sum import GoSumParser
from pkgintel.lockfiles.gradle_lockfile import GradleLockfileParser
from pkgintel.lockfiles.mix_lock import MixLockParser
from pkgintel.lockfiles.nuget_lock import NugetLockParser
from pkgintel.lockfiles.pubspec_lock import PubspecLockParser

from .helpers import check_invariants, names, one, parse, read


def _error(parser: LockfileParser, text: str) -> LockfileError:
    with pytest.raises(LockfileError) as caught:
        parser.parse(text)
    return caught.value


# -- Cargo.lock -------------------------------------------------------------------------------------


def test_cargo_local_git_and_alternate_registry() -> None:
    result = parse(CargoLockParser(), "cargo", "workspace.Cargo.lock")
    check_invariants(result)
    assert len(result.packages) == 8
    local = [p for p in result.packages if p.source == "path"]
    assert names(local) == {"app", "utils"}
    assert all(not p.resolved and p.direct is None for p in local)
    assert names([p for p in result.packages if p.direct]) == {
        "my-fork",
        "serde",
        "internal-crate",
        "syn",
    }
    assert one(result, "serde_derive").direct is False
    assert all(p.dev is None for p in result.packages)  # Cargo.lock does not separate dev-deps
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source) == (False, "git")
    internal = one(result, "internal-crate")
    assert internal.resolved
    assert internal.purl == (
        "pkg:cargo/internal-crate@2.0.0?repository_url=https://crates.example.com/index"
    )


def test_cargo_versioned_dependency_references() -> None:
    result = parse(CargoLockParser(), "cargo", "workspace.Cargo.lock")
    assert ("utils@0.1.0", "pkg:cargo/syn@1.0.109") in result.edges
    assert ("utils@0.1.0", "pkg:cargo/syn@2.0.48") in result.edges
    assert ("pkg:cargo/serde@1.0.195", "pkg:cargo/serde_derive@1.0.195") in result.edges


def test_cargo_errors() -> None:
    assert _error(CargoLockParser(), '[[package]]\nname = "a"\n').line == 1
    assert _error(CargoLockParser(), 'version = 3\n\n[[package]]\nname = "a\n').line == 4


# -- go.sum -----------------------------------------------------------------------------------------


def test_go_sum_one_package_per_module_version() -> None:
    result = parse(GoSumParser(), "go-sum", "small.go.sum")
    check_invariants(result)
    assert [(p.name, p.version) for p in result.packages] == [
        ("github.com/google/go-cmp", "v0.6.0"),
        ("golang.org/x/mod", "v0.14.0"),
        ("golang.org/x/sys", "v0.1.0"),
        ("gopkg.in/yaml.v3", "v3.0.1"),
        ("github.com/Azure/go-autorest", "v14.2.0+incompatible"),
    ]
    assert all(p.direct is None and p.dev is None for p in result.packages)
    assert result.edges == ()
    assert result.warnings and result.warnings[0].startswith("1 module versions")
    assert one(result, "gopkg.in/yaml.v3").purl == "pkg:golang/gopkg.in/yaml.v3@v3.0.1"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a v1.0.0 h1:x=\nb v1.0.0\n", 2),
        ("a v1.0.0 h1:x=\n\nb 1.0.0 h1:y=\n", 3),
        ("a v1.0.0 h1:x= extra\n", 1),
    ],
)
def test_go_sum_malformed_line(text: str, line: int) -> None:
    assert _error(GoSumParser(), text).line == line


# -- composer.lock ----------------------------------------------------------------------------------


def test_composer_sections_branches_and_paths() -> None:
    result = parse(ComposerLockParser(), "composer", "branches.composer.lock")
    check_invariants(result)
    assert len(result.packages) == 4
    assert one(result, "phpunit/phpunit").dev is True
    assert one(result, "psr/log").dev is False
    assert all(p.direct is None for p in result.packages)
    branch = one(result, "acme/internal")
    assert (branch.resolved, branch.source, branch.requirement) == (False, "git", "dev-main")
    assert one(result, "acme/local-module").source == "path"
    # platform requirements (php, ext-dom) are not dependencies
    assert one(result, "phpunit/phpunit").dependencies == ("psr/log",)


def test_composer_errors() -> None:
    text = '{\n "content-hash": "x",\n "packages": [\n  {"name": "a/b"}\n ]\n}\n'
    assert _error(ComposerLockParser(), text).line == 4
    assert _error(ComposerLockParser(), '{"packages": {}}').line == 1


# -- Gemfile.lock -----------------------------------------------------------------------------------


def test_gemfile_sources_platforms_and_dependencies() -> None:
    result = parse(GemfileLockParser(), "gemfile", "sources.Gemfile.lock")
    check_invariants(result)
    # 8 spec lines, nokogiri's two platform variants are one package, and wdm has no spec
    assert len(result.packages) == 8
    assert one(result, "nokogiri").version == "1.16.0"
    assert names([p for p in result.packages if p.direct]) == {
        "billing",
        "my_fork",
        "nokogiri",
        "rails",
        "rspec",
        "wdm",
    }
    assert one(result, "rack").direct is False
    assert (one(result, "my_fork").source, one(result, "billing").source) == ("git", "path")
    missing = one(result, "wdm")
    assert (missing.resolved, missing.requirement) == (False, ">= 0.1.0")
    assert ("pkg:gem/rails@7.1.2", "pkg:gem/rack@3.0.8") in result.edges
    assert all(p.dev is None for p in result.packages)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("GEM\n  remote: https://rubygems.org/\n  specs:\n    rack 3.0.8\n", 4),
        ("GEM\n  remote: https://rubygems.org/\n  specs:\n    rack (3.0.8\n", 4),
        ("GEM\n  specs:\n     rack (3.0.8)\n", 3),
        ("  rack (3.0.8)\n", 1),
        ("GEM\n  specs:\n    rack (3.0.8)\n\nDEPENDENCIES\n    rack\n", 6),
        ("GEM\n  specs:\n    rack (3.0.8)\nweird header\n", 4),
    ],
)
def test_gemfile_malformed_line(text: str, line: int) -> None:
    assert _error(GemfileLockParser(), text).line == line


def test_gemfile_spec_without_version_is_kept_unresolved() -> None:
    # Bundler's own parser reads `    name` with no `(version)`; the gem is kept, never dropped.
    text = (
        "GEM\n  remote: https://rubygems.org/\n  specs:\n    odd\n      rack\n"
        "    rack (3.0.8)\n\nDEPENDENCIES\n  odd\n"
    )
    result = GemfileLockParser().parse(text)
    odd = one(result, "odd")
    assert (odd.version, odd.resolved, odd.direct, odd.dependencies) == (
        None,
        False,
        True,
        ("rack",),
    )
    assert odd.unresolved_reason == "the GEM spec line names no version"
    assert one(result, "rack").resolved
    assert result.warnings == ("line 4: spec 'odd' names no version; kept unresolved",)


# -- pubspec.lock -----------------------------------------------------------------------------------


def test_pubspec_dependency_kinds() -> None:
    result = parse(PubspecLockParser(), "pubspec", "app.pubspec.lock")
    check_invariants(result)
    assert len(result.packages) == 7
    flags = {p.name: (p.direct, p.dev) for p in result.packages}
    assert flags == {
        "async": (False, None),
        "flutter": (True, False),
        "http": (True, False),
        "lints": (True, True),
        "my_fork": (True, False),
        "shared_utils": (True, None),
        "private_pkg": (False, None),
    }
    assert {p.name: p.source for p in result.unresolved} == {
        "flutter": "sdk",
        "my_fork": "git",
        "shared_utils": "path",
    }
    assert one(result, "private_pkg").purl == (
        "pkg:pub/private_pkg@4.0.0?repository_url=https://pub.example.com"
    )


def test_pubspec_errors() -> None:
    text = "packages:\n  a:\n    dependency: transitive\n    source: hosted\n"
    assert _error(PubspecLockParser(), text).line == 2
    assert _error(PubspecLockParser(), "packages:\n  a: [\n").line is not None


# -- mix.lock ---------------------------------------------------------------------------------------


def test_mix_lock_entries() -> None:
    result = parse(MixLockParser(), "mix", "app.mix.lock")
    check_invariants(result)
    assert len(result.packages) == 6
    assert one(result, "telemetry").version == "1.2.1"  # hex name differs from the app key
    fork = one(result, "my_fork")
    assert (fork.resolved, fork.source) == (False, "git")
    private = one(result, "private_lib")
    assert (private.resolved, private.purl) == (True, None)  # private Hex organisation
    assert set(result.edges) == {
        ("pkg:hex/cowboy@2.10.0", "pkg:hex/cowlib@2.12.1"),
        ("pkg:hex/cowboy@2.10.0", "pkg:hex/ranch@1.8.0"),
    }
    assert all(p.direct is None and p.dev is None for p in result.packages)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('%{\n  "a": {:hex, :a, "1.0.0"},\n  "b": {:hex, :b, "1.0.0"\n', 4),
        ('%{\n  "a": {:hex, :a, "1.0.0},\n}\n', 2),
        ('%{\n  "a": {:hex, :a, System.cmd("rm")},\n}\n', 2),
        ('%{\n  "a": {:hex, :a, "1.0.0"}\n  "b": 1\n}\n', 3),
        ('[\n  "a"\n]\n', 1),
        ('%{\n  "a": "not a tuple",\n}\n', 2),
    ],
)
def test_mix_lock_errors_name_the_line(text: str, line: int) -> None:
    error = _error(MixLockParser(), text)
    assert (error.kind, error.line) == ("mix.lock", line)


def test_mix_lock_is_never_evaluated() -> None:
    # Anything outside the literal subset (calls, operators, sigils) is refused, not run.
    with pytest.raises(LockfileError):
        MixLockParser().parse('%{"a": {:hex, :a, "1.0.0" <> File.read!("/etc/passwd")}}')


# -- packages.lock.json -----------------------------------------------------------------------------


def test_nuget_lock_frameworks_merge() -> None:
    result = parse(NugetLockParser(), "nuget", "packages.lock.json")
    check_invariants(result)
    # Newtonsoft.Json appears under two targets (case differs): one package
    assert len(result.packages) == 6
    assert names([p for p in result.packages if p.direct]) == {"Newtonsoft.Json"}
    assert one(result, "Serilog").direct is False  # CentralTransitive
    project = one(result, "Acme.Core")
    assert (project.resolved, project.source) == (False, "path")
    assert (
        "pkg:nuget/System.Runtime@4.3.0",
        "pkg:nuget/Microsoft.NETCore.Platforms@1.1.0",
    ) in result.edges


def test_nuget_lock_missing_resolved() -> None:
    text = '{\n  "version": 1,\n  "dependencies": {\n    "net8.0": {\n      "A": {"type": "Direct"}\n    }\n  }\n}'
    assert _error(NugetLockParser(), text).line == 5


# -- gradle.lockfile --------------------------------------------------------------------------------


def test_gradle_lockfile_configurations() -> None:
    result = parse(GradleLockfileParser(), "gradle", "gradle.lockfile")
    check_invariants(result)
    assert {p.name: p.dev for p in result.packages} == {
        "com.fasterxml.jackson.core:jackson-core": False,
        "com.google.guava:guava": False,
        "junit:junit": True,
        "org.hamcrest:hamcrest-core": True,
        "org.projectlombok:lombok": False,
    }
    assert one(result, "junit:junit").purl == "pkg:maven/junit/junit@4.13.2"


def test_gradle_per_configuration_file_and_errors() -> None:
    result = GradleLockfileParser().parse("# comment\ncom.example:lib:1.0.0\n")
    assert [(p.name, p.version, p.dev) for p in result.packages] == [
        ("com.example:lib", "1.0.0", None)
    ]
    # A stray line between modules is skipped with a warning naming it (OSV-Scanner reads such a
    # file too); a file of such lines only is no Gradle lock and is rejected at its first one.
    skipped = GradleLockfileParser().parse("a:b:1=x\nnot a coordinate\n>>>\nc:d:2=y\n")
    assert [p.name for p in skipped.packages] == ["a:b", "c:d"]
    assert [w.split(":")[0] for w in skipped.warnings] == ["line 2 skipped", "line 3 skipped"]
    assert _error(GradleLockfileParser(), "# c\nnot a coordinate\n>>>\n").line == 2


def test_gradle_warnings_are_capped() -> None:
    text = "a:b:1=x\n" + "junk\n" * 50
    warnings = GradleLockfileParser().parse(text).warnings
    assert len(warnings) == 21 and warnings[-1] == "30 more lines skipped the same way"


def test_hand_written_files_exist_for_every_kind_lacking_real_data() -> None:
    for folder in ("bun", "pylock", "pubspec", "mix", "nuget", "gradle"):
        assert read(folder, *_first_file(folder))


def _first_file(folder: str) -> tuple[str]:
    from .helpers import DATA

    return (sorted(p.name for p in (DATA / folder).iterdir())[0],)
