"""
Lockfile and manifest parsers: text in, package references out (pure; see `base.py` for the contract).

`PARSERS` is the registry keyed by kind — the scan API's `lockfile_kind` strings (`package-lock.json`,
`pnpm-lock.yaml`, `yarn.lock`, `poetry.lock`, `Pipfile.lock`, `composer.lock`, `Cargo.lock`,
`requirements.txt`, `go.sum`) plus `uv.lock`, `pylock.toml`, `Gemfile.lock`, `bun.lock`, `pubspec.lock`,
`mix.lock`, `packages.lock.json` (NuGet), `gradle.lockfile`, `Package.resolved` (SwiftPM), `Podfile.lock`
(CocoaPods) and `cpanfile.snapshot` (Carton).

`detect(filename, text)` picks the kind from the file name (exact names, then name variants such as
`requirements-dev.txt`, `pylock.web.toml` or `frontend.package-lock.json`) and, when the name is missing
or says nothing, from the content. `parse_lockfile(text, kind=..., filename=...)` detects and parses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import Final

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import MAX_VERSION_LENGTH, is_valid
from pkgintel.lockfiles.base import LockedPackage, LockfileParser, ParsedLockfile
from pkgintel.lockfiles.bun_lock import BunLockParser
from pkgintel.lockfiles.cargo_lock import CargoLockParser
from pkgintel.lockfiles.composer_lock import ComposerLockParser
from pkgintel.lockfiles.cpanfile_snapshot import CpanfileSnapshotParser
from pkgintel.lockfiles.gemfile_lock import GemfileLockParser
from pkgintel.lockfiles.go_sum import GoSumParser
from pkgintel.lockfiles.gradle_lockfile import GradleLockfileParser
from pkgintel.lockfiles.mix_lock import MixLockParser
from pkgintel.lockfiles.nuget_lock import NugetLockParser
from pkgintel.lockfiles.package_lock import PackageLockParser
from pkgintel.lockfiles.package_resolved import PackageResolvedParser
from pkgintel.lockfiles.pipfile_lock import PipfileLockParser
from pkgintel.lockfiles.pnpm_lock import PnpmLockParser
from pkgintel.lockfiles.podfile_lock import PodfileLockParser
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
    "is_empty",
    "parse_lockfile",
    "unresolve_unreadable",
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
        "Package.resolved": PackageResolvedParser(),
        "Podfile.lock": PodfileLockParser(),
        "cpanfile.snapshot": CpanfileSnapshotParser(),
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
    "Package.resolved",
    "pnpm-lock.yaml",
    "yarn.lock",
    "pubspec.lock",
    "Podfile.lock",
    "Cargo.lock",
    "poetry.lock",
    "uv.lock",
    "pylock.toml",
    "mix.lock",
    "cpanfile.snapshot",
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


EMPTY_NOTE: Final = "the file is empty: it lists no packages"
_HASH_COMMENTS: Final = frozenset(
    {
        "pnpm-lock.yaml",
        "yarn.lock",
        "poetry.lock",
        "Cargo.lock",
        "requirements.txt",
        "uv.lock",
        "pylock.toml",
        "pubspec.lock",
        "gradle.lockfile",
        "mix.lock",
        "Podfile.lock",
        "cpanfile.snapshot",
    }
)
_JSON_KINDS: Final = frozenset(
    {
        "package-lock.json",
        "Pipfile.lock",
        "composer.lock",
        "bun.lock",
        "packages.lock.json",
        "Package.resolved",
    }
)


def is_empty(kind: str, text: str) -> bool:
    """
    True when `text` holds nothing at all for `kind`: only whitespace; only `#` comments where the
    format has them; an empty JSON object (`{}`) for the JSON kinds. Every kind treats empty input
    the same way: zero packages and the `EMPTY_NOTE` warning, never an error.
    """
    body = text.lstrip("\ufeff").strip()
    if not body:
        return True
    if kind in _HASH_COMMENTS:
        return all(not line.strip() or line.lstrip().startswith("#") for line in body.splitlines())
    if kind in _JSON_KINDS:
        return body.replace(" ", "").replace("\n", "").replace("\t", "").replace("\r", "") == "{}"
    return False


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
    parser = PARSERS[canonical]
    if is_empty(canonical, text):
        return ParsedLockfile(canonical, parser.ecosystem, (), warnings=(EMPTY_NOTE,))
    try:
        return unresolve_unreadable(parser.parse(text))
    except LockfileError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        raise LockfileError(canonical, f"unexpected structure ({type(exc).__name__})") from exc


_STRICT_SCHEMES: Final = frozenset({Ecosystem.PYPI, Ecosystem.NPM})
"""Ecosystems whose registries accept only versions of their scheme, so a locked version that
does not parse cannot be a registry release."""


def version_problem(ecosystem: Ecosystem, version: str) -> str | None:
    """Why a locked `version` cannot be evaluated, or None when it can: longer than
    `MAX_VERSION_LENGTH` in any ecosystem, or not a version of the scheme on PyPI and npm."""
    if len(version) > MAX_VERSION_LENGTH:
        return f"the version is {len(version):,} characters long (at most {MAX_VERSION_LENGTH})"
    if ecosystem in _STRICT_SCHEMES and not is_valid(ecosystem, version):
        scheme = "PEP 440" if ecosystem is Ecosystem.PYPI else "SemVer"
        return f"{version!r} is not a valid {scheme} version"
    return None


def unresolve_unreadable(parsed: ParsedLockfile) -> ParsedLockfile:
    """
    `parsed` with every resolved entry whose version cannot be evaluated (`version_problem`)
    turned into an unresolved entry with that reason — so no such version ever reaches
    ordering or matching, and nothing is dropped. Edges follow the entries' new keys.
    """
    renamed: dict[str, str] = {}
    packages: list[LockedPackage] = []
    for package in parsed.packages:
        version = package.version or ""
        if package.resolved:
            why = version_problem(package.ecosystem, version) if version else None
        elif len(version) > MAX_VERSION_LENGTH:  # already unresolved: only stop echoing it
            why = version_problem(package.ecosystem, version)
            why = f"{why}; {package.unresolved_reason}" if package.unresolved_reason else why
        else:
            why = None
        if why is None:
            packages.append(package)
            continue
        changed = replace(
            package,
            version=None,
            purl=None,
            resolved=False,
            unresolved_reason=why,
            requirement=package.requirement
            or (version if len(version) <= 64 else version[:64] + "…"),
        )
        renamed[package.key] = changed.key
        packages.append(changed)
    if not renamed:
        return parsed
    edges = tuple(
        dict.fromkeys(
            (renamed.get(a, a), renamed.get(b, b))
            for a, b in parsed.edges
            if renamed.get(a, a) != renamed.get(b, b)
        )
    )
    return replace(parsed, packages=tuple(packages), edges=edges)
