"""
`pylock.toml` (PEP 751 lock files, `lock-version = "1.0"`; also named `pylock.<name>.toml`).

Format: https://packaging.python.org/en/latest/specifications/pylock-toml/

- One package per `[[packages]]` table.
- A package with a `version` and index distributions (`sdist`/`wheels`/`index`) is resolved. `vcs`
  entries are unresolved `git`, `directory` entries `path`, `archive` entries `url` (or `path` for a
  local archive).
- `direct`/`dev`: the format does not record them (groups only appear inside markers) → None.
- Edges come from the optional `packages.dependencies` references.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    array_of_tables,
    dedupe_edges,
    head,
    load_toml,
    redact_url,
    registry_package,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_LOCK_VERSION = re.compile(r'^lock-version\s*=\s*"', re.MULTILINE)


def _norm(name: str) -> str:
    return normalise_name(Ecosystem.PYPI, name)


class PylockParser:
    """PEP 751 `pylock.toml`."""

    kind: ClassVar[str] = "pylock.toml"
    filenames: ClassVar[tuple[str, ...]] = ("pylock.toml",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("pylock.*.toml",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI

    def sniff(self, text: str) -> bool:
        """A top-level `lock-version = "..."` with `[[packages]]` tables (plural, unlike Poetry/uv)."""
        start = head(text)
        return bool(_LOCK_VERSION.search(start)) and (
            "[[packages]]" in text or "created-by" in start
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a pylock.toml; `LockfileError` for invalid TOML or a package without a name."""
        data = load_toml(self.kind, text)
        if "lock-version" not in data:
            raise LockfileError(self.kind, 'no "lock-version"', line=1)
        packages: list[LockedPackage] = []
        by_name: dict[str, list[int]] = {}
        raw_deps: list[list[dict[str, Any]]] = []
        warnings: list[str] = []
        for table, line in array_of_tables(self.kind, text, data, "packages"):
            name = table.get("name")
            if not isinstance(name, str) or not name:
                raise LockfileError(self.kind, "[[packages]] without a name", line=line)
            directory = table.get("directory")
            if isinstance(directory, dict) and str(directory.get("path", "")).strip() in (
                ".",
                "./",
            ):
                # The project's own package (installed from ".") is what is audited.
                warnings.append(f"the project's own package {name!r} is left out")
                continue
            deps = [d for d in table.get("dependencies", []) if isinstance(d, dict)]
            raw_deps.append(deps)
            by_name.setdefault(_norm(name), []).append(len(packages))
            packages.append(self._package(table, name, deps))
        edges: list[tuple[str, str]] = []
        for index, deps in enumerate(raw_deps):
            for dep in deps:
                dep_name = dep.get("name")
                if not isinstance(dep_name, str):
                    continue
                found = by_name.get(_norm(dep_name), [])
                if isinstance(dep.get("version"), str):
                    found = [i for i in found if packages[i].version == dep["version"]] or found
                edges.extend((packages[index].key, packages[i].key) for i in found)
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), tuple(warnings)
        )

    def _package(
        self, table: dict[str, Any], name: str, deps: list[dict[str, Any]]
    ) -> LockedPackage:
        version = table.get("version") if isinstance(table.get("version"), str) else None
        dep_names = tuple(str(d["name"]) for d in deps if isinstance(d.get("name"), str))
        vcs, directory, archive = table.get("vcs"), table.get("directory"), table.get("archive")
        if isinstance(vcs, dict):
            url = redact_url(str(vcs.get("url") or vcs.get("path") or ""))
            commit = vcs.get("commit-id") or vcs.get("requested-revision")
            where = url + (f"@{commit}" if commit else "")
            source, what = "git" if vcs.get("type", "git") == "git" else str(vcs.get("type")), where
        elif isinstance(directory, dict):
            where = str(directory.get("path", ""))
            source, what = "path", f"local directory {where!r}"
        elif isinstance(archive, dict):
            if archive.get("url"):
                where = redact_url(str(archive["url"]))
                source, what = "url", f"archive {where}"
            else:
                where = str(archive.get("path", ""))
                source, what = "path", f"local archive {where!r}"
        elif version and ("wheels" in table or "sdist" in table or "index" in table):
            return registry_package(self.ecosystem, name, version, dependencies=dep_names)
        else:
            where = ""
            source, what = "unknown", "no distribution source recorded"
        if source == "git":
            what = f"vcs source {what}"
        return unresolved_package(
            self.ecosystem,
            name,
            version,
            reason=f"{what}, not a registry version",
            source=source,
            requirement=where or None,
            dependencies=dep_names,
        )
