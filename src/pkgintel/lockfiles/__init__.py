"""
Lockfile and manifest parsers: text in, package references out (pure; see `base.py` for the contract).

`PARSERS` is the registry keyed by kind — the scan API's `lockfile_kind` strings (`package-lock.json`,
`pnpm-lock.yaml`, `yarn.lock`, `poetry.lock`, `Pipfile.lock`, `composer.lock`, `Cargo.lock`,
`requirements.txt`, `go.sum`) plus `uv.lock`, `pylock.toml`, `Gemfile.lock`, `bun.lock`, `pubspec.lock`,
`mix.lock`, `packages.lock.json` (NuGet) and `gradle.lockfile`.

`detect(filename, text)` picks the kind from the file name (exact names, then name variants such as
`requirements-dev.txt`, `pylock.web.toml` or `frontend.package-lock.json`) and, when the name is missing
or says nothing, from the content. `parse_lockfile(text, kind=..., filename=...)` detects and parses.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import Final

from pkgintel.domain.errors import LockfileError
from pkgintel.lockfiles.base import LockedPackage, LockfileParser, ParsedLockfile
from pkgintel.lockfiles.bun_lock import BunLockParser
from pkgintel.lockfiles.cargo_lock import CargoLockParser
from pkgintel.lockfiles.composer_lock import ComposerLockParser
from pkgintel.lockfiles.gemfile_lock import GemfileLockParser
from pkgintel.lockfiles.go_sum import GoSumParser
from pkgintel.lockfiles.gradle_lockfile import GradleLockfileParser
from pkgintel.lockfiles.mix_lock import MixLockParser
from pkgintel.lockfiles.nuget_lock import NugetLockParser
from pkgintel.lockfiles.package_lock import PackageLockParser
from pkgintel.lockfiles.pipfile_lock import PipfileLockParser
from pkgintel.lockfiles.pnpm_lock import PnpmLockParser
from pkgintel.lockfiles.poetry_lock import PoetryLockParser
from pkgintel.lockfiles.pubspec_lock import PubspecLockParser
from pkgintel.lockfiles.pylock import PylockParser
from pkgintel.lockfiles.requirements_txt import RequirementsTxtParser
from pkgintel.lockfiles.uv_lock import UvLockParser
from pkgintel.lockfiles.yarn_lock import YarnLockParser

__all__ = [
    "CONTENT_SNIFF_ORDER",
    "PARSERS",
    "LockedPackage",
    "LockfileParser",
    "ParsedLockfile",
    "detect",
    "detect_from_content",
    "detect_from_filename",
    "parse_lockfile",
]

PARSERS: Final[Mapping[str, LockfileParser]] = MappingProxyType(
    {
        "package-lock.json": PackageLockParser(),
        "pnpm-lock.yaml": PnpmLockParser(),
        "yarn.lock": YarnLockParser(),
        "poetry.lock": PoetryLockParser(),
        "Pipfile.lock": PipfileLockParser(),
        "composer.lock": ComposerLockParser(),
        "Cargo.lock": CargoLockParser(),
        "requirements.txt": RequirementsTxtParser(),
        "go.sum": GoSumParser(),
        "uv.lock": UvLockParser(),
        "pylock.toml": PylockParser(),
        "Gemfile.lock": GemfileLockParser(),
        "bun.lock": BunLockParser(),
        "pubspec.lock": PubspecLockParser(),
        "mix.lock": MixLockParser(),
        "packages.lock.json": NugetLockParser(),
        "gradle.lockfile": GradleLockfileParser(),
    }
)
"""Every supported kind → its parser."""

CONTENT_SNIFF_ORDER: Final[tuple[str, ...]] = (
    # JSON family (mutually exclusive markers), YAML family, TOML family, line formats;
    # requirements.txt last: its sniffer is the least specific.
    "bun.lock",
    "package-lock.json",
    "Pipfile.lock",
    "composer.lock",
    "packages.lock.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "pubspec.lock",
    "Cargo.lock",
    "poetry.lock",
    "uv.lock",
    "pylock.toml",
    "mix.lock",
    "Gemfile.lock",
    "go.sum",
    "gradle.lockfile",
    "requirements.txt",
)
"""The order in which `detect_from_content` asks the parsers' `sniff`."""

_KINDS_BY_LOWER: Final[Mapping[str, str]] = MappingProxyType({k.lower(): k for k in PARSERS})


def detect_from_filename(filename: str) -> str | None:
    """
    The kind a file name designates, or None when the name says nothing (e.g. `deps.txt`).

    Compared case-insensitively on the base name: exact names first, then each parser's patterns
    (matched against the base name and against `parent/name`). Raises `LockfileError` for `bun.lockb`,
    Bun's binary lockfile, which cannot be read as text.
    """
    path = filename.replace("\\", "/").strip().rstrip("/")
    base = path.rsplit("/", 1)[-1].lower()
    tail = "/".join(path.lower().rsplit("/", 2)[-2:])
    if base == "bun.lockb" or base.endswith(".bun.lockb"):
        raise LockfileError(
            "bun.lock",
            "bun.lockb is Bun's binary lockfile; send the text bun.lock instead",
            line=None,
        )
    for kind, parser in PARSERS.items():
        if base in (name.lower() for name in parser.filenames):
            return kind
    for kind, parser in PARSERS.items():
        for pattern in parser.filename_patterns:
            lowered = pattern.lower()
            if fnmatchcase(base, lowered) or ("/" in lowered and fnmatchcase(tail, lowered)):
                return kind
    return None


def detect_from_content(text: str) -> str | None:
    """The first kind (in `CONTENT_SNIFF_ORDER`) whose parser recognises `text`, or None."""
    for kind in CONTENT_SNIFF_ORDER:
        if PARSERS[kind].sniff(text):
            return kind
    return None


def detect(filename: str | None, text: str) -> str:
    """
    The kind of a lockfile: from `filename` when it says, else from the content.

    Raises `LockfileError("unknown", ...)` when neither tells.
    """
    if filename:
        kind = detect_from_filename(filename)
        if kind is not None:
            return kind
    kind = detect_from_content(text)
    if kind is None:
        raise LockfileError(
            "unknown", "cannot tell the lockfile kind from the file name or the content", line=None
        )
    return kind


def parse_lockfile(
    text: str, *, kind: str | None = None, filename: str | None = None
) -> ParsedLockfile:
    """
    Parse `text` as `kind` (case-insensitive; detected from `filename`/content when None).

    Every failure is a `LockfileError` naming the kind (and the line where known): an unknown kind,
    undetectable content, malformed input — and, as a last line of defence, any unexpected shape a
    parser did not anticipate.
    """
    if kind is None:
        kind = detect(filename, text)
    canonical = _KINDS_BY_LOWER.get(kind.strip().lower())
    if canonical is None:
        raise LockfileError(kind, f"unsupported lockfile kind; supported: {', '.join(PARSERS)}")
    try:
        return PARSERS[canonical].parse(text)
    except LockfileError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        raise LockfileError(canonical, f"unexpected structure ({type(exc).__name__})") from exc
