"""
`TreeLicenseService`: licences across a package's dependency tree (`/api/licenses`).

The tree is `TreeService.tree` (same resolution, same cache). Each dependency's licence is judged
against the root's licence and, when given, a `target` licence (`scoring.license_compat`); GPL, AGPL
and LGPL licences are flagged by family. The overall verdict is the worst node verdict, and it is
never `compatible` while any part of the tree is unknown: an unresolved or unexpanded edge, or a
licence we cannot read, makes it `unknown` with the reason named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.trees.values import DependencyTree
from pkgintel.scoring import classify_license
from pkgintel.scoring.license_compat import VERDICTS, Compatibility, compatibility
from pkgintel.services.trees.service import TreeService

_WORST_FIRST = {v: i for i, v in enumerate(VERDICTS)}


@dataclass(frozen=True, slots=True)
class LicenseVerdict:
    against: str | None
    """The licence judged against (None when that licence is not known)."""
    verdict: str
    reason: str
    counts: dict[str, int]
    """Node verdicts by value."""


@dataclass(frozen=True, slots=True)
class TreeLicenses:
    tree: DependencyTree
    packages: tuple[dict[str, Any], ...]
    by_license: dict[str, int]
    by_risk: dict[str, int]
    flagged: tuple[dict[str, Any], ...]
    root_license: str | None
    against_root: LicenseVerdict
    target: str | None
    against_target: LicenseVerdict | None


class TreeLicenseService:
    """See the module contract."""

    def __init__(self, trees: TreeService) -> None:
        self._trees = trees

    async def licenses(
        self,
        ecosystem: Ecosystem,
        name: str,
        version: str | None = None,
        *,
        target: str | None = None,
        max_depth: int = 3,
        max_deps: int = 200,
    ) -> TreeLicenses:
        """Raises what `TreeService.tree` raises."""
        tree = await self._trees.tree(
            ecosystem, name, version, max_depth=max_depth, max_deps=max_deps
        )
        return summarise(tree, target)


def summarise(tree: DependencyTree, target: str | None) -> TreeLicenses:
    """The licence view of `tree` (pure)."""
    root = next(n for n in tree.nodes if n.id == tree.root)
    deps = [n for n in tree.nodes if n.id != tree.root]
    target_norm = classify_license(target).license if target else None
    packages: list[dict[str, Any]] = []
    vs_root: list[Compatibility] = []
    vs_target: list[Compatibility] = []
    for node in deps:
        c_root = compatibility(node.license, root.license)
        vs_root.append(c_root)
        row: dict[str, Any] = {
            "id": node.id,
            "name": node.name,
            "purl": purl_of(tree.ecosystem, node.name, node.version),
            "version": node.version,
            "depth": node.depth,
            "license": node.license,
            "license_risk": node.license_risk,
            "copyleft": node.copyleft,
            "vs_root": {"verdict": c_root.verdict, "reason": c_root.reason},
        }
        if target:
            c_target = compatibility(node.license, target_norm or target)
            vs_target.append(c_target)
            row["vs_target"] = {"verdict": c_target.verdict, "reason": c_target.reason}
        packages.append(row)
    if target:
        c = compatibility(root.license, target_norm or target)
        vs_target.insert(0, c)
    flagged = tuple(
        {"id": p["id"], "license": p["license"], "family": p["copyleft"], "depth": p["depth"]}
        for p in packages
        if p["copyleft"]
    )
    gaps = _gaps(tree)
    return TreeLicenses(
        tree=tree,
        packages=tuple(packages),
        by_license=dict(Counter(n.license or "none declared" for n in deps).most_common()),
        by_risk=dict(Counter(n.license_risk for n in deps).most_common()),
        flagged=flagged,
        root_license=root.license,
        against_root=_overall(vs_root, root.license, gaps),
        target=target_norm or target,
        against_target=_overall(vs_target, target_norm or target, gaps) if target else None,
    )


def _gaps(tree: DependencyTree) -> list[str]:
    out = []
    missing = [u for u in tree.unresolved if u.reason != "no_matching_version"]
    if missing:
        out.append(f"{len(missing)} dependencies could not be resolved")
    if tree.truncated:
        out.append(
            "the tree was truncated (" + "; ".join(tree.truncation or ("upstream limit",)) + ")"
        )
    if any(not n.dependencies_known for n in tree.nodes):
        out.append("some packages' dependencies are not known")
    return out


def _overall(
    verdicts: Sequence[Compatibility], against: str | None, gaps: list[str]
) -> LicenseVerdict:
    counts = dict(Counter(v.verdict for v in verdicts))
    if not verdicts:
        worst = Compatibility("compatible", "no dependencies")
    else:
        worst = max(verdicts, key=lambda v: _WORST_FIRST[v.verdict])
    if against is None:
        return LicenseVerdict(
            None, "unknown", "the licence to compare against is not known", counts
        )
    if worst.verdict in ("compatible", "conditional") and gaps:
        return LicenseVerdict(
            against, "unknown", "not every dependency was seen: " + "; ".join(gaps), counts
        )
    reason = worst.reason if verdicts else "no dependencies"
    if worst.verdict == "compatible":
        reason = "every dependency's licence is compatible"
    return LicenseVerdict(against, worst.verdict, reason, counts)
