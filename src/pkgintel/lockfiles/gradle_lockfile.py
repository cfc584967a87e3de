"""
Gradle dependency lock state: `gradle.lockfile` (Gradle ≥ 6, one file per project, also
`buildscript-gradle.lockfile` and `settings-gradle.lockfile`) and the older per-configuration
`gradle/dependency-locks/<configuration>.lockfile`.

Format: https://docs.gradle.org/current/userguide/dependency_locking.html — one line per module,
`group:artifact:version=configuration1,configuration2`, plus `empty=configurations` and `#` comments
(the per-configuration files have no `=...` part).

- One package per line (Maven coordinates; the ecosystem is `maven`).
- `dev`: configurations named `test...` (testCompileClasspath, testRuntimeClasspath, ...) are test-only
  → dev True when every configuration of the line is a test configuration, False when any is not; None
  for per-configuration files, which do not name the configuration inside the file.
- `direct`: a lock records the resolved graph, not the declarations → None.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import head, registry_package
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_BANNER = "# This is a Gradle generated file for dependency locking."
_COORDINATE = re.compile(r"^([^:\s=]+):([^:\s=]+):([^:\s=]+)(?:=([^\s]*))?$")


def _is_test_configuration(name: str) -> bool:
    return name.startswith("test") or name.endswith(
        ("TestCompileClasspath", "TestRuntimeClasspath")
    )


class GradleLockfileParser:
    """Gradle `gradle.lockfile`."""

    kind: ClassVar[str] = "gradle.lockfile"
    filenames: ClassVar[tuple[str, ...]] = (
        "gradle.lockfile",
        "buildscript-gradle.lockfile",
        "settings-gradle.lockfile",
    )
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.lockfile", "*-gradle.lockfile")
    ecosystem: ClassVar[Ecosystem] = Ecosystem.MAVEN

    def sniff(self, text: str) -> bool:
        """Gradle's banner, or lines of `group:artifact:version=configurations` (and `empty=`)."""
        start = head(text)
        if _BANNER in start:
            return True
        lines = [ln.strip() for ln in start.splitlines() if ln.strip() and not ln.startswith("#")]
        lines = lines[:-1] if len(text) > len(start) else lines
        return bool(lines) and all(
            ln.startswith("empty=") or (_COORDINATE.match(ln) is not None and "=" in ln)
            for ln in lines[:20]
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Modules of a Gradle lockfile; `LockfileError` on the first malformed line."""
        packages: list[LockedPackage] = []
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("empty="):
                continue
            match = _COORDINATE.match(line)
            if match is None:
                raise LockfileError(
                    self.kind, "expected 'group:artifact:version=configurations'", line=number
                )
            group, artifact, version, configurations = match.groups()
            dev: bool | None = None
            if configurations is not None:
                names = [c for c in configurations.split(",") if c]
                dev = all(_is_test_configuration(c) for c in names) if names else None
            packages.append(
                registry_package(self.ecosystem, f"{group}:{artifact}", version, dev=dev)
            )
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), (), ())
