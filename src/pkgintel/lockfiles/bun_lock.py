"""
Bun `bun.lock` (the text lockfile of Bun ≥ 1.2, `lockfileVersion` 0/1; JSONC with trailing commas).

Format: https://bun.sh/docs/install/lockfile — `workspaces` (path → package.json dependency snapshot)
and `packages` (key → `[ident, ...]`, where the key is the install path of names, e.g. `react` or
`app/react` for a non-hoisted copy, and `ident` is `name@version` or `name@<protocol>:...`). The binary
`bun.lockb` is not supported.

- One package per `packages` key.
- Direct = what a workspace's dependency resolves to (Bun looks up `<parent>/<name>` keys first, then
  hoisted ones). Dev: reachable from a workspace's `dependencies`/`optionalDependencies`/
  `peerDependencies` → False; only from `devDependencies` → True.
- `workspace:`, `link:`, `file:`, `root:`, git/github and tarball-URL idents are unresolved.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    dedupe_edges,
    dev_flag,
    head,
    line_of,
    load_jsonc,
    locate,
    none_to,
    reachable,
    redact_url,
    registry_package,
    require_mapping,
    split_npm_ident,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_EXACT_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")
_PROD = ("dependencies", "optionalDependencies", "peerDependencies")
_DEV = ("devDependencies",)


def _segments(key: str) -> list[str]:
    """`a/@s/b/c` → [`a`, `@s/b`, `c`]: the package names of an install path."""
    parts = key.split("/")
    out: list[str] = []
    i = 0
    while i < len(parts):
        if parts[i].startswith("@") and i + 1 < len(parts):
            out.append(f"{parts[i]}/{parts[i + 1]}")
            i += 2
        else:
            out.append(parts[i])
            i += 1
    return out


def _meta(entry: list[Any]) -> dict[str, Any]:
    return next((item for item in entry[1:] if isinstance(item, dict)), {})


class BunLockParser:
    """Bun `bun.lock` (text format)."""

    kind: ClassVar[str] = "bun.lock"
    filenames: ClassVar[tuple[str, ...]] = ("bun.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.bun.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM

    def sniff(self, text: str) -> bool:
        """`lockfileVersion` with a top-level `workspaces` before `packages` (package-lock has neither order)."""
        start = head(text)
        if not start.lstrip().startswith("{") or '"lockfileVersion"' not in start:
            return False
        workspaces = start.find('"workspaces"')
        packages = start.find('"packages"')
        return workspaces >= 0 and (packages < 0 or workspaces < packages)

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a bun.lock; `LockfileError` for invalid JSONC or an unexpected shape."""
        data = require_mapping(self.kind, load_jsonc(self.kind, text), "the document", line=1)
        if "lockfileVersion" not in data:
            raise LockfileError(self.kind, 'no "lockfileVersion"', line=1)
        workspaces = require_mapping(
            self.kind,
            none_to(data.get("workspaces"), {}),
            '"workspaces"',
            line=locate(text, '"workspaces"'),
        )
        raw_packages = require_mapping(
            self.kind,
            none_to(data.get("packages"), {}),
            '"packages"',
            line=locate(text, '"packages"'),
        )
        entries: dict[str, list[Any]] = {}
        for key, value in raw_packages.items():
            if not isinstance(value, list) or not value or not isinstance(value[0], str):
                raise LockfileError(
                    self.kind,
                    f"package {key!r} must be an array starting with its identifier",
                    line=line_of(text, f'"{key}"'),
                )
            entries[str(key)] = value

        def resolve(from_key: str | None, name: str) -> str | None:
            segments = _segments(from_key) if from_key else []
            for depth in range(len(segments), 0, -1):
                candidate = "/".join([*segments[:depth], name])
                if candidate in entries:
                    return candidate
            return name if name in entries else None

        def deps_of(key: str, sections: tuple[str, ...]) -> list[str]:
            meta = _meta(entries[key])
            return [str(n) for s in sections if isinstance(meta.get(s), dict) for n in meta[s]]

        def neighbours(key: str) -> list[str]:
            found = (resolve(key, n) for n in deps_of(key, _PROD))
            return [k for k in found if k is not None]

        direct: set[str] = set()
        prod_roots: list[str] = []
        dev_roots: list[str] = []
        for path, value in workspaces.items():
            workspace = require_mapping(
                self.kind, value, f"workspace {path!r}", line=locate(text, f'"{path}"')
            )
            own_name = workspace.get("name") if isinstance(workspace.get("name"), str) else None
            for sections, bucket in ((_PROD, prod_roots), (_DEV, dev_roots)):
                for section in sections:
                    declared = workspace.get(section)
                    if not isinstance(declared, dict):
                        continue
                    for dep_name in declared:
                        target = resolve(own_name, str(dep_name))
                        if target is not None:
                            direct.add(target)
                            bucket.append(target)
        prod = reachable(prod_roots, neighbours)
        dev = reachable(dev_roots, neighbours)

        packages: dict[str, LockedPackage] = {}
        for key, entry in entries.items():
            packages[key] = self._package(
                entry, key in direct, dev_flag(key, prod, dev), tuple(deps_of(key, _PROD))
            )
        edges = [
            (packages[key].key, packages[target].key)
            for key in entries
            for target in neighbours(key)
        ]
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages.values()), dedupe_edges(edges), ()
        )

    def _package(
        self, entry: list[Any], direct: bool, dev: bool | None, deps: tuple[str, ...]
    ) -> LockedPackage:
        name, spec = split_npm_ident(entry[0])
        if _EXACT_VERSION.match(spec):
            return registry_package(
                self.ecosystem, name, spec, direct=direct, dev=dev, dependencies=deps
            )
        protocol = spec.split(":", 1)[0] if ":" in spec else ""
        if protocol in ("workspace", "root"):
            source, what = "workspace", f"workspace package {spec!r}"
            direct_flag: bool | None = None
        else:
            direct_flag = direct
            if protocol in ("file", "link"):
                source, what = "path", f"local {spec!r}"
            elif protocol in ("github", "gitlab", "bitbucket") or protocol.startswith("git"):
                source, what = "git", f"git source {redact_url(spec)}"
            elif protocol in ("http", "https"):
                source, what = "url", f"tarball {redact_url(spec)}"
            else:
                source, what = "unknown", f"{redact_url(spec)!r}"
        return unresolved_package(
            self.ecosystem,
            name,
            None,
            reason=f"{what}, not a registry version",
            source=source,
            requirement=redact_url(spec),
            direct=direct_flag,
            dev=dev if direct_flag is not None else None,
            dependencies=deps,
        )
