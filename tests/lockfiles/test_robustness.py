"""
Malformed, truncated and hostile input: every failure is a `LockfileError` naming the kind and the line,
never another exception, and nothing takes super-linear time.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pkgintel.domain.errors import LockfileError
from pkgintel.lockfiles import PARSERS, parse_lockfile

from .helpers import read
from .test_detect import HAND_WRITTEN

# For each hand-written file: a marker after which cutting the file leaves a syntax error on the
# cut line (inside a string, a flow mapping, a spec or a coordinate).
CUT_AFTER = {
    ("package-lock", "v3-workspaces.package-lock.json"): '"version": "20.',
    ("package-lock", "v1-nested.package-lock.json"): '"resolved": "https://registry',
    ("pnpm-lock", "v9-workspace.pnpm-lock.yaml"): "resolution: {integ",
    ("pnpm-lock", "v5-single.pnpm-lock.yaml"): "resolution: {integ",
    ("yarn", "classic.yarn.lock"): '  version "2.4',
    ("yarn", "berry.yarn.lock"): '"left-pad@npm:^1',
    ("bun", "workspace.bun.lock"): '"react": ["react@18',
    ("poetry", "v1-category.poetry.lock"): 'name = "pyte',
    ("pipfile", "sources.Pipfile.lock"): '"version": "==3',
    ("uv", "workspace.uv.lock"): 'name = "httpx", ext',
    ("pylock", "pylock.toml"): 'name = "catt',
    ("requirements", "requirements-dev.txt"): "requests[socks",
    ("requirements", "pip-compile.txt"): "certifi=",
    ("composer", "branches.composer.lock"): '"name": "psr/l',
    ("cargo", "workspace.Cargo.lock"): 'name = "ser',
    ("go-sum", "small.go.sum"): "golang.org/x/mod v0.14.0",
    ("gemfile", "sources.Gemfile.lock"): "    rails (7.1",
    ("pubspec", "app.pubspec.lock"): 'sha256: "947bf',
    ("mix", "app.mix.lock"): '"cowlib": {:hex, :cowlib, "2.12',
    ("nuget", "packages.lock.json"): '"resolved": "13.0',
    ("gradle", "gradle.lockfile"): "com.google.guava:gu",
    ("swiftpm", "v1.Package.resolved"): '"version": "5.6',
    ("swiftpm", "v2.Package.resolved"): '"location" : "https://github.com/apple/swift-n',
    ("swiftpm", "v3.Package.resolved"): '"version" : "4.92',
    ("cocoapods", "app.Podfile.lock"): "  - Alamofire (5.8",
    ("carton", "app.cpanfile.snapshot"): "  Try-Tin",
}


def _outcome(kind: str, text: str) -> str:
    """The kind named by the result or by the `LockfileError`; any other exception propagates."""
    try:
        return PARSERS[kind].parse(text).kind
    except LockfileError as error:
        return error.kind


def test_every_kind_has_a_truncation_case() -> None:
    assert set(CUT_AFTER) == set(HAND_WRITTEN)


@pytest.mark.parametrize(("path", "kind"), list(HAND_WRITTEN.items()))
def test_truncated_file_names_kind_and_line(path: tuple[str, str], kind: str) -> None:
    text = read(*path)
    marker = CUT_AFTER[path]
    cut = text.index(marker) + len(marker)
    truncated = text[:cut]
    if kind == "requirements.txt":
        # A line-based format: the cut line is kept as an unresolved entry naming its line, and
        # the lines before it still count (one bad line never hides the others).
        result = PARSERS[kind].parse(truncated)
        last = result.packages[-1]
        assert not last.resolved and last.unresolved_reason is not None
        assert last.unresolved_reason.startswith(f"line {truncated.count(chr(10)) + 1}:")
        return
    if kind == "gradle.lockfile":
        # One module per line: the cut line is skipped with a warning naming it, the modules
        # before it are still reported (as OSV-Scanner reads a file with a bad line).
        result = PARSERS[kind].parse(truncated)
        assert result.packages
        assert result.warnings[-1].startswith(f"line {truncated.count(chr(10)) + 1} skipped")
        return
    with pytest.raises(LockfileError) as caught:
        PARSERS[kind].parse(truncated)
    assert caught.value.kind == kind
    assert caught.value.line == truncated.count("\n") + 1, str(caught.value)
    assert f"line {caught.value.line}" in str(caught.value)


@pytest.mark.parametrize(("path", "kind"), list(HAND_WRITTEN.items()))
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(fraction=st.floats(min_value=0.0, max_value=1.0))
def test_any_truncation_parses_or_raises_lockfile_error(
    path: tuple[str, str], kind: str, fraction: float
) -> None:
    text = read(*path)
    assert _outcome(kind, text[: int(len(text) * fraction)]) == kind


@pytest.mark.parametrize(("path", "kind"), list(HAND_WRITTEN.items()))
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_single_character_damage_parses_or_raises_lockfile_error(
    path: tuple[str, str], kind: str, data: st.DataObject
) -> None:
    text = read(*path)
    index = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
    replacement = data.draw(
        st.sampled_from(['"', "{", "}", "[", "]", ":", ",", "\n", " ", "\\", "(", "#", "x", ""])
    )
    damaged = text[:index] + replacement + text[index + 1 :]
    assert _outcome(kind, damaged) == kind


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300), kind=st.sampled_from(sorted(PARSERS)))
def test_arbitrary_text_never_raises_anything_else(text: str, kind: str) -> None:
    assert _outcome(kind, text) == kind


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=300))
def test_sniffers_never_raise(text: str) -> None:
    for parser in PARSERS.values():
        assert parser.sniff(text) in (True, False)


# -- hostile input ----------------------------------------------------------------------------------

HOSTILE = {
    "package-lock.json": "[" * 100_000 + "]" * 100_000,
    "Pipfile.lock": '{"default": ' + "[" * 50_000,
    "bun.lock": '{"lockfileVersion": 1, "packages": {"a": ' + "[" * 100_000,
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\npackages:\n" + "  " + "[" * 20_000,
    "poetry.lock": "a = " + "[" * 100_000,
    "mix.lock": "%{" + '"a": ' + "{" * 100_000,
    "requirements.txt": "a" + " " * 500_000 + "@\n" + "b" + "\t" * 200_000 + "[x\n",
    "yarn.lock": '# yarn lockfile v1\n\n"' + "a@" * 200_000 + ":\n",
    "go.sum": "m v1 h1:" + "=" * 500_000 + " x\n",
    "Gemfile.lock": "GEM\n  specs:\n    " + "(" * 200_000 + "\n",
    "gradle.lockfile": ":" * 500_000 + "\n",
    "Package.resolved": '{"version": 2, "pins": ' + "[" * 100_000,
    "Podfile.lock": "PODS:\n  - " + "[" * 20_000,
    "cpanfile.snapshot": "# carton snapshot format: version 1.0\nDISTRIBUTIONS\n  "
    + "a-" * 200_000
    + "\n",
}


@pytest.mark.usefixtures("frozen_heap")
@pytest.mark.parametrize(("kind", "text"), list(HOSTILE.items()), ids=list(HOSTILE))
def test_hostile_input_fails_fast(kind: str, text: str) -> None:
    started = time.perf_counter()
    if kind == "requirements.txt":
        # Line-based: each hostile line is an unresolved entry naming its line, not an error.
        result = parse_lockfile(text, kind=kind)
        assert [p.resolved for p in result.packages] == [False, False]
        assert all(len(p.requirement or "") <= 81 for p in result.packages)
    else:
        with pytest.raises(LockfileError) as caught:
            parse_lockfile(text, kind=kind)
        assert caught.value.kind == kind
    assert time.perf_counter() - started < 5.0


def test_yaml_aliases_do_not_expand() -> None:
    laughs = [
        "lockfileVersion: '9.0'",
        'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    previous = "a"
    for level in "bcdefghij":
        laughs.append(f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 9) + "]")
        previous = level
    laughs.append("importers: {'.': {dependencies: {x: {version: 1.0.0}}}}")
    laughs.append("packages:\n  x@1.0.0: {resolution: {integrity: sha512-x}}")
    started = time.perf_counter()
    result = parse_lockfile("\n".join(laughs) + "\n", kind="pnpm-lock.yaml")
    assert time.perf_counter() - started < 5.0
    assert [p.name for p in result.packages] == ["x"]


def test_sniffing_large_input_is_bounded() -> None:
    # 50k lines parse in ~1.5 s; a quadratic sniff or parse would take minutes. The bound leaves
    # room for a busy CI machine.
    text = "a==1\n" * 50_000
    started = time.perf_counter()
    assert parse_lockfile(text).kind == "requirements.txt"
    assert time.perf_counter() - started < 10.0
