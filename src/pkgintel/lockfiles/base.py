"""
The lockfile-parser contract: text in, package references out.

A parser is pure. It never reads files, never touches the network and never executes or fetches anything a
lockfile names (a `resolved` URL is data, not an instruction). It reports what the file states and nothing
more: when the file does not say whether a package is direct or dev-only the flag is `None`; when an entry
cannot be pinned to one registry version (a range, a git/path/URL source, a workspace member) it comes back
with `resolved=False` and a reason — it is never dropped and never guessed.

Malformed input raises `LockfileError(kind, message, line=..., column=...)` naming the position where
parsing failed (1-based line; column when known).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol

from pkgintel.domain.packages import Ecosystem


@dataclass(frozen=True, slots=True)
class LockedPackage:
    """
    One package entry of a lockfile or manifest.

    - `version`: the exact locked version, or None when the file has none (ranges, some git/path entries).
    - `direct`: True when the file says the project itself depends on it, False when the file says it
      does not; None when the format does not record it.
    - `dev`: True for development-only packages, False for packages needed at run time; None when the
      format does not say.
    - `purl`: package URL of a resolved registry package; None for unresolved entries.
    - `resolved` / `unresolved_reason`: False plus a human-readable reason when the entry is not one exact
      registry version (range, git, path, URL, workspace, include...).
    - `requirement`: the declared range or reference when unresolved (e.g. `>=1,<2`, `-r other.txt`).
    - `source`: where the package comes from: `registry`, `git`, `path`, `url`, `workspace`, `sdk`,
      `patch`, `include`, ... (None when the file does not say).
    - `dependencies`: names of its own dependencies, as declared in the file (empty when not recorded).
    """

    ecosystem: Ecosystem
    name: str
    version: str | None
    direct: bool | None = None
    dev: bool | None = None
    purl: str | None = None
    resolved: bool = True
    unresolved_reason: str | None = None
    requirement: str | None = None
    source: str | None = None
    dependencies: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """Identity used in `ParsedLockfile.edges`: the purl when there is one, else `name@version`/`name`."""
        if self.purl:
            return self.purl
        if self.version:
            return f"{self.name}@{self.version}"
        return self.name


@dataclass(frozen=True, slots=True)
class ParsedLockfile:
    """
    The result of parsing one lockfile.

    `edges` are (from `LockedPackage.key`, to `LockedPackage.key`) pairs for dependencies the file resolves
    to one of its own entries; dependencies it does not resolve are only listed by name in
    `LockedPackage.dependencies`. `warnings` are human-readable notes about ignored or odd content.
    """

    kind: str
    ecosystem: Ecosystem
    packages: tuple[LockedPackage, ...]
    edges: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def resolved(self) -> tuple[LockedPackage, ...]:
        """The packages pinned to one registry version."""
        return tuple(p for p in self.packages if p.resolved)

    @property
    def unresolved(self) -> tuple[LockedPackage, ...]:
        """The packages that could not be pinned (each with `unresolved_reason`)."""
        return tuple(p for p in self.packages if not p.resolved)


class LockfileParser(Protocol):
    """
    One lockfile or manifest kind.

    - `kind`: the kind string of the scan API (`package-lock.json`, `yarn.lock`, `requirements.txt`, ...).
    - `filenames`: exact file names of this kind (compared case-insensitively by `detect`).
    - `filename_patterns`: `fnmatch` patterns for name variants (`requirements-*.txt`, `pylock.*.toml`).
    - `ecosystem`: the ecosystem of every package the parser returns.
    - `parse(text)`: the packages; raises `LockfileError` naming this kind and the failing line.
    - `sniff(text)`: True when the content looks like this kind; cheap and never raises.
    """

    kind: ClassVar[str]
    filenames: ClassVar[tuple[str, ...]]
    filename_patterns: ClassVar[tuple[str, ...]]
    ecosystem: ClassVar[Ecosystem]

    def parse(self, text: str) -> ParsedLockfile: ...

    def sniff(self, text: str) -> bool: ...
