"""
npm `package-lock.json` (lockfileVersion 1, 2 and 3; also `npm-shrinkwrap.json`).

Format: https://docs.npmjs.com/cli/configuring-npm/package-lock-json

- v2/v3 (`packages`, keyed by install path): one package per path except the root `""` and `link: true`
  entries (a link's target folder is an entry of its own). Direct = the entry that a dependency declared
  by the root or by a workspace folder resolves to (Node's `node_modules` lookup). Dev = the entry's `dev`
  flag (`devOptional` packages are installed in production as optional dependencies, so they are not dev).
- v1 (nested `dependencies`): one package per node of the tree. The format does not list the root's own
  dependencies, so `direct` is None; `dev` is the entry's `dev` flag.
- Git, `file:` folders, workspace folders and non-registry tarball sources are unresolved. `resolved` URLs are only classified,
  never fetched.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    classify_npm_resolved,
    dedupe_edges,
    head,
    load_json,
    locate,
    redact_url,
    registry_package,
    require_mapping,
    split_npm_ident,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_NM = "node_modules/"
_DEP_FIELDS = ("dependencies", "optionalDependencies", "peerDependencies")
_DECLARED_FIELDS = (*_DEP_FIELDS, "devDependencies")
_EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$")


def _installed_name(path: str) -> str:
    """The folder name under the last `node_modules/` of an install path (`@scope/name` kept whole)."""
    return path[path.rfind(_NM) + len(_NM) :] if _NM in path else path


def _parent(path: str) -> str | None:
    """The path whose `node_modules` holds `path`; None for a folder outside any `node_modules`."""
    index = path.rfind("/" + _NM)
    if index >= 0:
        return path[:index]
    if path.startswith(_NM):
        return ""
    return None


class PackageLockParser:
    """npm `package-lock.json` / `npm-shrinkwrap.json`, lockfileVersion 1–3."""

    kind: ClassVar[str] = "package-lock.json"
    filenames: ClassVar[tuple[str, ...]] = ("package-lock.json", "npm-shrinkwrap.json")
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.package-lock.json", "*.npm-shrinkwrap.json")
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM

    def sniff(self, text: str) -> bool:
        """A JSON object with `lockfileVersion` near the top and no bun-style top-level `workspaces`."""
        start = head(text)
        if not start.lstrip().startswith("{") or '"lockfileVersion"' not in start:
            return False
        workspaces = start.find('"workspaces"')
        packages = start.find('"packages"')
        bun_like = workspaces >= 0 and (packages < 0 or workspaces < packages)
        return not bun_like

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a package-lock; `LockfileError` for invalid JSON or an unexpected shape."""
        data = require_mapping(self.kind, load_json(self.kind, text), "the document", line=1)
        packages = data.get("packages")
        if packages is not None:
            return self._parse_packages(text, require_mapping(self.kind, packages, '"packages"'))
        dependencies = data.get("dependencies")
        if dependencies is None:
            if "lockfileVersion" not in data:
                raise LockfileError(
                    self.kind, 'no "lockfileVersion", "packages" or "dependencies"', line=1
                )
            return ParsedLockfile(
                self.kind, self.ecosystem, (), (), ("the lockfile lists no packages",)
            )
        return self._parse_v1(text, require_mapping(self.kind, dependencies, '"dependencies"'))

    # -- v2 / v3 -----------------------------------------------------------------------------------

    def _entry(self, text: str, path: str, value: Any) -> dict[str, Any]:
        return require_mapping(
            self.kind, value, f"package entry {path!r}", line=locate(text, json.dumps(path))
        )

    def _parse_packages(self, text: str, packages: dict[str, Any]) -> ParsedLockfile:
        entries = {path: self._entry(text, path, value) for path, value in packages.items()}

        def target(path: str) -> str:
            entry = entries[path]
            if entry.get("link") and isinstance(entry.get("resolved"), str):
                linked = entry["resolved"]
                return str(linked) if linked in entries else path
            return path

        def resolve(from_path: str, name: str) -> str | None:
            base = from_path
            while True:
                candidate = f"{base}/{_NM}{name}" if base else f"{_NM}{name}"
                if candidate in entries:
                    return target(candidate)
                if base == "":
                    return None
                base = _parent(base) or ""

        # The root and workspace folders declare the project's own (direct) dependencies.
        declarers = [p for p in entries if p == "" or (_NM not in p and not entries[p].get("link"))]
        direct: set[str] = set()
        for declarer in declarers:
            for field in _DECLARED_FIELDS:
                declared = entries[declarer].get(field)
                if not isinstance(declared, dict):
                    continue
                for dep_name in declared:
                    found = resolve(declarer, dep_name)
                    if found is not None:
                        direct.add(found)

        # A local folder without a `name` is named by the link that installs it
        # (`node_modules/etag` → `deps/etag`), not by its path.
        link_names: dict[str, str] = {}
        for path, entry in entries.items():
            if entry.get("link") and isinstance(entry.get("resolved"), str) and _NM in path:
                link_names.setdefault(str(entry["resolved"]), _installed_name(path))
        for declarer in declarers:  # or by the `file:` dependency that declares it
            for field in _DECLARED_FIELDS:
                declared = entries[declarer].get(field)
                if isinstance(declared, dict):
                    for dep_name, spec in declared.items():
                        if isinstance(spec, str) and spec.startswith("file:"):
                            folder = posixpath.normpath(posixpath.join(declarer, spec[5:]))
                            link_names.setdefault(folder, str(dep_name))
        result: list[LockedPackage] = []
        keys: dict[str, str] = {}
        for path, entry in entries.items():
            if path == "" or entry.get("link"):
                continue
            package = self._package_v2(path, entry, path in direct, link_names.get(path))
            keys[path] = package.key
            result.append(package)

        edges: list[tuple[str, str]] = []
        for path, entry in entries.items():
            if path not in keys:
                continue
            for field in _DEP_FIELDS:
                deps = entry.get(field)
                if not isinstance(deps, dict):
                    continue
                for dep_name in deps:
                    found = resolve(path, dep_name)
                    if found is not None and found in keys:
                        edges.append((keys[path], keys[found]))
        return ParsedLockfile(self.kind, self.ecosystem, tuple(result), dedupe_edges(edges), ())

    def _package_v2(
        self, path: str, entry: dict[str, Any], is_direct: bool, link_name: str | None = None
    ) -> LockedPackage:
        in_node_modules = _NM in path
        name = entry.get("name") if isinstance(entry.get("name"), str) else None
        name = name or (_installed_name(path) if in_node_modules else (link_name or path))
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        dev = bool(entry.get("dev"))
        deps = tuple(
            dep
            for field in _DEP_FIELDS
            if isinstance(entry.get(field), dict)
            for dep in entry[field]
        )
        # a local folder is direct when a declared dependency links to it; otherwise it is a workspace
        direct: bool | None = is_direct if in_node_modules else (True if is_direct else None)
        if not in_node_modules:
            # a folder a declared `file:` dependency links to, or else a workspace member
            what = "local folder dependency" if is_direct else "workspace package"
            return unresolved_package(
                self.ecosystem,
                name,
                version,
                reason=f"{what} at {path!r}, not a registry version",
                source="path" if is_direct else "workspace",
                direct=direct,
                dev=dev,
                dependencies=deps,
            )
        resolved = entry.get("resolved") if isinstance(entry.get("resolved"), str) else None
        source = classify_npm_resolved(resolved)
        if source is None and resolved is None and version and _EXACT_VERSION.match(version):
            source = "bundled" if entry.get("inBundle") else "registry"
        if source in ("registry", "bundled") and version:
            return registry_package(
                self.ecosystem,
                name,
                version,
                direct=direct,
                dev=dev,
                source="registry",
                dependencies=deps,
            )
        where = redact_url(resolved) if resolved else "no resolved location"
        return unresolved_package(
            self.ecosystem,
            name,
            version,
            reason=f"{source or 'unknown'} source ({where}), not a registry version",
            source=source or "unknown",
            requirement=resolved and redact_url(resolved),
            direct=direct,
            dev=dev,
            dependencies=deps,
        )

    # -- v1 ----------------------------------------------------------------------------------------

    def _parse_v1(self, text: str, top: dict[str, Any]) -> ParsedLockfile:
        result: list[LockedPackage] = []
        edges: list[tuple[str, str]] = []
        # Depth-first over the tree; each frame holds the lookup scopes (innermost first) of its level.
        stack: list[tuple[tuple[dict[str, Any], ...], str, Any]] = [
            ((top,), name, value) for name, value in reversed(list(top.items()))
        ]
        pending: list[tuple[str, tuple[dict[str, Any], ...], tuple[str, ...]]] = []
        key_of: dict[int, str] = {}
        while stack:
            scopes, name, value = stack.pop()
            entry = require_mapping(
                self.kind, value, f"dependency {name!r}", line=locate(text, json.dumps(name))
            )
            package = self._package_v1(name, entry)
            result.append(package)
            key_of[id(entry)] = package.key
            nested = entry.get("dependencies")
            inner = scopes
            if isinstance(nested, dict) and nested:
                inner = (nested, *scopes)
                stack.extend((inner, n, v) for n, v in reversed(list(nested.items())))
            requires = entry.get("requires")
            if isinstance(requires, dict):
                pending.append((package.key, inner, tuple(requires)))
        for from_key, scopes, names in pending:
            for dep_name in names:
                for scope in scopes:
                    found = scope.get(dep_name)
                    if isinstance(found, dict):
                        if id(found) in key_of:
                            edges.append((from_key, key_of[id(found)]))
                        break
        return ParsedLockfile(self.kind, self.ecosystem, tuple(result), dedupe_edges(edges), ())

    def _package_v1(self, key_name: str, entry: dict[str, Any]) -> LockedPackage:
        raw_version = entry.get("version") if isinstance(entry.get("version"), str) else None
        dev = bool(entry.get("dev"))
        requires = entry.get("requires")
        deps = tuple(requires) if isinstance(requires, dict) else ()
        name, version = key_name, raw_version
        if raw_version and raw_version.startswith("npm:"):
            name, version = split_npm_ident(raw_version[4:])
        resolved = entry.get("resolved") if isinstance(entry.get("resolved"), str) else None
        if version and _EXACT_VERSION.match(version):
            source = classify_npm_resolved(resolved) or "registry"
            if source == "registry":
                return registry_package(self.ecosystem, name, version, dev=dev, dependencies=deps)
        else:
            source = classify_npm_resolved(version) or classify_npm_resolved(resolved) or "unknown"
        where = redact_url(resolved or raw_version or "no version")
        return unresolved_package(
            self.ecosystem,
            name,
            version if version and _EXACT_VERSION.match(version) else None,
            reason=f"{source} source ({where}), not a registry version",
            source=source,
            requirement=redact_url(raw_version) if raw_version else None,
            dev=dev,
            dependencies=deps,
        )
