"""Dependency-graph answers: the resolved tree, its licences, the health history (shared by every door)."""

from __future__ import annotations

from typing import Any

from pkgintel.application.answer import STALE_CACHE, Answer
from pkgintel.application.schemas.wire import _iso, sources_wire
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.trees.values import DependencyTree, TreeNode
from pkgintel.runtime.container import Runtime
from pkgintel.services.reports.history import History
from pkgintel.services.trees.graph import Graph
from pkgintel.services.trees.licenses import LicenseVerdict, TreeLicenses

TREE_CACHE = "public, max-age=86400, stale-while-revalidate=86400"


HISTORY_CACHE = "public, max-age=3600"


def tree_cache_control(tree: DependencyTree) -> str:
    """24 hours for a complete tree with advisory data, else the short stale lifetime."""
    return TREE_CACHE if tree.complete and tree.vulnerabilities_known else STALE_CACHE


def graph_of(runtime: Runtime) -> Graph:
    if runtime.graph is None:
        raise PkgIntelError("dependency trees and history are not wired in this installation")
    return runtime.graph


def _vulns(node: TreeNode) -> dict[str, Any]:
    return {
        "count": node.vulnerabilities,
        "status": node.vulnerability_status,
        **node.severities,
    }


def node_wire(ecosystem: Ecosystem, node: TreeNode) -> dict[str, Any]:
    return {
        "id": node.id,
        "name": node.name,
        "purl": purl_of(ecosystem, node.name, node.version),
        "version": node.version,
        "depth": node.depth,
        "kind": node.kind,
        "requirement": node.requirement,
        "required_by": list(node.required_by),
        "dependencies": list(node.dependencies),
        "latest_version": node.latest_version,
        "health_score": node.health_score,
        "risk": node.risk,
        "vulnerabilities": _vulns(node),
        "license": node.license,
        "license_risk": node.license_risk,
        "copyleft": node.copyleft,
        "deprecated": node.deprecated,
        "malicious": node.malicious,
        "dependencies_known": node.dependencies_known,
        "not_expanded": node.not_expanded,
        "minimums": [{"required_by": by, "version": v} for by, v in node.minimums],
    }


def tree_wire(tree: DependencyTree) -> dict[str, Any]:
    """The `/api/tree` body without `_meta`."""
    root = next(n for n in tree.nodes if n.id == tree.root)
    deps = [n for n in tree.nodes if n.id != tree.root]
    counts = [n.vulnerabilities for n in deps]
    known = all(c is not None for c in counts)
    scored = [n for n in deps if n.health_score is not None]
    lowest = min(scored, key=lambda n: n.health_score or 0, default=None)
    return {
        "ecosystem": tree.ecosystem.value,
        "package": root.name,
        "purl": purl_of(tree.ecosystem, root.name, root.version),
        "version": root.version,
        "root": tree.root,
        "max_depth": tree.max_depth,
        "max_deps": tree.max_deps,
        "total_dependencies": len(deps),
        "complete": tree.complete,
        "vulnerabilities_known": tree.vulnerabilities_known,
        "truncated": tree.truncated,
        "truncation": list(tree.truncation),
        "summary": {
            "deepest": max((n.depth for n in deps), default=0),
            "vulnerable_packages": sum(1 for c in counts if c),
            "vulnerabilities_total": sum(c or 0 for c in counts) if known else None,
            "vulnerabilities_note": None
            if known
            else "advisory data was unavailable for some packages: the total is not known",
            "deprecated": sum(1 for n in deps if n.deprecated),
            "malicious": sum(1 for n in deps if n.malicious),
            "copyleft": sum(1 for n in deps if n.copyleft),
            "lowest_health": {"id": lowest.id, "health_score": lowest.health_score}
            if lowest
            else None,
        },
        "nodes": [node_wire(tree.ecosystem, n) for n in tree.nodes],
        "unresolved": [
            {
                "required_by": u.parent,
                "name": u.name,
                "requirement": u.requirement,
                "reason": u.reason,
                "detail": u.detail,
            }
            for u in tree.unresolved
        ],
        "conflicts": list(tree.conflicts),
        "cycles": [list(c) for c in tree.cycles],
        "skipped": list(tree.skipped),
        "environment": tree.environment or None,
        "computed_at": _iso(tree.computed_at),
    }


async def tree_answer(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    version: str | None = None,
    *,
    max_depth: int = 3,
    max_deps: int = 200,
    extras: str | None = None,
) -> Answer:
    """The `/api/tree` answer (shared with the MCP tool)."""
    name = validate_name(ecosystem, package)
    tree = await graph_of(runtime).trees.tree(
        ecosystem,
        name,
        version,
        max_depth=max_depth,
        max_deps=max_deps,
        extras=tuple((extras or "").split(",")),
    )
    body = tree_wire(tree)
    body["_meta"] = {
        "endpoint": "/api/tree/{ecosystem}/{package}",
        "sources": sources_wire(tree.sources),
    }
    return Answer(body, tree_cache_control(tree), {"_cache": tree.cache_status})


def _verdict(v: LicenseVerdict | None) -> dict[str, Any] | None:
    if v is None:
        return None
    return {"license": v.against, "verdict": v.verdict, "reason": v.reason, "counts": v.counts}


def licenses_wire(lic: TreeLicenses) -> dict[str, Any]:
    tree = lic.tree
    root = next(n for n in tree.nodes if n.id == tree.root)
    return {
        "ecosystem": tree.ecosystem.value,
        "package": root.name,
        "purl": purl_of(tree.ecosystem, root.name, root.version),
        "version": root.version,
        "license": lic.root_license,
        "license_risk": root.license_risk,
        "total_dependencies": len(tree.nodes) - 1,
        "complete": tree.complete,
        "truncated": tree.truncated,
        "unresolved": len(tree.unresolved),
        "compatibility": _verdict(lic.against_root),
        "target": lic.target,
        "target_compatibility": _verdict(lic.against_target),
        "flagged": list(lic.flagged),
        "by_license": lic.by_license,
        "by_risk": lic.by_risk,
        "packages": list(lic.packages),
        "computed_at": _iso(tree.computed_at),
    }


async def licenses_answer(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    version: str | None = None,
    *,
    target: str | None = None,
    max_depth: int = 3,
    max_deps: int = 200,
) -> Answer:
    """The `/api/licenses` answer (shared with the MCP tool)."""
    name = validate_name(ecosystem, package)
    lic = await graph_of(runtime).licenses.licenses(
        ecosystem, name, version, target=target, max_depth=max_depth, max_deps=max_deps
    )
    body = licenses_wire(lic)
    body["_meta"] = {
        "endpoint": "/api/licenses/{ecosystem}/{package}",
        "sources": sources_wire(lic.tree.sources),
    }
    return Answer(body, tree_cache_control(lic.tree), {"_cache": lic.tree.cache_status})


def history_wire(h: History) -> dict[str, Any]:
    return {
        "ecosystem": h.ecosystem.value,
        "package": h.package,
        "purl": purl_of(h.ecosystem, h.package),
        "days": h.days,
        "count": len(h.snapshots),
        "trend": h.trend.direction,
        "trend_delta": h.trend.delta,
        "trend_window": h.trend.window,
        "gone_since": h.gone_since.isoformat() if h.gone_since else None,
        "trend_rule": "mean score of the last k snapshots minus the first k (k = min(3, n // 2)): "
        "≥ +5 up, ≤ -5 down, else stable; null with fewer than two snapshots",
        "snapshots": [
            {
                "date": s.day.isoformat(),
                "score": s.score,
                "risk": s.risk,
                "breakdown": {k: v for k, v in s.breakdown.items() if not k.startswith("_")},
                "unscored": s.breakdown.get("_unscored", []),
                "vulnerabilities": s.vulnerabilities,
                "latest_version": s.latest_version,
                "recorded_at": _iso(s.recorded_at),
            }
            for s in h.snapshots
        ],
    }


async def history_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, days: int = 90
) -> Answer:
    """The `/api/history` answer (shared with the MCP tool)."""
    name = validate_name(ecosystem, package)
    hist = await graph_of(runtime).history.history(ecosystem, name, days)
    body = history_wire(hist)
    body["_meta"] = {
        "endpoint": "/api/history/{ecosystem}/{package}",
        "sources": sources_wire(hist.sources),
    }
    return Answer(body, HISTORY_CACHE)
