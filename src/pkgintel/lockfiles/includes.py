"""
Requirements files sent together: `-r` includes and `-c` constraints resolved against the other files
of the same request (pure; nothing is read from disk or fetched).

`expand_requirements(main, filename, files)` parses `main` and, for each `-r other.txt` whose file is
among `files` (matched by path relative to the including file, normalised: `./a/../b.txt` = `b.txt`),
puts that file's entries in place of the include entry, recursively. An include met again on its own
chain (`a` → `b` → `a`) is dropped with a warning; an include whose file was not sent stays an unresolved
`include` entry, as in a single-file scan. Then every `-c constraints.txt` among `files` pins the entries
it names: an unresolved registry entry (a bare name or a range) becomes the constraint's exact version
when that version satisfies the entry's own range (PEP 440, `domain.ranges`) — the version pip would
install. A constraint that contradicts the range leaves the entry unresolved with both in the reason.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import replace

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import satisfies
from pkgintel.lockfiles._support import registry_package
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile
from pkgintel.lockfiles.requirements_txt import RequirementsTxtParser, references

MAX_FILES = 20
"""Most files one request may send (the main file excluded)."""

_PARSER = RequirementsTxtParser()


def _norm(path: str) -> str:
    clean = posixpath.normpath(path.replace("\\", "/").strip())
    return clean.removeprefix("./")


def _target(including: str, reference: str) -> str:
    return _norm(posixpath.join(posixpath.dirname(_norm(including)), reference))


def expand_requirements(main: str, filename: str, files: Mapping[str, str]) -> ParsedLockfile:
    """See the module contract. Raises `LockfileError` (naming the file's kind and line) when the
    main file or an included file does not parse."""
    by_path = {_norm(name): text for name, text in files.items()}
    warnings: list[str] = []
    constraints: list[tuple[str, str]] = []  # (constraint file path, including file)

    def expand(text: str, path: str, chain: tuple[str, ...]) -> list[LockedPackage]:
        parsed = _PARSER.parse(text)
        warnings.extend(w for w in parsed.warnings if "was not read" not in w or _unsent(w, path))
        for kind, ref, _ in references(text):
            if kind == "c":
                constraints.append((_target(path, ref), path))
        out: list[LockedPackage] = []
        for package in parsed.packages:
            ref = (package.requirement or "").removeprefix("-r ").strip()
            target = _target(path, ref) if package.source == "include" else None
            if target is None or target not in by_path:
                out.append(package)
            elif target in chain:
                warnings.append(f"{path}: include of {ref!r} is cyclic; read once")
            else:
                out.extend(expand(by_path[target], target, (*chain, target)))
        return out

    def _unsent(warning: str, path: str) -> bool:
        quoted = warning.split("'")
        return len(quoted) < 2 or _target(path, quoted[1]) not in by_path

    start = _norm(filename or "requirements.txt")
    by_path[start] = main
    packages = expand(main, start, (start,))
    pins = _pins([(c, by_path[c]) for c, _ in dict.fromkeys(constraints) if c in by_path])
    packages = [_constrain(p, pins) for p in packages]
    seen: set[tuple[str, str | None, bool]] = set()
    unique: list[LockedPackage] = []
    for package in packages:
        ident = (normalise_name(Ecosystem.PYPI, package.name), package.version, package.resolved)
        if package.resolved and ident in seen:
            continue
        seen.add(ident)
        unique.append(package)
    return ParsedLockfile(
        _PARSER.kind, Ecosystem.PYPI, tuple(unique), (), tuple(dict.fromkeys(warnings))
    )


def _pins(files: list[tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """normalised name → (exact version, constraint file) from the given constraint files."""
    pins: dict[str, tuple[str, str]] = {}
    for path, text in files:
        for package in _PARSER.parse(text).packages:
            if package.resolved and package.version:
                pins.setdefault(
                    normalise_name(Ecosystem.PYPI, package.name), (package.version, path)
                )
    return pins


def _constrain(package: LockedPackage, pins: dict[str, tuple[str, str]]) -> LockedPackage:
    if package.resolved or package.source != "registry" or not pins:
        return package
    pin = pins.get(normalise_name(Ecosystem.PYPI, package.name))
    if pin is None:
        return package
    version, path = pin
    wanted = package.requirement or ""
    if wanted and not satisfies(Ecosystem.PYPI, version, wanted, include_prerelease=True):
        return replace(
            package,
            unresolved_reason=f"{package.unresolved_reason}; the constraint {version} in "
            f"{path} does not satisfy {wanted!r}",
        )
    return registry_package(
        Ecosystem.PYPI, package.name, version, direct=package.direct, dev=package.dev
    )
