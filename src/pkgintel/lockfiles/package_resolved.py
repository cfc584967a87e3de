"""
SwiftPM `Package.resolved` (format versions 1, 2 and 3).

Format: SwiftPM's pins store (`Sources/PackageGraph/PinsStore.swift` and its `ResolvedPackagesStore`
successor in https://github.com/swiftlang/swift-package-manager): JSON.

- Version 1: `{"object": {"pins": [{package, repositoryURL, state: {branch, revision, version}}]},
  "version": 1}`.
- Versions 2 and 3: `{"pins": [{identity, kind, location, state: {revision, version?, branch?}}],
  "version": 2|3}`; version 3 adds the top-level `originHash`. `kind` is `remoteSourceControl`,
  `localSourceControl` or `registry`.

Reading:

- The package name is the pin's repository location as the Swift adapter keys it
  (`normalise_name`: `https://github.com/Apple/swift-nio.git` → `github.com/apple/swift-nio`), after
  removing any credentials from the URL. SwiftPM's own `package`/`identity` label is not the name.
- A remote pin with a `state.version` is resolved: Swift versions are the repository's SemVer tags,
  which is what the Swift adapter reads. Source `git`.
- A pin with only a `branch` and/or `revision` has no version: it is unresolved with the branch and
  revision as its requirement — no version is derived from them.
- `localSourceControl` pins (and version-1 pins whose URL is a local path) are unresolved `path`
  entries; `registry` pins (a package-registry identity `scope.name`, not a repository URL) are
  unresolved `registry` entries, since the Swift adapter knows packages only by repository URL.
- The file records neither the dependency graph nor which pins the manifest names: no edges,
  `direct` and `dev` None.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar

from pkgintel.domain.errors import InvalidInput, LockfileError
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    head,
    load_json,
    locate,
    redact_url,
    registry_package,
    require_mapping,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_PINS = re.compile(r'"pins"\s*:')
_LOCAL = ("/", "./", "../", "~/", "file:")
_KNOWN_VERSIONS = (1, 2, 3)


def _text(value: Any) -> str | None:
    """A non-empty string field, else None (JSON `null`, absent, or another type)."""
    return value if isinstance(value, str) and value.strip() else None


class PackageResolvedParser:
    """SwiftPM `Package.resolved`."""

    kind: ClassVar[str] = "Package.resolved"
    filenames: ClassVar[tuple[str, ...]] = ("Package.resolved",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.Package.resolved",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.SWIFT

    def sniff(self, text: str) -> bool:
        """A JSON object with `pins` whose entries carry `repositoryURL` (v1) or `identity` and
        `location` (v2/v3)."""
        start = head(text)
        return (
            start.lstrip().startswith("{")
            and bool(_PINS.search(start))
            and ('"repositoryURL"' in start or ('"identity"' in start and '"location"' in start))
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Pins of a Package.resolved; `LockfileError` for invalid JSON or an unexpected shape."""
        data = require_mapping(self.kind, load_json(self.kind, text), "the document", line=1)
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise LockfileError(self.kind, '"version" must be an integer', line=1)
        where_pins = locate(text, '"pins"')
        if version == 1:
            holder = require_mapping(self.kind, data.get("object"), '"object"', line=1)
            pins = holder.get("pins")
        else:
            pins = data.get("pins")
        if not isinstance(pins, list):
            raise LockfileError(self.kind, '"pins" must be an array', line=where_pins())
        warnings: tuple[str, ...] = ()
        if version not in _KNOWN_VERSIONS:
            warnings = (
                f"Package.resolved version {version} is newer than the versions read here "
                "(1-3); its pins were read with the version 2/3 layout",
            )
        packages: list[LockedPackage] = []
        for index, pin in enumerate(pins):
            entry = require_mapping(self.kind, pin, f"pins[{index}]", line=where_pins)
            packages.append(self._pin(text, index, entry, legacy=version == 1))
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), (), warnings)

    def _pin(self, text: str, index: int, pin: dict[str, Any], *, legacy: bool) -> LockedPackage:
        url_key = "repositoryURL" if legacy else "location"
        label = _text(pin.get("package" if legacy else "identity"))
        location = _text(pin.get(url_key))
        where = locate(text, location) if location else locate(text, '"pins"')
        state = require_mapping(self.kind, pin.get("state"), f"pins[{index}].state", line=where)
        pin_kind = None if legacy else _text(pin.get("kind"))
        version = _text(state.get("version"))
        branch, revision = _text(state.get("branch")), _text(state.get("revision"))
        if pin_kind == "registry":
            name = label or location
            if name is None:
                raise LockfileError(self.kind, f"pins[{index}] has no identity", line=where())
            return unresolved_package(
                self.ecosystem,
                name,
                version,
                reason="a Swift package-registry identity, not a repository URL "
                "(Swift packages are known here by repository URL)",
                source="registry",
                requirement=version,
            )
        if location is None:
            raise LockfileError(self.kind, f'pins[{index}] has no "{url_key}"', line=where())
        clean = redact_url(location.strip())
        if pin_kind == "localSourceControl" or (
            pin_kind is None and clean.lower().startswith(_LOCAL)
        ):
            return unresolved_package(
                self.ecosystem,
                label or clean,
                version,
                reason=f"local repository {clean!r}, not a published package",
                source="path",
                requirement=clean,
            )
        if pin_kind not in (None, "remoteSourceControl"):
            return unresolved_package(
                self.ecosystem,
                label or clean,
                version,
                reason=f"pin kind {pin_kind!r} is not read",
                source=pin_kind,
                requirement=clean,
            )
        return self._remote(clean, version, branch, revision, where)

    def _remote(
        self,
        url: str,
        version: str | None,
        branch: str | None,
        revision: str | None,
        where: Callable[[], int | None],
    ) -> LockedPackage:
        name = normalise_name(self.ecosystem, url)
        try:
            validate_name(self.ecosystem, name)
        except InvalidInput:
            return unresolved_package(
                self.ecosystem,
                url,
                version,
                reason=f"{url!r} is not a repository URL the Swift adapter can key",
                source="git",
                requirement=url,
            )
        if version is not None:
            return registry_package(self.ecosystem, name, version, source="git")
        if branch is None and revision is None:
            raise LockfileError(
                self.kind, f"pin {url!r} has no version, branch or revision", line=where()
            )
        pinned = " at ".join(
            part
            for part in (
                f"branch {branch}" if branch else None,
                revision and f"revision {revision}",
            )
            if part
        )
        return unresolved_package(
            self.ecosystem,
            name,
            None,
            reason=f"pinned to {pinned}, not to a version tag",
            source="git",
            requirement=f"{url}@{branch or revision}",
        )
