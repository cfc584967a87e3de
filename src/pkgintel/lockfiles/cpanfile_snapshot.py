"""
Carton `cpanfile.snapshot` (snapshot format version 1.0).

Format: Carton's snapshot parser and emitter (`Carton::Snapshot::Parser`/`Emitter`,
https://github.com/perl-carton/carton, and the `carton` documentation on MetaCPAN): a text file

    # carton snapshot format: version 1.0
    DISTRIBUTIONS
      Plack-1.0050
        pathname: M/MI/MIYAGAWA/Plack-1.0050.tar.gz
        provides:
          Plack 1.0050
        requirements:
          HTTP::Message 5.814

with distributions at two spaces, their `pathname`/`provides`/`requirements` keys at four and the
`Module version` pairs at six. Like Carton, any other line (an unknown key, a tab, a missing header
or another format version) is an error naming its line.

Reading:

- One package per distribution: the CPAN package name is the *distribution* (`Plack`,
  `libwww-perl`), as the CPAN adapter and `normalise_name` key it; the version is the distribution's
  release version. Both come from the `pathname` file name (`Plack-1.0050.tar.gz`, read the way
  CPAN::DistnameInfo does: the part after the last `-` that starts with a digit or `v` and a digit
  is the version), else from the entry name (`Plack-1.0050`). A name with no such version is an error:
  a version is never invented.
- A `pathname` in the CPAN author layout (`M/MI/MIYAGAWA/...`) is a registry release; any other
  pathname (a local or DarkPAN path, a URL) is unresolved `url`.
- `requirements` name modules; a module `provides`d by another distribution of the snapshot is an
  edge to it. The `perl` pseudo-module is left out; modules no distribution provides (core modules)
  stay listed by name in `dependencies`. The snapshot does not say which distributions the cpanfile
  names, nor the phase → `direct` and `dev` None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
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

_HEADER = re.compile(r"^# carton snapshot format: version (\S+)\s*$")
_DIST = re.compile(r"^  (\S+)$")
_KEY = re.compile(r"^    (pathname|provides|requirements):(?: (.*))?$")
_PAIR = re.compile(r"^      (\S+) (\S+)$")
_VERSION = re.compile(r"^v?\d[\w.]*$")
_ARCHIVE = re.compile(r"\.(?:tar\.gz|tar\.bz2|tar\.xz|tgz|tbz|zip|tar)$", re.IGNORECASE)
_AUTHOR_PATH = re.compile(r"^[A-Z]/[A-Z]{2}/[A-Z][A-Z0-9-]*/\S+$")


@dataclass(slots=True)
class _Dist:
    entry: str
    line: int
    pathname: str | None = None
    provides: dict[str, str] = field(default_factory=dict)
    requirements: dict[str, str] = field(default_factory=dict)


def split_distname(text: str) -> tuple[str, str] | None:
    """(distribution, version) of `Dist-Name-1.23` (an archive suffix and `-TRIAL` ignored), or None
    when it does not end in a version."""
    base = _ARCHIVE.sub("", text.rsplit("/", 1)[-1])
    base = re.sub(r"-TRIAL\d*$", "", base)
    name, sep, version = base.rpartition("-")
    if not sep or not name or not _VERSION.match(version):
        return None
    return name, version


class CpanfileSnapshotParser:
    """Carton `cpanfile.snapshot`."""

    kind: ClassVar[str] = "cpanfile.snapshot"
    filenames: ClassVar[tuple[str, ...]] = ("cpanfile.snapshot",)
    filename_patterns: ClassVar[tuple[str, ...]] = ("*.cpanfile.snapshot",)
    ecosystem: ClassVar[Ecosystem] = Ecosystem.CPAN

    def sniff(self, text: str) -> bool:
        """Carton's header line, or a `DISTRIBUTIONS` section with `pathname:` keys."""
        start = head(text)
        return start.startswith("# carton snapshot format:") or (
            start.startswith("DISTRIBUTIONS\n") and "\n    pathname: " in start
        )

    def parse(self, text: str) -> ParsedLockfile:
        """Distributions of a cpanfile.snapshot; `LockfileError` on the first line that does not
        fit the format."""
        dists: list[_Dist] = []
        state = "init"  # init → section → dists → dist → pairs
        pairs: dict[str, str] | None = None
        for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
            line = raw.rstrip()
            if not line:
                continue
            if state == "init":
                match = _HEADER.match(line)
                if match is None:
                    raise LockfileError(
                        self.kind, "expected '# carton snapshot format: version 1.0'", line=number
                    )
                if match.group(1) != "1.0":
                    raise LockfileError(
                        self.kind,
                        f"snapshot format version {match.group(1)!r} is not supported (1.0 is)",
                        line=number,
                    )
                state = "section"
                continue
            if line.startswith("#"):
                continue
            if line == "DISTRIBUTIONS" and state == "section":
                state = "dists"
                continue
            if state == "section":
                raise LockfileError(self.kind, f"unexpected line {line[:80]!r}", line=number)
            if (dist := _DIST.match(line)) is not None:
                dists.append(_Dist(dist.group(1), number))
                state, pairs = "dist", None
                continue
            if state == "dists":
                raise LockfileError(self.kind, "expected a distribution name", line=number)
            current = dists[-1]
            if (key := _KEY.match(line)) is not None:
                name, value = key.group(1), key.group(2)
                if name == "pathname":
                    if not value or not value.strip():
                        raise LockfileError(self.kind, "empty pathname", line=number)
                    current.pathname, pairs = value.strip(), None
                elif value:
                    raise LockfileError(self.kind, f"{name}: takes no value", line=number)
                else:
                    pairs = current.provides if name == "provides" else current.requirements
                continue
            if (pair := _PAIR.match(line)) is not None and pairs is not None:
                pairs[pair.group(1)] = pair.group(2)
                continue
            raise LockfileError(
                self.kind, f"unexpected line in distribution {current.entry!r}", line=number
            )
        if state == "init":
            raise LockfileError(self.kind, "no carton snapshot header", line=1)
        return self._result(dists)

    def _result(self, dists: list[_Dist]) -> ParsedLockfile:
        packages = [self._package(dist) for dist in dists]
        provider: dict[str, LockedPackage] = {}
        for package, dist in zip(packages, dists, strict=True):
            for module in dist.provides:
                provider.setdefault(module, package)
        edges: list[tuple[str, str]] = []
        finished: list[LockedPackage] = []
        for package, dist in zip(packages, dists, strict=True):
            names: dict[str, None] = {}
            for module in dist.requirements:
                if module == "perl":
                    continue
                target = provider.get(module)
                names[target.name if target is not None else module] = None
                if target is not None:
                    edges.append((package.key, target.key))
            finished.append(replace(package, dependencies=tuple(names)))
        return ParsedLockfile(self.kind, self.ecosystem, tuple(finished), dedupe_edges(edges), ())

    def _package(self, dist: _Dist) -> LockedPackage:
        if dist.pathname is None:
            raise LockfileError(
                self.kind, f"distribution {dist.entry!r} has no pathname", line=dist.line
            )
        split = split_distname(dist.pathname) or split_distname(dist.entry)
        if split is None:
            raise LockfileError(
                self.kind,
                f"distribution {dist.entry!r} does not end in -<version>",
                line=dist.line,
            )
        name, version = split
        if _AUTHOR_PATH.match(dist.pathname):
            return registry_package(self.ecosystem, name, version)
        where = redact_url(dist.pathname)
        return unresolved_package(
            self.ecosystem,
            name,
            version,
            reason=f"pathname {where!r} is not a CPAN author path, not a registry release",
            source="url",
            requirement=where,
        )
