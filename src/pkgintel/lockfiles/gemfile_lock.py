"""
Bundler `Gemfile.lock` (also `gems.locked`).

Format: https://bundler.io/guides/gemfile_lock.html (sections `GIT`, `PATH`, `GEM`, `PLUGIN SOURCE`
with `specs:`, then `PLATFORMS`, `DEPENDENCIES`, `RUBY VERSION`, `BUNDLED WITH`, `CHECKSUMS`); parsed by a
line parser following Bundler's `LockfileParser` (spec lines `name (version[-platform])` at four spaces,
their dependencies at six).

- One package per distinct (name, version, source) of the `specs:`; platform variants
  (`nokogiri (1.16.0-x86_64-linux)`) are one package at the version before the first `-`.
- Direct = listed under `DEPENDENCIES`. A `DEPENDENCIES` name with no spec (a gem locked for no listed
  platform, e.g. `wdm` on Linux) is returned unresolved with its constraint. Groups are not recorded in
  the lock → `dev` None.
- `GIT` and `PATH` gems and plugin sources are unresolved; `GEM` remotes are registries.
- A spec line without a version (`    invalid-name`) is kept, unresolved with the reason and a warning
  naming its line: Bundler's own lockfile parser accepts the line (its version group is optional),
  and OSV-SCALIBR reads the file; the package is never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import (
    dedupe_edges,
    head,
    redact_url,
    registry_package,
    unresolved_package,
)
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_SOURCE_SECTIONS = ("GIT", "PATH", "GEM", "PLUGIN SOURCE", "SVN")
_SPEC = re.compile(r"^([^\s()!]+)(?: \(([^()]*)\))?(!)?$")
_SECTION_SOURCE = {"GEM": "registry", "GIT": "git", "PATH": "path"}
_SECTION = re.compile(r"^[A-Z][A-Z ]*$")


@dataclass(slots=True)
class _Spec:
    name: str
    version: str | None
    section: str
    options: dict[str, str]
    deps: list[str] = field(default_factory=list)


class GemfileLockParser:
    """Bundler `Gemfile.lock`."""

    kind: ClassVar[str] = "Gemfile.lock"
    filenames: ClassVar[tuple[str, ...]] = ("Gemfile.lock", "gems.locked")
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.gemfile.lock",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.RUBYGEMS

    def sniff(self, text: str) -> bool:
        """A Bundler section header (`GEM`, `GIT`, `PATH`) followed by `remote:` and `specs:`."""
        lines = head(text).splitlines()
        return (
            bool(lines)
            and lines[0].strip() in _SOURCE_SECTIONS
            and any(line.startswith("  remote: ") for line in lines[:6])
        ) or ("\nDEPENDENCIES\n" in text[:65536] and "  specs:\n" in head(text))

    def parse(self, text: str) -> ParsedLockfile:
        """Gems of a Gemfile.lock; `LockfileError` on the first line that does not fit the format."""
        specs: list[_Spec] = []
        dependencies: dict[str, str | None] = {}
        section: str | None = None
        options: dict[str, str] = {}
        in_specs = False
        warnings: list[str] = []
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.rstrip()
            if not line:
                continue
            if not line.startswith(" "):
                if not _SECTION.match(line):
                    raise LockfileError(
                        self.kind, f"unexpected section header {line!r}", line=number
                    )
                section, options, in_specs = line, {}, False
                continue
            if section is None:
                raise LockfileError(self.kind, "content before any section", line=number)
            indent = len(line) - len(line.lstrip(" "))
            content = line.strip()
            if section in _SOURCE_SECTIONS:
                if indent == 2 and content == "specs:":
                    in_specs = True
                elif indent == 2 and ":" in content and not in_specs:
                    key, _, value = content.partition(":")
                    options[key.strip()] = value.strip()
                elif indent in (4, 6) and in_specs:
                    match = _SPEC.match(content)
                    if match is None:
                        raise LockfileError(self.kind, f"malformed spec {content!r}", line=number)
                    if indent == 4:
                        version = match.group(2) or None
                        if version is None:
                            warnings.append(
                                f"line {number}: spec {match.group(1)!r} names no version; "
                                "kept unresolved"
                            )
                        specs.append(_Spec(match.group(1), version, section, dict(options)))
                    elif not specs or specs[-1].section != section:
                        raise LockfileError(self.kind, "dependency outside of a spec", line=number)
                    else:
                        specs[-1].deps.append(match.group(1))
                else:
                    raise LockfileError(
                        self.kind, f"unexpected line in {section} section", line=number
                    )
            elif section == "DEPENDENCIES":
                match = _SPEC.match(content)
                if indent != 2 or match is None:
                    raise LockfileError(self.kind, f"malformed dependency {content!r}", line=number)
                dependencies[match.group(1)] = match.group(2)
            # PLATFORMS, RUBY VERSION, BUNDLED WITH, CHECKSUMS, ...: nothing to read
        return self._result(specs, dependencies, tuple(warnings))

    def _result(
        self, specs: list[_Spec], dependencies: dict[str, str | None], warnings: tuple[str, ...]
    ) -> ParsedLockfile:
        merged: dict[tuple[str, str, str], _Spec] = {}
        for spec in specs:
            version = spec.version.split("-", 1)[0] if spec.version else None
            key = (spec.name, version or "", spec.section)
            if key in merged:
                merged[key].deps.extend(d for d in spec.deps if d not in merged[key].deps)
            else:
                merged[key] = _Spec(spec.name, version, spec.section, spec.options, list(spec.deps))
        packages: list[LockedPackage] = [
            self._package(spec, spec.name in dependencies) for spec in merged.values()
        ]
        locked_names = {spec.name for spec in merged.values()}
        for name, constraint in dependencies.items():
            if name not in locked_names:
                packages.append(
                    unresolved_package(
                        self.ecosystem,
                        name,
                        None,
                        reason="declared in DEPENDENCIES but no spec is locked for it "
                        "(platform-specific or missing)",
                        source=None,
                        requirement=constraint,
                        direct=True,
                    )
                )
        by_name: dict[str, list[str]] = {}
        for package in packages:
            by_name.setdefault(package.name, []).append(package.key)
        edges = [
            (package.key, target)
            for package in packages
            for dep in package.dependencies
            for target in by_name.get(dep, ())
        ]
        return ParsedLockfile(
            self.kind, self.ecosystem, tuple(packages), dedupe_edges(edges), warnings
        )

    def _package(self, spec: _Spec, direct: bool) -> LockedPackage:
        deps = tuple(spec.deps)
        remote = redact_url(spec.options.get("remote", ""))
        if spec.version is None:
            return unresolved_package(
                self.ecosystem,
                spec.name,
                None,
                reason=f"the {spec.section} spec line names no version",
                source=_SECTION_SOURCE.get(spec.section, spec.section.lower().replace(" ", "-")),
                requirement=remote or None,
                direct=direct,
                dependencies=deps,
            )
        if spec.section == "GEM":
            return registry_package(
                self.ecosystem, spec.name, spec.version, direct=direct, dependencies=deps
            )
        if spec.section == "GIT":
            revision = spec.options.get("revision")
            where = remote + (f"@{revision}" if revision else "")
            source, what = "git", f"git source {where}"
        elif spec.section == "PATH":
            where = remote
            source, what = "path", f"local path {remote!r}"
        else:
            where = remote
            source, what = spec.section.lower().replace(" ", "-"), f"{spec.section} {remote}"
        return unresolved_package(
            self.ecosystem,
            spec.name,
            spec.version,
            reason=f"{what}, not a registry version",
            source=source,
            requirement=where or None,
            direct=direct,
            dependencies=deps,
        )
