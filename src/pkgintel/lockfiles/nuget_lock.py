"""
NuGet `packages.lock.json` (lock file version 1 and 2).

Format: https://learn.microsoft.com/nuget/consume-packages/package-references-in-project-files#locking-dependencies
(JSON: `dependencies: {target framework[/runtime]: {package: {type, requested, resolved, contentHash,
dependencies}}}`).

- One package per distinct (name, resolved version) across all target frameworks; NuGet names compare
  case-insensitively.
- `type` says it: `Direct` → direct; `Transitive`/`CentralTransitive` → not direct (direct when it is
  `Direct` under any framework). `Project` entries are other projects of the solution: unresolved `path`.
- NuGet has no dev dependencies in the lock (PrivateAssets is not recorded) → `dev` None.
"""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    dedupe_edges,
    head,
    line_of,
    load_json,
    locate,
    registry_package,
    require_mapping,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_TYPE = re.compile(r'"type"\s*:\s*"(?:Direct|Transitive|CentralTransitive|Project)"')


class NugetLockParser:
    """NuGet `packages.lock.json`."""

    kind: ClassVar[str] = "packages.lock.json"
    filenames: ClassVar[tuple[str, ...]] = ("packages.lock.json",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.packages.lock.json", "packages.*.lock.json")
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NUGET

    def sniff(self, text: str) -> bool:
        """A JSON object with `version` and `dependencies` whose entries have NuGet's `type` values."""
        start = head(text)
        return (
            start.lstrip().startswith("{")
            and '"dependencies"' in start
            and bool(_TYPE.search(start))
            and '"lockfileVersion"' not in start
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a packages.lock.json; `LockfileError` for invalid JSON or an unexpected shape."""
        data = require_mapping(self.kind, load_json(self.kind, text), "the document", line=1)
        if "dependencies" not in data:
            raise LockfileError(self.kind, 'no "dependencies"', line=1)
        lock_version = data.get("version")
        if lock_version not in (1, 2):
            # NuGet writes version 1 or 2 (central package management); anything else — 0
            # included — is not a lock file NuGet (or the peers) would read.
            raise LockfileError(
                self.kind,
                f"unsupported lock file version {lock_version!r} (NuGet writes 1 or 2)",
                line=line_of(text, '"version"') or 1,
            )
        frameworks = require_mapping(
            self.kind, data["dependencies"], '"dependencies"', line=locate(text, '"dependencies"')
        )
        merged: dict[tuple[str, str], dict[str, Any]] = {}
        order: list[tuple[str, str]] = []
        for framework, value in frameworks.items():
            packages = require_mapping(
                self.kind, value, f"target {framework!r}", line=locate(text, json.dumps(framework))
            )
            for name, raw in packages.items():
                where = locate(text, json.dumps(name))
                entry = require_mapping(self.kind, raw, f"package {name!r}", line=where)
                kind = entry.get("type")
                resolved = entry.get("resolved")
                if kind != "Project" and not isinstance(resolved, str):
                    raise LockfileError(
                        self.kind, f"package {name!r} has no resolved version", line=where()
                    )
                version = resolved if isinstance(resolved, str) else ""
                key = (name.lower(), version)
                if key not in merged:
                    merged[key] = {"name": name, "version": version, "types": set(), "deps": {}}
                    order.append(key)
                merged[key]["types"].add(kind)
                if isinstance(entry.get("requested"), str):
                    merged[key]["requested"] = entry["requested"]
                if isinstance(entry.get("dependencies"), dict):
                    merged[key]["deps"].update(entry["dependencies"])
        result: list[LockedPackage] = [self._package(merged[key]) for key in order]
        by_name: dict[str, list[LockedPackage]] = {}
        for package in result:
            by_name.setdefault(package.name.lower(), []).append(package)
        edges: list[tuple[str, str]] = []
        for key, package in zip(order, result, strict=True):
            for dep_name, dep_version in merged[key]["deps"].items():
                candidates = by_name.get(str(dep_name).lower(), [])
                exact = [c for c in candidates if c.version == dep_version] or candidates
                edges.extend((package.key, c.key) for c in exact)
        return ParsedLockfile(self.kind, self.ecosystem, tuple(result), dedupe_edges(edges), ())

    def _package(self, item: dict[str, Any]) -> LockedPackage:
        types: set[Any] = item["types"]
        deps = tuple(str(d) for d in item["deps"])
        if "Project" in types:
            return unresolved_package(
                self.ecosystem,
                item["name"],
                item["version"] or None,
                reason="project reference within the solution, not a registry package",
                source="path",
                direct="Direct" in types or None,
                dependencies=deps,
            )
        return registry_package(
            self.ecosystem,
            item["name"],
            item["version"],
            direct="Direct" in types,
            dependencies=deps,
        )
