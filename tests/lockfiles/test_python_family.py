"""Python lockfiles and manifests on hand-written inputs: poetry.lock, Pipfile.lock, uv.lock,
pylock.toml and requirements files — dev/direct flags, unresolved sources, errors with lines."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.lockfiles.base import LockfileParser
from pkgintel.lockfiles.pipfile_lock import PipfileLockParser
from pkgintel.lockfiles.poetry_lock import PoetryLockParser
from pkgintel.lockfiles.pylock import PylockParser
from pkgintel.lockfiles.requirements_txt import RequirementsTxtParser
from pkgintel.lockfiles.uv_lock import UvLockParser

from .helpers import check_invariants, names, one, parse


def _error(parser: LockfileParser, text: str) -> LockfileError:
    with pytest.raises(LockfileError) as caught:
        parser.parse(text)
    return caught.value


# -- poetry.lock ------------------------------------------------------------------------------------


def test_poetry_1x_category_and_sources() -> None:
    result = parse(PoetryLockParser(), "poetry", "v1-category.poetry.lock")
    check_invariants(result)
    assert len(result.packages) == 6
    assert all(
        p.direct is None for p in result.packages
    )  # the lock does not list the project's deps
    assert {p.name: p.dev for p in result.packages} == {
        "certifi": False,
        "my-lib": False,
        "pytest": True,
        "pluggy": True,
        "Requests": False,
        "private-pkg": False,
    }
    git = one(result, "Requests")
    assert (git.resolved, git.source, git.version) == (False, "git", "2.31.0")
    assert "0123456789abcdef" in (git.unresolved_reason or "")
    local = one(result, "my-lib")
    assert (local.resolved, local.source) == (False, "path")
    private = one(result, "private-pkg")  # a `legacy` (alternate index) source is still a registry
    assert (private.resolved, private.purl) == (True, "pkg:pypi/private-pkg@1.0.0")
    assert set(result.edges) == {
        ("pkg:pypi/pytest@7.4.0", "pkg:pypi/pluggy@1.2.0"),
        ("Requests@2.31.0", "pkg:pypi/certifi@2023.7.22"),
    }


def test_poetry_package_without_version() -> None:
    text = '[[package]]\nname = "a"\nversion = "1"\n\n[[package]]\nname = "b"\n\n[metadata]\n'
    error = _error(PoetryLockParser(), text)
    assert (error.kind, error.line) == ("poetry.lock", 5)


def test_poetry_truncated_toml() -> None:
    text = '[[package]]\nname = "a"\nversion = "1.0'
    error = _error(PoetryLockParser(), text)
    assert error.line == 3  # tomllib: unterminated string, at end of document


def test_toml_error_position() -> None:
    error = _error(PoetryLockParser(), '[[package]]\nname = "a"\nversion = \n')
    assert (error.line, error.column) == (3, 11)


# -- Pipfile.lock -----------------------------------------------------------------------------------


def test_pipfile_lock_sections() -> None:
    result = parse(PipfileLockParser(), "pipfile", "sources.Pipfile.lock")
    check_invariants(result)
    assert len(result.packages) == 5  # six is in both sections: one package
    assert one(result, "six").dev is False
    assert one(result, "pytest").dev is True
    assert one(result, "flask").version == "3.0.0"
    assert all(p.direct is None for p in result.packages)
    git = one(result, "requests")
    assert (git.resolved, git.source) == (False, "git")
    assert "token" not in repr(git)  # credentials in the git URL are dropped
    assert one(result, "internal-tool").source == "path"


def test_pipfile_lock_errors() -> None:
    assert _error(PipfileLockParser(), '{"_meta": {}}').line == 1
    error = _error(PipfileLockParser(), '{\n "_meta": {},\n "default": {\n  "x": [1]\n }\n}')
    assert error.line == 4
    assert _error(PipfileLockParser(), '{\n "_meta": {\n').line == 3


# -- uv.lock ----------------------------------------------------------------------------------------


def test_uv_lock_workspace_member_direct_and_dev() -> None:
    result = parse(UvLockParser(), "uv", "workspace.uv.lock")
    check_invariants(result)
    # The project itself (`demo`, the virtual member at ".") is not one of its dependencies.
    assert len(result.packages) == 8
    assert "demo" not in names(result.packages)
    assert result.warnings == ("the project's own package 'demo' is left out",)
    assert names([p for p in result.packages if p.direct]) == {"httpx", "my-fork", "pytest"}
    assert one(result, "pytest").dev is True
    assert one(result, "iniconfig").dev is True  # only reachable from the dev group
    assert one(result, "anyio").dev is False
    assert one(result, "socksio").dev is False  # pulled by the requested extra httpx[socks]
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source) == (False, "git")
    assert ("pkg:pypi/httpx@0.27.0", "pkg:pypi/anyio@4.2.0") in result.edges


def test_uv_lock_package_without_name() -> None:
    text = 'version = 1\n\n[[package]]\nname = "a"\nversion = "1"\n\n[[package]]\nversion = "2"\n'
    assert _error(UvLockParser(), text).line == 7


# -- pylock.toml ------------------------------------------------------------------------------------


def test_pylock_sources() -> None:
    result = parse(PylockParser(), "pylock", "pylock.toml")
    check_invariants(result)
    assert len(result.packages) == 5
    assert {p.name for p in result.resolved} == {"attrs", "cattrs"}
    assert {p.name: p.source for p in result.unresolved} == {
        "my-fork": "git",
        "local-pkg": "path",
        "wheel-from-url": "url",
    }
    assert all(p.direct is None and p.dev is None for p in result.packages)
    assert result.edges == (("pkg:pypi/cattrs@24.1.2", "pkg:pypi/attrs@25.1.0"),)


def test_pylock_requires_lock_version() -> None:
    assert _error(PylockParser(), '[[packages]]\nname = "a"\n').line == 1


# -- requirements.txt -------------------------------------------------------------------------------


def test_requirements_every_line_kind() -> None:
    result = parse(RequirementsTxtParser(), "requirements", "requirements-dev.txt")
    check_invariants(result)
    assert len(result.packages) == 11
    assert all(p.direct is True and p.dev is None for p in result.packages)
    pinned = {p.name: p.version for p in result.resolved}
    assert pinned == {
        "requests": "2.31.0",  # extras dropped, marker ignored
        "arbitrary": "1.0.0-custom",  # === arbitrary equality
        "certifi": "2023.7.22",  # hashes on continuation lines
        "zope.interface": "6.1",  # spaces around ==, inline comment
    }
    assert one(result, "requests").purl == "pkg:pypi/requests@2.31.0"
    assert one(result, "zope.interface").purl == "pkg:pypi/zope-interface@6.1"


def test_requirements_unresolved_entries_keep_their_requirement() -> None:
    result = parse(RequirementsTxtParser(), "requirements", "requirements-dev.txt")
    unresolved = {p.name: (p.source, p.requirement) for p in result.unresolved}
    assert unresolved == {
        "base.txt": ("include", "-r base.txt"),
        "Django": ("registry", "<5,>=4.2"),
        "flask": ("registry", None),
        "wildcard": ("registry", "==1.*"),
        "my_pkg": ("url", "https://files.example.com/my_pkg-1.0-py3-none-any.whl"),
        "my-fork": ("git", "-e git+https://github.com/acme/my-fork.git@v1.0#egg=my-fork"),
        "local_thing": ("path", "./downloads/local_thing-2.0-py3-none-any.whl"),
    }
    assert "no version" in (one(result, "flask").unresolved_reason or "")


def test_requirements_options_are_warnings_without_their_values() -> None:
    result = parse(RequirementsTxtParser(), "requirements", "requirements-dev.txt")
    assert result.warnings == (
        "line 2: option --index-url ignored",
        "line 3: included file 'base.txt' was not read",
        "line 4: constraints file 'constraints.txt' was not read",
    )
    assert "secret" not in " ".join(result.warnings)


def test_requirements_pip_compile_via_annotations_decide_direct() -> None:
    result = parse(RequirementsTxtParser(), "requirements", "pip-compile.txt")
    assert {p.name: p.direct for p in result.packages} == {
        "certifi": False,
        "charset-normalizer": False,
        "idna": False,
        "myproject-lib": True,  # via myproject (pyproject.toml)
        "requests": True,  # via -r requirements.in
        "urllib3": True,  # one of its via lines is -r requirements.in
    }


def test_requirements_option_without_value_is_an_error_naming_the_line() -> None:
    error = _error(RequirementsTxtParser(), "-r\n")
    assert (error.kind, error.line) == ("requirements.txt", 1)


@pytest.mark.parametrize(
    ("text", "name", "line"),
    [
        ("requests==2.31.0\nbad==\n", "bad", 2),
        ("ok==1\n\n# comment\nfoo>=1 \\\n  <2,\n", "foo", 4),
        ("a==1\nb[extra==2\n", "b", 2),
        ("a==1\nqwert==${MY_VARIABLE_1}\n", "qwert", 2),
        ("a==1\n==1.0\n", "==1.0", 2),
    ],
)
def test_requirements_unreadable_line_is_an_unresolved_entry_naming_the_line(
    text: str, name: str, line: int
) -> None:
    """One bad line never hides the others: it is kept, unresolved, with its line number."""
    result = RequirementsTxtParser().parse(text)
    bad = result.packages[-1]
    assert (bad.name, bad.resolved, bad.version) == (name, False, None)
    assert bad.unresolved_reason is not None and bad.unresolved_reason.startswith(f"line {line}:")
    assert result.packages[0].resolved
    assert any(w.startswith(f"line {line}:") for w in result.warnings)


def test_requirements_escaped_trailing_backslash_joins_as_pip_does() -> None:
    text = "foo==\\\n\\\n 1.2.3\nbar == 4.5\\\\\n.6\nqux == 10.11.12\\\n"
    result = RequirementsTxtParser().parse(text)
    assert [(p.name, p.version) for p in result.packages] == [
        ("foo", "1.2.3"),
        ("bar", "4.5.6"),
        ("qux", "10.11.12"),
    ]


def test_requirements_continuation_ended_by_a_comment() -> None:
    text = "apipkg==1.4 \\\n    --hash=sha256:aaaa \\\n    # via execnet\nattrs==17.3.0\n"
    result = RequirementsTxtParser().parse(text)
    assert [(p.name, p.version, p.direct) for p in result.packages] == [
        ("apipkg", "1.4", False),
        ("attrs", "17.3.0", True),  # older pip-compile leaves direct requirements unannotated
    ]


def test_uv_lock_manifest_members() -> None:
    text = """version = 1
requires-python = ">=3.12"

[manifest]
members = ["api", "core"]

[[package]]
name = "api"
version = "0.1.0"
source = { editable = "packages/api" }
dependencies = [{ name = "core" }, { name = "fastapi" }]

[[package]]
name = "core"
version = "0.1.0"
source = { editable = "packages/core" }
dependencies = [{ name = "pydantic" }]

[[package]]
name = "fastapi"
version = "0.110.0"
source = { registry = "https://pypi.org/simple" }
dependencies = [{ name = "pydantic" }]

[[package]]
name = "pydantic"
version = "2.6.0"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "vendored"
version = "1.0.0"
source = { editable = "vendor/vendored" }
"""
    result = UvLockParser().parse(text)
    check_invariants(result)
    flags = {p.name: (p.source, p.direct, p.dev) for p in result.packages}
    assert flags == {
        "api": ("workspace", None, None),
        "core": ("workspace", None, None),
        "fastapi": ("registry", True, False),
        "pydantic": ("registry", True, False),  # declared by the member core
        "vendored": ("path", False, None),  # an editable path dependency, not a member
    }
