"""npm-family lockfiles on hand-written inputs: package-lock.json (v1, v3), pnpm-lock.yaml (v5, v9),
yarn.lock (classic, Berry) and bun.lock — direct/dev flags, unresolved sources, aliases, edges."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import LockfileError
from pkgintel.lockfiles.bun_lock import BunLockParser
from pkgintel.lockfiles.package_lock import PackageLockParser
from pkgintel.lockfiles.pnpm_lock import PnpmLockParser
from pkgintel.lockfiles.yarn_lock import YarnLockParser

from .helpers import check_invariants, names, one, parse, read

# -- package-lock.json ------------------------------------------------------------------------------


def test_package_lock_v3_counts_every_install_path_but_links() -> None:
    result = parse(PackageLockParser(), "package-lock", "v3-workspaces.package-lock.json")
    check_invariants(result)
    # 14 keys: the root "" and two `link: true` entries are not packages
    assert len(result.packages) == 11
    assert len([p for p in result.packages if p.name == "ansi-regex"]) == 2


def test_package_lock_v3_direct_and_dev() -> None:
    result = parse(PackageLockParser(), "package-lock", "v3-workspaces.package-lock.json")
    assert names([p for p in result.packages if p.direct]) == {
        "left-pad",
        "local-lib",
        "my-git",
        "private-tarball",
        "string-width",  # declared as the alias string-width-cjs
        "@types/node",
        "is-odd",  # declared by the workspace packages/app
    }
    assert one(result, "@types/node").dev is True
    assert one(result, "undici-types").dev is True
    assert one(result, "left-pad").dev is False
    # devOptional: installed in production as an optional dependency
    assert one(result, "ansi-regex", "5.0.1").dev is False
    assert one(result, "ansi-regex", "6.0.1").direct is False
    assert one(result, "app").direct is None  # a workspace folder, not declared by the root


def test_package_lock_v3_alias_uses_the_real_name() -> None:
    result = parse(PackageLockParser(), "package-lock", "v3-workspaces.package-lock.json")
    alias = one(result, "string-width")
    assert alias.version == "4.2.3"
    assert alias.purl == "pkg:npm/string-width@4.2.3"


def test_package_lock_v3_unresolved_sources() -> None:
    result = parse(PackageLockParser(), "package-lock", "v3-workspaces.package-lock.json")
    git = one(result, "my-git")
    assert (git.resolved, git.source, git.purl) == (False, "git", None)
    assert "github.com/acme/my-git" in (git.unresolved_reason or "")
    tarball = one(result, "private-tarball")
    assert (tarball.resolved, tarball.source) == (False, "url")
    # credentials in a resolved URL are never repeated
    assert "s3cr3t" not in repr(tarball)
    local = one(result, "local-lib")
    assert (local.resolved, local.source) == (False, "path")
    assert names(result.unresolved) == {"my-git", "private-tarball", "local-lib", "app"}
    app = one(result, "app")
    assert (app.source, app.version) == ("workspace", "0.0.1")


def test_package_lock_v3_edges_follow_node_resolution() -> None:
    result = parse(PackageLockParser(), "package-lock", "v3-workspaces.package-lock.json")
    edges = set(result.edges)
    # left-pad's own nested ansi-regex wins over the hoisted one
    assert ("pkg:npm/left-pad@1.3.0", "pkg:npm/ansi-regex@6.0.1") in edges
    assert ("pkg:npm/string-width@4.2.3", "pkg:npm/ansi-regex@5.0.1") in edges
    assert ("app@0.0.1", "pkg:npm/is-odd@3.0.1") in edges
    # fsevents is an optional dependency that is not installed: no edge, no package
    assert not any("fsevents" in target for _, target in edges)


def test_package_lock_v1_tree() -> None:
    result = parse(PackageLockParser(), "package-lock", "v1-nested.package-lock.json")
    check_invariants(result)
    assert len(result.packages) == 7  # six top-level nodes + the nested debug
    assert all(
        p.direct is None for p in result.packages
    )  # v1 does not list the root's dependencies
    assert one(result, "mocha").dev is True
    assert one(result, "debug", "3.1.0").dev is True
    assert one(result, "debug", "2.6.9").dev is False
    assert one(result, "lodash").version == "4.17.21"  # "aliased": "npm:lodash@4.17.21"
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source, fork.version) == (False, "git", None)
    assert fork.requirement == "github:acme/my-fork#0123abc"
    local = one(result, "local")
    assert (local.resolved, local.source) == (False, "path")
    assert set(result.edges) == {
        ("pkg:npm/debug@2.6.9", "pkg:npm/ms@2.0.0"),
        ("pkg:npm/mocha@5.2.0", "pkg:npm/debug@3.1.0"),  # the nested copy, not the top-level one
        ("pkg:npm/mocha@5.2.0", "pkg:npm/ms@2.0.0"),
        ("pkg:npm/debug@3.1.0", "pkg:npm/ms@2.0.0"),
    }


# -- pnpm-lock.yaml ---------------------------------------------------------------------------------


def test_pnpm_v9_packages_links_and_direct() -> None:
    result = parse(PnpmLockParser(), "pnpm-lock", "v9-workspace.pnpm-lock.yaml")
    check_invariants(result)
    assert len(result.packages) == 13  # 12 packages + the workspace link
    assert names([p for p in result.packages if p.direct]) == {
        "my-fork",
        "react",
        "react-dom",
        "shared",
        "@types/react",
        "typescript",
        "lodash-es",
        "strip-ansi",  # via the alias `strip: strip-ansi@6.0.1`
    }
    link = one(result, "shared")
    assert (link.resolved, link.source, link.requirement) == (
        False,
        "workspace",
        "link:packages/shared",
    )


def test_pnpm_v9_dev_is_computed_from_the_graph() -> None:
    result = parse(PnpmLockParser(), "pnpm-lock", "v9-workspace.pnpm-lock.yaml")
    assert one(result, "typescript").dev is True
    assert one(result, "@types/react").dev is True
    assert one(result, "@types/prop-types").dev is True  # only reachable from a dev dependency
    assert one(result, "js-tokens").dev is False  # react → loose-envify → js-tokens
    assert one(result, "ansi-regex").dev is False  # from the workspace packages/shared
    assert ("pkg:npm/react-dom@18.2.0", "pkg:npm/scheduler@0.23.0") in result.edges


def test_pnpm_v9_git_tarball_is_unresolved() -> None:
    result = parse(PnpmLockParser(), "pnpm-lock", "v9-workspace.pnpm-lock.yaml")
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source, fork.version) == (False, "git", "1.0.0")
    assert "codeload.github.com/acme/my-fork" in (fork.unresolved_reason or "")


def test_pnpm_v5_keys_peers_and_dev_flags() -> None:
    result = parse(PnpmLockParser(), "pnpm-lock", "v5-single.pnpm-lock.yaml")
    check_invariants(result)
    assert len(result.packages) == 4
    jest = one(result, "jest")
    assert (jest.version, jest.direct, jest.dev) == ("29.7.0", True, True)
    assert one(result, "@jest/core").direct is False
    assert one(result, "left-pad").dev is False
    local = one(result, "local-thing")
    assert (local.resolved, local.source, local.direct) == (False, "path", True)
    assert ("pkg:npm/jest@29.7.0", "pkg:npm/%40jest/core@29.7.0") in result.edges


# -- yarn.lock --------------------------------------------------------------------------------------


def test_yarn_classic_entries() -> None:
    result = parse(YarnLockParser(), "yarn", "classic.yarn.lock")
    check_invariants(result)
    assert len(result.packages) == 9
    assert all(p.direct is None and p.dev is None for p in result.packages)
    assert one(result, "string-width").version == "4.2.3"  # the npm: alias
    assert {p.name: p.source for p in result.unresolved} == {
        "local-lib": "path",
        "parse-srcset": "git",
        "private-tarball": "url",
    }
    assert ("pkg:npm/chalk@2.4.2", "pkg:npm/fsevents@2.3.3") in result.edges  # optionalDependencies
    assert (
        "pkg:npm/%40babel/code-frame@7.16.7",
        "pkg:npm/%40babel/highlight@7.16.10",
    ) in result.edges


def test_yarn_berry_entries() -> None:
    result = parse(YarnLockParser(), "yarn", "berry.yarn.lock")
    check_invariants(result)
    assert len(result.packages) == 8
    workspaces = [p for p in result.packages if p.source == "workspace"]
    assert names(workspaces) == {"app", "demo"}
    assert all(p.direct is None and not p.resolved for p in workspaces)
    assert names([p for p in result.packages if p.direct]) == {
        "left-pad",
        "fsevents",
        "my-fork",
        "typescript",
    }
    assert one(result, "node-gyp").direct is False
    patched = [p for p in result.packages if p.source == "patch"]
    assert [(p.name, p.version, p.resolved) for p in patched] == [("fsevents", "2.3.3", True)]
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source) == (False, "git")
    assert all(p.dev is None for p in result.packages)


# -- bun.lock ---------------------------------------------------------------------------------------


def test_bun_lock_jsonc_with_nested_keys() -> None:
    result = parse(BunLockParser(), "bun", "workspace.bun.lock")
    check_invariants(result)
    assert len(result.packages) == 7
    assert one(result, "js-tokens", "3.0.2").direct is False  # the copy nested under my-fork
    assert ("my-fork", "pkg:npm/js-tokens@3.0.2") in result.edges
    assert ("pkg:npm/loose-envify@1.4.0", "pkg:npm/js-tokens@4.0.0") in result.edges


def test_bun_lock_direct_dev_and_unresolved() -> None:
    result = parse(BunLockParser(), "bun", "workspace.bun.lock")
    assert names([p for p in result.packages if p.direct]) == {
        "my-fork",
        "react",
        "typescript",
        "loose-envify",  # declared by the workspace packages/shared
    }
    assert one(result, "typescript").dev is True
    assert one(result, "react").dev is False
    assert one(result, "js-tokens", "4.0.0").dev is False
    shared = one(result, "shared")
    assert (shared.resolved, shared.source, shared.direct) == (False, "workspace", None)
    fork = one(result, "my-fork")
    assert (fork.resolved, fork.source) == (False, "git")


# -- malformed input --------------------------------------------------------------------------------


def _error(parser: object, text: str) -> LockfileError:
    with pytest.raises(LockfileError) as caught:
        parser.parse(text)  # type: ignore[attr-defined]
    return caught.value


def test_package_lock_truncated_names_the_line() -> None:
    error = _error(PackageLockParser(), read("package-lock", "truncated.package-lock.json"))
    assert error.kind == "package-lock.json"
    assert error.line == 29
    assert error.column is not None
    assert "line 29" in str(error)


def test_package_lock_entry_of_the_wrong_shape() -> None:
    text = '{\n  "lockfileVersion": 3,\n  "packages": {\n    "": {},\n    "node_modules/x": 1\n  }\n}\n'
    error = _error(PackageLockParser(), text)
    assert error.line == 5


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("lockfileVersion: '9.0'\npackages:\n  a@1.0.0:\n    resolution: {integrity: sha\n", 5),
        ("lockfileVersion: '9.0'\nimporters:\n  .:\n dependencies: x\n   y: [\n", 4),
    ],
)
def test_pnpm_yaml_errors_name_the_line(text: str, line: int) -> None:
    error = _error(PnpmLockParser(), text)
    assert error.kind == "pnpm-lock.yaml"
    assert error.line == line


def test_pnpm_without_lockfile_version() -> None:
    assert _error(PnpmLockParser(), "packages: {}\n").line == 1


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('# yarn lockfile v1\n\nfoo@^1.0.0:\n  version "1.0.0\n', 4, "unterminated"),
        ("# yarn lockfile v1\n\nfoo@^1.0.0:\n   version 1.0.0\n", 4, "indentation"),
        (
            '# yarn lockfile v1\n\nfoo@^1.0.0:\n  resolved "x"\n\nbar@1:\n  version "1"\n',
            3,
            "version",
        ),
        ('# yarn lockfile v1\n\nfoo@^1.0.0\n  version "1.0.0"\n', 3, "':'"),
        ('# yarn lockfile v1\n\n  version "1.0.0"\n', 3, "outside"),
        ('# yarn lockfile v1\n\nfoo@^1.0.0:\n  version "1.0.0"\n    bar "^1"\n', 5, "section"),
    ],
)
def test_yarn_classic_errors_name_the_line(text: str, line: int, message: str) -> None:
    error = _error(YarnLockParser(), text)
    assert error.kind == "yarn.lock"
    assert error.line == line
    assert message in str(error)


def test_yarn_berry_truncated() -> None:
    text = read("yarn", "berry.yarn.lock")
    cut = text.index('"fsevents@npm:~2.3.2"') + 10  # inside a quoted key
    error = _error(YarnLockParser(), text[:cut])
    assert error.kind == "yarn.lock"
    assert error.line == text[:cut].count("\n") + 1


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "lockfileVersion": 1,\n  "workspaces": {},\n  "packages": {\n    "a": ["a@1.0.0", "",\n',
        '{\n  "lockfileVersion": 1,\n  "workspaces": {},\n  "packages": {\n    "a": "a@1.0.0",\n  }\n}\n',
    ],
)
def test_bun_errors_name_the_line(text: str) -> None:
    error = _error(BunLockParser(), text)
    assert error.kind == "bun.lock"
    assert error.line is not None and error.line >= 5


def test_jsonc_comments_and_trailing_commas_outside_strings_only() -> None:
    import json

    from pkgintel.lockfiles._support import strip_jsonc

    text = (
        '{\n  // a comment, with a comma,\n  "url": "https://registry.npmjs.org/a/-/a.tgz",'
        '\n  /* block\n comment */ "s": "a \\" // not a comment ,]",\n  "list": [1, 2,],\n}\n'
    )
    stripped = strip_jsonc(text)
    assert stripped.count("\n") == text.count("\n")  # line numbers are kept
    assert json.loads(stripped) == {
        "url": "https://registry.npmjs.org/a/-/a.tgz",
        "s": 'a " // not a comment ,]',
        "list": [1, 2],
    }
