"""
Pipenv `Pipfile.lock` (pipfile-spec 6).

Format: https://pipenv.pypa.io/en/latest/pipfile.html#pipfile-lock (JSON: `_meta`, `default`, `develop`).

- One package per distinct (name, version) across `default` and `develop`; a package present in both is
  one package, not dev.
- `dev`: `develop` only → True, `default` → False.
- `direct`: both sections hold the whole resolved set, the file does not say which were asked for → None.
- The lock has no dependency graph (no edges).
- `version` is `==X` (or `===X`); entries with `git`, `path`, `file` or no version are unresolved.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    head,
    load_json,
    locate,
    none_to,
    redact_url,
    registry_package,
    require_mapping,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_SECTIONS = (("default", False), ("develop", True))


class PipfileLockParser:
    """Pipenv `Pipfile.lock`."""

    kind: ClassVar[str] = "Pipfile.lock"
    filenames: ClassVar[tuple[str, ...]] = ("Pipfile.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.pipfile.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI

    def sniff(self, text: str) -> bool:
        """A JSON object whose `_meta` carries Pipenv's `pipfile-spec` (or `default`/`develop` sections)."""
        start = head(text)
        return (
            start.lstrip().startswith("{")
            and '"_meta"' in start
            and ('"pipfile-spec"' in start or '"default"' in start or '"develop"' in start)
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a Pipfile.lock; `LockfileError` for invalid JSON or an unexpected shape."""
        data = require_mapping(self.kind, load_json(self.kind, text), "the document", line=1)
        if not any(section in data for section, _ in _SECTIONS):
            raise LockfileError(self.kind, 'neither "default" nor "develop" is present', line=1)
        merged: dict[tuple[str, str], tuple[str, dict[str, Any], bool]] = {}
        for section, is_dev in _SECTIONS:
            raw = none_to(data.get(section), {})
            entries = require_mapping(
                self.kind, raw, f'"{section}"', line=locate(text, json.dumps(section))
            )
            for name, value in entries.items():
                entry = require_mapping(
                    self.kind,
                    value,
                    f"{section} entry {name!r}",
                    line=locate(text, json.dumps(name)),
                )
                version = _v if isinstance(_v := entry.get("version"), str) else ""
                key = (name.lower(), version)
                if key in merged:
                    merged[key] = (merged[key][0], merged[key][1], merged[key][2] and is_dev)
                else:
                    merged[key] = (name, entry, is_dev)
        packages = tuple(self._package(n, e, d) for n, e, d in merged.values())
        return ParsedLockfile(self.kind, self.ecosystem, packages, (), ())

    def _package(self, name: str, entry: dict[str, Any], dev: bool) -> LockedPackage:
        version = entry.get("version") if isinstance(entry.get("version"), str) else None
        if "git" in entry:
            ref = entry.get("ref")
            where = redact_url(str(entry["git"])) + (f"@{ref}" if ref else "")
            return unresolved_package(
                self.ecosystem,
                name,
                None,
                reason=f"git source {where}",
                source="git",
                requirement=where,
                dev=dev,
            )
        for field, source in (("path", "path"), ("file", "url")):
            if field in entry:
                where = redact_url(str(entry[field]))
                return unresolved_package(
                    self.ecosystem,
                    name,
                    None,
                    reason=f"{field} source {where!r}",
                    source=source,
                    requirement=where,
                    dev=dev,
                )
        if version and version.startswith("==") and "*" not in version:
            return registry_package(self.ecosystem, name, version.lstrip("="), dev=dev)
        return unresolved_package(
            self.ecosystem,
            name,
            None,
            reason="no pinned version" if not version else f"version {version!r} is not a pin",
            source="registry",
            requirement=version or None,
            dev=dev,
        )
