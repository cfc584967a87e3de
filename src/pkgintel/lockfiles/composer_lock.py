"""
Composer `composer.lock`.

Format: https://getcomposer.org/doc/01-basic-usage.md#commit-your-composer-lock-file-to-version-control
(JSON: `packages` and `packages-dev` arrays of package objects with `name`, `version`, `source`, `dist`,
`require`).

- One package per entry of `packages` (dev = False) and `packages-dev` (dev = True).
- `direct`: the lock does not carry the root's `require` → None.
- Branch versions (`dev-main`, `1.x-dev`) and `path` dist/source types are unresolved; Composer's
  `v` prefix is kept as written (`v1.3.0`).
- Edges from each package's `require`, platform requirements (`php`, `ext-*`, `lib-*`,
  `composer-*`) excluded.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    dedupe_edges,
    head,
    line_of,
    load_json,
    locate,
    none_to,
    redact_url,
    registry_package,
    require_mapping,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_SECTIONS = (("packages", False), ("packages-dev", True))


def _is_platform(name: str) -> bool:
    lowered = name.lower()
    return (
        lowered in ("php", "php-64bit", "php-ipv6", "php-zts", "php-debug", "hhvm", "composer")
        or lowered.startswith(("ext-", "lib-", "composer-"))
        or "/" not in lowered
    )


class ComposerLockParser:
    """Composer `composer.lock`."""

    kind: ClassVar[str] = "composer.lock"
    filenames: ClassVar[tuple[str, ...]] = ("composer.lock",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.composer.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.COMPOSER

    def sniff(self, text: str) -> bool:
        """A JSON object with Composer's `_readme`/`content-hash` and a `packages` array."""
        start = head(text)
        return (
            start.lstrip().startswith("{")
            and ('"content-hash"' in start or '"_readme"' in start)
            and '"packages"' in start
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Packages of a composer.lock; `LockfileError` for invalid JSON or an unexpected shape."""
        data = require_mapping(self.kind, load_json(self.kind, text), "the document", line=1)
        if not any(section in data for section, _ in _SECTIONS):
            raise LockfileError(
                self.kind, 'neither "packages" nor "packages-dev" is present', line=1
            )
        packages: list[LockedPackage] = []
        by_name: dict[str, str] = {}
        for section, dev in _SECTIONS:
            raw = none_to(data.get(section), [])
            if not isinstance(raw, list):
                raise LockfileError(
                    self.kind,
                    f'"{section}" must be an array',
                    line=line_of(text, json.dumps(section)),
                )
            for index, value in enumerate(raw):
                entry = require_mapping(
                    self.kind, value, f"{section}[{index}]", line=locate(text, json.dumps(section))
                )
                package = self._package(text, section, index, entry, dev)
                packages.append(package)
                by_name.setdefault(package.name.lower(), package.key)
        edges = [
            (package.key, by_name[dep.lower()])
            for package in packages
            for dep in package.dependencies
            if dep.lower() in by_name
        ]
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), ())

    def _package(
        self, text: str, section: str, index: int, entry: dict[str, Any], dev: bool
    ) -> LockedPackage:
        name, version = entry.get("name"), entry.get("version")
        if not isinstance(name, str) or not name:
            raise LockfileError(
                self.kind,
                f"{section}[{index}] has no name",
                line=line_of(text, json.dumps(section)),
            )
        if not isinstance(version, str) or not version:
            where = line_of(text, json.dumps(name))
            raise LockfileError(self.kind, f"package {name!r} has no version", line=where)
        require = entry.get("require")
        deps = tuple(d for d in require if not _is_platform(d)) if isinstance(require, dict) else ()
        dist = _v if isinstance(_v := entry.get("dist"), dict) else {}
        source = _v if isinstance(_v := entry.get("source"), dict) else {}
        if dist.get("type") == "path" or source.get("type") == "path":
            location = str(dist.get("url") or source.get("url") or "")
            return unresolved_package(
                self.ecosystem,
                name,
                None,
                reason=f"local path {location!r}, not a registry version",
                source="path",
                requirement=version,
                dev=dev,
                dependencies=deps,
            )
        if version.startswith("dev-") or version.endswith("-dev"):
            reference = source.get("reference") or dist.get("reference")
            url = redact_url(str(source.get("url") or dist.get("url") or ""))
            what = f"branch {version!r}" + (f" of {url}" if url else "")
            what += f" at {reference}" if reference else ""
            return unresolved_package(
                self.ecosystem,
                name,
                None,
                reason=f"{what}, not a released version",
                source="git" if source.get("type") == "git" else "vcs",
                requirement=version,
                dev=dev,
                dependencies=deps,
            )
        return registry_package(self.ecosystem, name, version, dev=dev, dependencies=deps)
