"""Shared helpers for the lockfile tests: hand-written inputs under `tests/data/lockfiles/`."""

from __future__ import annotations

from pathlib import Path

from pkgintel.lockfiles.base import LockedPackage, LockfileParser, ParsedLockfile

DATA = Path(__file__).resolve().parents[1] / "data" / "lockfiles"


def read(*parts: str) -> str:
    """Text of a hand-written lockfile under `tests/data/lockfiles/`."""
    return DATA.joinpath(*parts).read_text(encoding="utf-8")


def parse(parser: LockfileParser, *parts: str) -> ParsedLockfile:
    """Parse a hand-written file with `parser`, checking the result's kind and ecosystem."""
    result = parser.parse(read(*parts))
    assert result.kind == parser.kind
    assert result.ecosystem == parser.ecosystem
    assert all(p.ecosystem == parser.ecosystem for p in result.packages)
    return result


def one(result: ParsedLockfile, name: str, version: str | None = None) -> LockedPackage:
    """The single package called `name` (and at `version`, when given)."""
    found = [
        p for p in result.packages if p.name == name and (version is None or p.version == version)
    ]
    assert len(found) == 1, f"{len(found)} packages named {name!r} ({version}): {found}"
    return found[0]


def names(packages: tuple[LockedPackage, ...] | list[LockedPackage]) -> set[str]:
    """The names of some packages."""
    return {p.name for p in packages}


def check_invariants(result: ParsedLockfile) -> None:
    """What every parse result must satisfy, whatever the format."""
    keys = {p.key for p in result.packages}
    for package in result.packages:
        assert package.name
        if package.resolved:
            assert package.version, package
            assert package.unresolved_reason is None, package
        else:
            assert package.unresolved_reason, package
            assert package.purl is None, package
    for source, target in result.edges:
        assert source in keys and target in keys, (source, target)
        assert source != target
    assert len(set(result.edges)) == len(result.edges)
