"""
Go `go.sum` (module checksums).

Format: https://go.dev/ref/mod#go-sum-files — one line per `module version[/go.mod] hash`.

- One package per distinct (module path, version); the `/go.mod` hash line of a version is the same
  module version, not another package.
- go.sum is a checksum database, not a build list: it says nothing about direct/indirect or test-only
  use → `direct` and `dev` None; there are no edges. Versions that appear only with a `/go.mod` hash
  had their go.mod read during version selection; their code may not be part of the build. They are
  returned like the others, and a warning gives how many there are.
"""

from __future__ import annotations

from typing import ClassVar

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.lockfiles._support import HEAD, head, registry_package
from pkgintel.lockfiles.base import ParsedLockfile

_GO_MOD_SUFFIX = "/go.mod"


def _split(line: str) -> tuple[str, str, str] | None:
    fields = line.split()
    if len(fields) != 3:
        return None
    module, version, digest = fields
    algorithm, colon, value = digest.partition(":")
    if not version.startswith("v") or not colon or not algorithm or not value:
        return None
    return module, version, digest


class GoSumParser:
    """Go `go.sum`."""

    kind: ClassVar[str] = "go.sum"
    filenames: ClassVar[tuple[str, ...]] = ("go.sum", "go.work.sum")
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.go.sum",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.GO

    def sniff(self, text: str) -> bool:
        """The first lines all read `module vX.Y.Z[/go.mod] algo:hash`."""
        lines = head(text).splitlines()
        if len(text) > HEAD:
            lines = lines[:-1]  # the last line of the head may be cut
        lines = [line for line in lines if line.strip()][:20]
        return bool(lines) and all(_split(line) is not None for line in lines)

    def parse(self, text: str) -> ParsedLockfile:
        """Module versions of a go.sum; `LockfileError` on the first malformed line."""
        seen: dict[tuple[str, str], bool] = {}  # (module, version) → has a full (non-go.mod) hash
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.strip()
            if not line:
                continue
            parts = _split(line)
            if parts is None:
                raise LockfileError(
                    self.kind, "expected 'module version hash'", line=number, column=1
                )
            module, version, _ = parts
            go_mod_only = version.endswith(_GO_MOD_SUFFIX)
            version = version.removesuffix(_GO_MOD_SUFFIX)
            key = (module, version)
            seen[key] = seen.get(key, False) or not go_mod_only
        packages = tuple(
            registry_package(self.ecosystem, module, version) for module, version in seen
        )
        only_go_mod = sum(1 for full in seen.values() if not full)
        warnings = (
            (
                f"{only_go_mod} module versions appear only with a /go.mod hash: their go.mod was "
                "read during version selection, their code may not be in the build",
            )
            if only_go_mod
            else ()
        )
        return ParsedLockfile(self.kind, self.ecosystem, packages, (), warnings)
