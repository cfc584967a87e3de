"""
Our lockfile packages against the peer's expected packages, for one OSV-Scanner/OSV-SCALIBR
fixture (`../shared/data/peer-suites/osv-lockfiles`, read in place). Pure: a case row and the
fixture text in, a `Parity` out. Used by `tests/peer/test_lockfile_parity.py` and by
`bench/bench_lockfile_parity.py`, so the test and the printed figures can never disagree.

What is compared:
- the packages as (ecosystem, normalised name, version) — our version `None` (an unresolved
  entry) compares as "";
- the ecosystem: the peer's name for it (`PyPI`, `crates.io`, `Packagist`...) must name the
  ecosystem our parser reports;
- beyond that, only what both sides record: the dev flag, for the kinds whose peer parser sorts
  packages into groups (`dep_groups` holding `dev`) and only where our entry states it (`dev`
  not None). The peer's `commit` is not compared: we keep a git entry's revision inside its
  requirement text, not as a field of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pkgintel.domain.errors import LockfileError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, ecosystem_named
from pkgintel.lockfiles import PARSERS, parse_lockfile

DEV_GROUP_KINDS = frozenset(
    {
        "package-lock.json",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Pipfile.lock",
        "composer.lock",
        "pubspec.lock",
        "uv.lock",
    }
)
"""Kinds whose peer parser records a `dev` group (so a package without it is not dev-only)."""

Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class Parity:
    """
    The comparison of one fixture.

    `rejected` is our error text when we reject the file (None when we read it); `peer_rejects`
    says the peer rejects it. `missing`/`extra` are (name, version) pairs only the peer / only
    we report; `dev_differs` the pairs both report with a different dev flag; `ecosystem_differs`
    the peer ecosystem names that do not name ours; `lost` the peer's names we do not report.
    """

    case_id: str
    kind: str
    peer_rejects: bool
    rejected: str | None = None
    rejected_line: int | None = None
    missing: frozenset[Key] = field(default_factory=frozenset)
    extra: frozenset[Key] = field(default_factory=frozenset)
    dev_differs: frozenset[Key] = field(default_factory=frozenset)
    ecosystem_differs: frozenset[str] = field(default_factory=frozenset)
    lost: frozenset[str] = field(default_factory=frozenset)
    """Names the peer reports that we report under no version at all: a lost package."""

    @property
    def agrees(self) -> bool:
        """True when we answer exactly as the peer (same packages, or both reject)."""
        if self.peer_rejects or self.rejected is not None:
            return self.peer_rejects and self.rejected is not None
        return not (self.missing or self.extra or self.dev_differs or self.ecosystem_differs)

    def summary(self) -> str:
        """One line naming the difference (empty when the case agrees)."""
        if self.agrees:
            return ""
        if self.rejected is not None and not self.peer_rejects:
            return f"we reject a file the peer reads: {self.rejected}"
        if self.peer_rejects and self.rejected is None:
            return "we read a file the peer rejects"
        parts = []
        if self.missing:
            parts.append("peer only " + ", ".join(_show(k) for k in sorted(self.missing)))
        if self.extra:
            parts.append("ours only " + ", ".join(_show(k) for k in sorted(self.extra)))
        if self.dev_differs:
            parts.append(
                "dev flag differs " + ", ".join(_show(k) for k in sorted(self.dev_differs))
            )
        if self.ecosystem_differs:
            parts.append("ecosystem " + ", ".join(sorted(self.ecosystem_differs)))
        return "; ".join(parts)


def _show(key: Key) -> str:
    name, version = key
    return f"{name}@{version}" if version else f"{name} (no version)"


def compare(case: dict[str, Any], text: str) -> Parity:
    """Parse `text` as the case's kind and compare with the case's expectation."""
    kind: str = case["kind"]
    ecosystem: Ecosystem = PARSERS[kind].ecosystem
    peer_rejects = bool(case["expect_error"])
    try:
        parsed = parse_lockfile(text, kind=kind)
    except LockfileError as error:
        return Parity(case["id"], kind, peer_rejects, rejected=str(error), rejected_line=error.line)
    if peer_rejects:
        return Parity(case["id"], kind, peer_rejects)
    peer: dict[Key, bool] = {}
    wrong_ecosystem = set()
    for p in case["packages"]:
        if ecosystem_named(p["ecosystem"]) is not ecosystem:
            wrong_ecosystem.add(p["ecosystem"])
        key = (normalise_name(ecosystem, p["name"]), p["version"])
        peer[key] = peer.get(key, False) or "dev" in (p.get("dep_groups") or ())
    ours: dict[Key, bool | None] = {}
    for package in parsed.packages:
        key = (normalise_name(ecosystem, package.name), package.version or "")
        if key in ours and ours[key] != package.dev:
            # The same package twice (two sources or groups): dev-only when every entry is.
            ours[key] = (
                None if None in (ours[key], package.dev) else bool(ours[key] and package.dev)
            )
        else:
            ours.setdefault(key, package.dev)
    dev_differs = frozenset(
        key
        for key in peer.keys() & ours.keys()
        if kind in DEV_GROUP_KINDS and ours[key] is not None and ours[key] != peer[key]
    )
    return Parity(
        case["id"],
        kind,
        peer_rejects,
        missing=frozenset(peer.keys() - ours.keys()),
        extra=frozenset(ours.keys() - peer.keys()),
        dev_differs=dev_differs,
        ecosystem_differs=frozenset(wrong_ecosystem),
        lost=frozenset({n for n, _ in peer} - {n for n, _ in ours}),
    )
