"""
The dependency tree as answered (`/api/tree`, `/api/licenses`, MCP): `DependencyTree`, its
`TreeNode`s and the `Unresolved` edges. Plain values: `services/trees` resolves them, caches them
(`services/trees/codec.py`) and the doors shape them for the wire.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceStatus


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One resolved package version in the flattened tree."""

    id: str
    """`name@version`."""
    name: str
    version: str
    depth: int
    requirement: str | None
    """The range it was first reached by (None for the root)."""
    kind: str
    """`root`, or the edge kind (`runtime`, `optional`, `peer`, `build`, `extra:<name>`)."""
    required_by: tuple[str, ...]
    latest_version: str | None
    health_score: int | None
    risk: str | None
    vulnerabilities: int | None
    """Known advisories affecting this version; None when the advisory data is unavailable."""
    vulnerability_status: str
    severities: dict[str, int]
    license: str | None
    license_risk: str
    copyleft: str | None
    """`AGPL`, `LGPL` or `GPL` when the licence belongs to that family."""
    deprecated: bool
    malicious: bool | None
    """True when reported (or known) malicious; None when no malicious-package data is loaded."""
    dependencies: tuple[str, ...] = ()
    """Ids of the nodes its edges resolved to."""
    dependencies_known: bool = True
    not_expanded: int = 0
    """Applicable dependencies left unexpanded (depth or size limit)."""
    minimums: tuple[tuple[str, str], ...] = ()
    """Go: `(requiring module@version, minimum version)` for each requirement of this module in
    the explored graph; `version` is their maximum (minimal version selection)."""


@dataclass(frozen=True, slots=True)
class Unresolved:
    """An edge that did not resolve to a published version."""

    parent: str
    name: str
    requirement: str
    reason: str
    """`no_matching_version`, `not_found`, `unavailable`, `not_looked_up`, `unevaluable`."""
    detail: str


@dataclass(frozen=True, slots=True)
class DependencyTree:
    ecosystem: Ecosystem
    root: str
    nodes: tuple[TreeNode, ...]
    unresolved: tuple[Unresolved, ...]
    conflicts: tuple[dict[str, str], ...]
    skipped: tuple[dict[str, str], ...]
    """Declared edges not installed (markers, extras, optional features), with why."""
    cycles: tuple[tuple[str, ...], ...]
    truncated: bool
    truncation: tuple[str, ...]
    max_depth: int
    max_deps: int
    environment: dict[str, str]
    computed_at: datetime
    sources: tuple[SourceStatus, ...]
    cache_status: str = "miss"

    @property
    def complete(self) -> bool:
        """No edge failed for lack of data (unresolved `no_matching_version` is a fact, not a gap)."""
        return not any(u.reason in ("unavailable", "not_looked_up") for u in self.unresolved)

    @property
    def vulnerabilities_known(self) -> bool:
        """Every node's advisory data was available."""
        return all(n.vulnerability_status != "unavailable" for n in self.nodes)
