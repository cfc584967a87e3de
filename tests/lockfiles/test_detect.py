"""The registry, detection by file name and by content, and `parse_lockfile`."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles import (
    CONTENT_SNIFF_ORDER,
    PARSERS,
    detect,
    detect_from_content,
    detect_from_filename,
    parse_lockfile,
)

from .helpers import DATA, read

SPEC_KINDS = {
    "package-lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "poetry.lock",
    "Pipfile.lock",
    "composer.lock",
    "Cargo.lock",
    "requirements.txt",
    "go.sum",
}
EXTRA_KINDS = {
    "uv.lock",
    "pylock.toml",
    "Gemfile.lock",
    "bun.lock",
    "pubspec.lock",
    "mix.lock",
    "packages.lock.json",
    "gradle.lockfile",
    "Package.resolved",
    "Podfile.lock",
    "cpanfile.snapshot",
}

# hand-written file → its kind (every kind has at least one)
HAND_WRITTEN = {
    ("package-lock", "v3-workspaces.package-lock.json"): "package-lock.json",
    ("package-lock", "v1-nested.package-lock.json"): "package-lock.json",
    ("pnpm-lock", "v9-workspace.pnpm-lock.yaml"): "pnpm-lock.yaml",
    ("pnpm-lock", "v5-single.pnpm-lock.yaml"): "pnpm-lock.yaml",
    ("yarn", "classic.yarn.lock"): "yarn.lock",
    ("yarn", "berry.yarn.lock"): "yarn.lock",
    ("bun", "workspace.bun.lock"): "bun.lock",
    ("poetry", "v1-category.poetry.lock"): "poetry.lock",
    ("pipfile", "sources.Pipfile.lock"): "Pipfile.lock",
    ("uv", "workspace.uv.lock"): "uv.lock",
    ("pylock", "pylock.toml"): "pylock.toml",
    ("requirements", "requirements-dev.txt"): "requirements.txt",
    ("requirements", "pip-compile.txt"): "requirements.txt",
    ("composer", "branches.composer.lock"): "composer.lock",
    ("cargo", "workspace.Cargo.lock"): "Cargo.lock",
    ("go-sum", "small.go.sum"): "go.sum",
    ("gemfile", "sources.Gemfile.lock"): "Gemfile.lock",
    ("pubspec", "app.pubspec.lock"): "pubspec.lock",
    ("mix", "app.mix.lock"): "mix.lock",
    ("nuget", "packages.lock.json"): "packages.lock.json",
    ("gradle", "gradle.lockfile"): "gradle.lockfile",
    ("swiftpm", "v1.Package.resolved"): "Package.resolved",
    ("swiftpm", "v2.Package.resolved"): "Package.resolved",
    ("swiftpm", "v3.Package.resolved"): "Package.resolved",
    ("cocoapods", "app.Podfile.lock"): "Podfile.lock",
    ("carton", "app.cpanfile.snapshot"): "cpanfile.snapshot",
}


def test_registry_holds_every_kind() -> None:
    assert set(PARSERS) == SPEC_KINDS | EXTRA_KINDS
    assert set(CONTENT_SNIFF_ORDER) == set(PARSERS)
    assert CONTENT_SNIFF_ORDER[-1] == "requirements.txt"  # the least specific sniffer goes last
    for kind, parser in PARSERS.items():
        assert parser.kind == kind
        assert parser.filenames
        assert isinstance(parser.ecosystem, Ecosystem)
    assert set(HAND_WRITTEN.values()) == set(PARSERS)


@pytest.mark.parametrize(
    ("filename", "kind"),
    [
        ("package-lock.json", "package-lock.json"),
        ("npm-shrinkwrap.json", "package-lock.json"),
        ("frontend/package-lock.json", "package-lock.json"),
        ("C:\\work\\app\\yarn.lock", "yarn.lock"),
        ("pnpm-lock.yaml", "pnpm-lock.yaml"),
        ("poetry.lock", "poetry.lock"),
        ("Pipfile.lock", "Pipfile.lock"),
        ("pipfile.lock", "Pipfile.lock"),
        ("composer.lock", "composer.lock"),
        ("Cargo.lock", "Cargo.lock"),
        ("requirements.txt", "requirements.txt"),
        ("requirements-dev.txt", "requirements.txt"),
        ("requirements_test.txt", "requirements.txt"),
        ("dev-requirements.txt", "requirements.txt"),
        ("requirements/prod.txt", "requirements.txt"),
        ("requirements.in", "requirements.txt"),
        ("go.sum", "go.sum"),
        ("go.work.sum", "go.sum"),
        ("uv.lock", "uv.lock"),
        ("pylock.toml", "pylock.toml"),
        ("pylock.web.toml", "pylock.toml"),
        ("Gemfile.lock", "Gemfile.lock"),
        ("gems.locked", "Gemfile.lock"),
        ("bun.lock", "bun.lock"),
        ("pubspec.lock", "pubspec.lock"),
        ("mix.lock", "mix.lock"),
        ("packages.lock.json", "packages.lock.json"),
        ("gradle.lockfile", "gradle.lockfile"),
        ("buildscript-gradle.lockfile", "gradle.lockfile"),
        ("gradle/dependency-locks/compileClasspath.lockfile", "gradle.lockfile"),
        ("project.package-lock.json", "package-lock.json"),
        ("ripgrep.Cargo.lock", "Cargo.lock"),
        ("Package.resolved", "Package.resolved"),
        (
            "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved",
            "Package.resolved",
        ),
        ("package.resolved", "Package.resolved"),
        ("Podfile.lock", "Podfile.lock"),
        ("ios/Podfile.lock", "Podfile.lock"),
        ("cpanfile.snapshot", "cpanfile.snapshot"),
    ],
)
def test_detect_from_filename(filename: str, kind: str) -> None:
    assert detect_from_filename(filename) == kind


@pytest.mark.parametrize(
    "filename",
    [
        "deps.txt",
        "package.json",
        "pyproject.toml",
        "Cargo.toml",
        "go.mod",
        "Gemfile",
        "Podfile",
        "Package.swift",
        "cpanfile",
        "README.md",
        "",
    ],
)
def test_names_that_say_nothing(filename: str) -> None:
    assert detect_from_filename(filename) is None


def test_binary_bun_lockfile_is_refused_by_name() -> None:
    with pytest.raises(LockfileError) as caught:
        detect_from_filename("bun.lockb")
    assert caught.value.kind == "bun.lock"


@pytest.mark.parametrize(("path", "kind"), list(HAND_WRITTEN.items()))
def test_detect_from_content(path: tuple[str, str], kind: str) -> None:
    text = read(*path)
    assert detect_from_content(text) == kind
    assert detect(None, text) == kind
    assert detect("uploaded-file", text) == kind  # a name that says nothing falls back to content
    assert parse_lockfile(text).kind == kind


def test_every_hand_written_file_is_listed() -> None:
    on_disk = {(p.parent.name, p.name) for p in DATA.glob("*/*") if p.is_file()}
    expected_failures = {("package-lock", "truncated.package-lock.json")}
    assert on_disk - expected_failures == set(HAND_WRITTEN)


def test_the_file_name_wins_over_the_content() -> None:
    text = read("go-sum", "small.go.sum")
    assert detect("requirements.txt", text) == "requirements.txt"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n",
        "hello world, this is not a lockfile\n",
        '{"name": "x", "version": "1.0.0"}',
        "[1, 2]",
    ],
)
def test_undetectable_content(text: str) -> None:
    with pytest.raises(LockfileError) as caught:
        detect(None, text)
    assert caught.value.kind == "unknown"


def test_parse_lockfile_kind_is_case_insensitive() -> None:
    text = read("pipfile", "sources.Pipfile.lock")
    assert parse_lockfile(text, kind="pipfile.lock").kind == "Pipfile.lock"


def test_parse_lockfile_unknown_kind() -> None:
    with pytest.raises(LockfileError) as caught:
        parse_lockfile("x", kind="Podfile")
    assert caught.value.kind == "Podfile"
    assert "supported" in str(caught.value)


def test_parse_lockfile_wrong_kind_names_the_kind() -> None:
    text = read("yarn", "classic.yarn.lock")
    with pytest.raises(LockfileError) as caught:
        parse_lockfile(text, kind="package-lock.json")
    assert caught.value.kind == "package-lock.json"
    assert caught.value.line == 1


def test_classic_yarn_lock_without_its_banner_is_still_recognised() -> None:
    text = read("yarn", "classic.yarn.lock")
    body = text[text.index('"@babel/code-frame') :]
    assert detect_from_content(body) == "yarn.lock"
