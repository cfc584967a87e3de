"""Dependency tree, licences across the tree, and health history (issue 16, items 7-8)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import STALE_CACHE, Answer, cached_json
from pkgintel.api.schemas.graph import HistoryOut, TreeLicensesOut, TreeOut
from pkgintel.api.schemas.wire import _iso, sources_wire
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.services.graph import Graph
from pkgintel.services.history import History
from pkgintel.services.runtime import Runtime
from pkgintel.services.tree import DependencyTree, TreeNode
from pkgintel.services.tree_licenses import LicenseVerdict, TreeLicenses

router = APIRouter(prefix="/api", tags=["dependencies"])

TREE_CACHE = "public, max-age=86400, stale-while-revalidate=86400"
HISTORY_CACHE = "public, max-age=3600"

MaxDepth = Annotated[
    int, Query(ge=1, le=10, description="Levels below the root that are expanded (default 3).")
]
MaxDeps = Annotated[
    int,
    Query(ge=1, le=1000, description="Most dependencies listed besides the root (default 200)."),
]
Days = Annotated[int, Query(ge=1, le=365, description="Days of history (default 90, at most 365).")]
Target = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="A licence (SPDX expression) to check the whole tree against, e.g. `MIT` or `Apache-2.0`.",
    ),
]
Extras = Annotated[
    str | None,
    Query(
        max_length=200,
        pattern=r"^[A-Za-z0-9._,/-]*$",
        description="Comma-separated: PyPI extras of the root (`socks,security`); CocoaPods "
        "subspecs of the root (`Core,UI`, nested `Core/Base`).",
    ),
]


def _cache_control(tree: DependencyTree) -> str:
    """24 hours for a complete tree with advisory data, else the short stale lifetime."""
    return TREE_CACHE if tree.complete and tree.vulnerabilities_known else STALE_CACHE


def _graph(runtime: Runtime) -> Graph:
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
    tree = await _graph(runtime).trees.tree(
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
    return Answer(body, _cache_control(tree), {"_cache": tree.cache_status})


@router.get(
    "/tree/{ecosystem}/{package:path}",
    response_model=TreeOut,
    summary="Transitive dependency tree with a health score per dependency",
)
async def dependency_tree(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
    max_depth: MaxDepth = 3,
    max_deps: MaxDeps = 200,
    extras: Extras = None,
) -> Response:
    """The flattened transitive tree, resolved with the ecosystem's own range semantics against
    published versions only; each node with its version, depth, health score, vulnerability count
    and licence; cycles, conflicts, unresolved edges and truncation named. Cached 24 hours."""
    answer = await tree_answer(
        runtime,
        ecosystem,
        package,
        version,
        max_depth=max_depth,
        max_deps=max_deps,
        extras=extras,
    )
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


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
    lic = await _graph(runtime).licenses.licenses(
        ecosystem, name, version, target=target, max_depth=max_depth, max_deps=max_deps
    )
    body = licenses_wire(lic)
    body["_meta"] = {
        "endpoint": "/api/licenses/{ecosystem}/{package}",
        "sources": sources_wire(lic.tree.sources),
    }
    return Answer(body, _cache_control(lic.tree), {"_cache": lic.tree.cache_status})


@router.get(
    "/licenses/{ecosystem}/{package:path}",
    response_model=TreeLicensesOut,
    summary="Licences across the transitive tree; GPL/AGPL/LGPL flagged",
)
async def tree_licenses(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
    target: Target = None,
    max_depth: MaxDepth = 3,
    max_deps: MaxDeps = 200,
) -> Response:
    """Every licence in the dependency tree, copyleft families flagged, and a compatibility verdict
    against the root's licence and an optional `target` licence. A licence we cannot read is
    `unknown`, never compatible; an incomplete tree never yields `compatible`."""
    answer = await licenses_answer(
        runtime,
        ecosystem,
        package,
        version,
        target=target,
        max_depth=max_depth,
        max_deps=max_deps,
    )
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


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
    hist = await _graph(runtime).history.history(ecosystem, name, days)
    body = history_wire(hist)
    body["_meta"] = {
        "endpoint": "/api/history/{ecosystem}/{package}",
        "sources": sources_wire(hist.sources),
    }
    return Answer(body, HISTORY_CACHE)


@router.get(
    "/history/{ecosystem}/{package:path}",
    response_model=HistoryOut,
    summary="Health snapshots and trend",
)
async def health_history(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    days: Days = 90,
) -> Response:
    """Daily health snapshots (score, breakdown, vulnerability counts, latest version) of the last
    `days` days, oldest first, and the trend (up, down, stable). From the database only; recorded by
    the daily `health-snapshots` job for packages that were asked about."""
    answer = await history_answer(runtime, ecosystem, package, days)
    return cached_json(request, answer.body, cache_control=answer.cache_control)
