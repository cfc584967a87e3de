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
- A line that is not a module coordinate (a stray `>>>` of a merge, a fragment) is skipped with a
  warning naming its line, as OSV-Scanner reads such a file; the modules around it are still
  audited. A file with no module line at all but such lines is not a Gradle lock: `LockfileError`
  at its first bad line.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import head, registry_package
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile

_BANNER = "# This is a Gradle generated file for dependency locking."
_WARNED_LINES = 20
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
        """Modules of a Gradle lockfile; malformed lines are skipped with a warning (see above)."""
        packages: list[LockedPackage] = []
        bad: list[int] = []
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#") or line.startswith("empty="):
                continue
            match = _COORDINATE.match(line)
            if match is None:
                bad.append(number)
                continue
            group, artifact, version, configurations = match.groups()
            dev: bool | None = None
            if configurations is not None:
                names = [c for c in configurations.split(",") if c]
                dev = all(_is_test_configuration(c) for c in names) if names else None
            packages.append(
                registry_package(self.ecosystem, f"{group}:{artifact}", version, dev=dev)
            )
        if bad and not packages:
            raise LockfileError(
                self.kind, "expected 'group:artifact:version=configurations'", line=bad[0]
            )
        return ParsedLockfile(self.kind, self.ecosystem, tuple(packages), (), _skipped(bad))


def _skipped(lines: list[int]) -> tuple[str, ...]:
    """One warning per skipped line (the first `_WARNED_LINES`), then one counting the rest."""
    shown = [
        f"line {n} skipped: not a 'group:artifact:version=configurations' entry"
        for n in lines[:_WARNED_LINES]
    ]
    if len(lines) > _WARNED_LINES:
        shown.append(f"{len(lines) - _WARNED_LINES} more lines skipped the same way")
    return tuple(shown)
