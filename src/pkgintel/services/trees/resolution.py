"""
`Resolution`: one dependency tree's walk, level by level from the root, for the ecosystems with
version ranges (the steps are in `service.py`'s contract), and the state a family's resolution
builds on: nodes, links, conflicts, skipped and unresolved edges, sources, bounds. Go, Maven,
Conda/Homebrew/CocoaPods and JSR/CRAN/Julia/Hackage subclass it in their own modules;
`registry.py` names the resolution of each ecosystem.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Final

from pkgintel.domain.errors import PackageNotFound, PkgIntelError, VersionNotFound
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import requirement_met
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.resolution import (
    Environment,
    conflict_why,
    edge_applies,
    find_cycles,
    one_version_per_name,
    pick_version,
)
from pkgintel.domain.trees.values import DependencyTree, TreeNode, Unresolved
from pkgintel.scoring.license_compat import copyleft_family
from pkgintel.services.packages.service import PackageService
from pkgintel.services.reports.service import PackageReport, ReportService
from pkgintel.transport.guard import fan_out

TREE_SOURCE: Final = "dependency-tree"
SKIPPED_MAX: Final = 200
"""Skipped edges listed per tree (`skipped`); more are left out of the answer."""


@dataclass(frozen=True, slots=True)
class ResolutionContext:
    """What every resolution of one `TreeService` reads: the reports and release lists of the
    packages, the install target edges are judged for, how many lookups run at once, the clock."""

    reports: ReportService
    packages: PackageService
    environment: Environment
    concurrency: int
    clock: Callable[[], datetime]


class Resolution:
    """One tree's resolution state (not shared between requests): the level-by-level walk of the
    ecosystems with version ranges. Families with their own rules subclass it (`registry.py`)."""

    def __init__(
        self,
        ctx: ResolutionContext,
        ecosystem: Ecosystem,
        max_depth: int,
        max_deps: int,
        extras: tuple[str, ...],
    ) -> None:
        self.ctx = ctx
        self.eco = ecosystem
        self.max_depth = max_depth
        self.max_deps = max_deps
        self.root_extras = extras
        self.sem = asyncio.Semaphore(ctx.concurrency)
        self.nodes: dict[str, TreeNode] = {}
        self.reports: dict[str, PackageReport] = {}
        self.by_name: dict[str, list[str]] = {}
        self.edges: dict[str, list[str]] = {}
        self.required_by: dict[str, list[str]] = {}
        self.unresolved: list[Unresolved] = []
        self.conflicts: list[dict[str, str]] = []
        self.skipped: list[dict[str, str]] = []
        self.truncation: list[str] = []
        self.sources: dict[tuple[str, str], SourceStatus] = {}
        self.releases: dict[
            str, asyncio.Task[tuple[str, tuple[Release, ...], str] | Unresolved]
        ] = {}
        self._kind_of: dict[str, str] = {}

    async def run(self, name: str, version: str | None) -> DependencyTree:
        root_report = await self.ctx.reports.get_report(self.eco, name, version)
        root = self._add_node(root_report, depth=0, requirement=None, kind="root", parent=None)
        frontier = [root]
        depth = 0
        while frontier:
            depth += 1
            edges: list[tuple[str, Dependency]] = []
            for node_id in frontier:
                edges.extend(self._applicable(node_id))
            if not edges:
                break
            if depth > self.max_depth:
                self._not_expanded(edges, f"max_depth {self.max_depth} reached")
                break
            frontier = await self._level(edges, depth)
        return self._finish(root)

    def _applicable(self, node_id: str) -> list[tuple[str, Dependency]]:
        report = self.reports[node_id]
        info = report.info
        out: list[tuple[str, Dependency]] = []
        extras = self.root_extras if self.nodes[node_id].kind == "root" else ()
        groups = info.extra.get("dependency_groups")
        for dep in info.dependencies:
            decision = edge_applies(
                self.eco,
                dep,
                self.ctx.environment,
                extras,
                groups=groups.split(", ") if groups else None,
            )
            if decision.applies:
                out.append((node_id, dep))
            else:
                self._record_skip(node_id, dep.name, dep.requirement, decision.why)
        return out

    def _record_skip(self, parent: str, name: str, requirement: str, why: str | None) -> None:
        """An edge the installer does not follow, kept for the answer's `skipped` (at most
        `SKIPPED_MAX`)."""
        if len(self.skipped) < SKIPPED_MAX:
            self.skipped.append(
                {
                    "parent": parent,
                    "name": name,
                    "requirement": requirement,
                    "why": why or "not installed",
                }
            )

    def _not_expanded(self, edges: list[tuple[str, Dependency]], why: str) -> None:
        counts: dict[str, int] = {}
        for parent, _ in edges:
            counts[parent] = counts.get(parent, 0) + 1
        for parent, n in counts.items():
            self.nodes[parent] = replace(self.nodes[parent], not_expanded=n)
        self.truncation.append(
            f"{why}: {len(edges)} dependencies of {len(counts)} packages not expanded"
        )

    async def _level(self, edges: list[tuple[str, Dependency]], depth: int) -> list[str]:
        unevaluable: dict[tuple[str, str], str] = {}
        for _, dep in edges:
            norm = normalise_name(self.eco, dep.name)
            why = unevaluable_why(self.eco, dep.requirement)
            if why is not None:
                # a git/file/alias spec names no registry version: nothing to look up
                unevaluable[(norm, dep.requirement)] = why
                continue
            if norm not in self.releases and not self._satisfied(norm, dep.requirement):
                self.releases[norm] = asyncio.create_task(self._release_list(dep.name))
        await asyncio.gather(*self.releases.values())
        new: dict[str, tuple[str, str, str, str]] = {}
        left: list[tuple[str, Dependency]] = []
        for parent, dep in edges:
            norm = normalise_name(self.eco, dep.name)
            existing = self._satisfied(norm, dep.requirement)
            if existing is None and one_version_per_name(self.eco) and self.by_name.get(norm):
                existing = self.by_name[norm][0]
                self._conflict(dep, parent, existing)
            if existing is not None:
                self._link(parent, existing)
                continue
            why = unevaluable.get((norm, dep.requirement))
            if why is not None:
                self.unresolved.append(
                    Unresolved(parent, dep.name, dep.requirement, "unevaluable", why)
                )
                continue
            pending = next(
                (nid for nid, (n, _, _, _) in new.items() if n == norm and self._in(nid, dep)),
                None,
            )
            if pending is None and one_version_per_name(self.eco):
                other = next((nid for nid, (n, _, _, _) in new.items() if n == norm), None)
                if other is not None:
                    self._conflict(dep, parent, other)
                    pending = other
            if pending is not None:
                self._link(parent, pending)
                continue
            task = self.releases.get(norm)
            found = task.result() if task is not None else None
            if found is None or isinstance(found, Unresolved):
                if isinstance(found, Unresolved):
                    self.unresolved.append(
                        replace(found, parent=parent, requirement=dep.requirement)
                    )
                continue
            display, releases, latest = found
            try:
                chosen = pick_version(self.eco, releases, dep.requirement)
            except UnevaluableRequirement as exc:
                self.unresolved.append(
                    Unresolved(parent, dep.name, dep.requirement, "unevaluable", str(exc))
                )
                continue
            if chosen is None:
                self.unresolved.append(
                    Unresolved(
                        parent,
                        dep.name,
                        dep.requirement,
                        "no_matching_version",
                        f"no published version of {display} satisfies {dep.requirement!r}",
                    )
                )
                continue
            node_id = f"{display}@{chosen}"
            if node_id in self.nodes or node_id in new:
                self._link(parent, node_id)
                continue
            if len(self.nodes) - 1 + len(new) >= self.max_deps:
                left.append((parent, dep))
                continue
            # The latest is asked as "no version": the same snapshot the release list came from.
            new[node_id] = (norm, display, chosen if chosen != latest else "", dep.requirement)
            self._link(parent, node_id)
            self._kind_of[node_id] = dep.kind
        if left:
            self._not_expanded(left, f"max_deps {self.max_deps} reached")
        reports = await asyncio.gather(
            *(self._report(display, chosen) for _, display, chosen, _ in new.values())
        )
        added: list[str] = []
        for (node_id, (_, _, _, requirement)), report in zip(new.items(), reports, strict=True):
            if isinstance(report, Unresolved):
                parents = self.required_by.pop(node_id, [])
                for p in parents:
                    self.edges[p] = [c for c in self.edges.get(p, []) if c != node_id]
                    self.unresolved.append(replace(report, parent=p, requirement=requirement))
                continue
            self._add_node(
                report,
                depth=depth,
                requirement=requirement,
                kind=self._kind_of.get(node_id, "runtime"),
                parent=None,
            )
            added.append(node_id)
        return added

    def _conflict(self, dep: Dependency, parent: str, kept: str) -> None:
        self.conflicts.append(
            {
                "package": dep.name,
                "requirement": dep.requirement,
                "required_by": parent,
                "kept": kept,
                "why": conflict_why(self.eco),
            }
        )

    def _in(self, node_id: str, dep: Dependency) -> bool:
        version = node_id.rsplit("@", 1)[1]
        return requirement_met(self.eco, version, dep.requirement) is True

    def _satisfied(self, norm: str, requirement: str) -> str | None:
        for node_id in self.by_name.get(norm, []):
            version = self.nodes[node_id].version
            if requirement_met(self.eco, version, requirement) is True:
                return node_id
        return None

    def _link(self, parent: str, child: str) -> None:
        children = self.edges.setdefault(parent, [])
        if child not in children:
            children.append(child)
        parents = self.required_by.setdefault(child, [])
        if parent not in parents:
            parents.append(parent)

    async def _over_budget(self, eco: Ecosystem, name: str, version: str = "") -> Unresolved | None:
        """`not_looked_up` when `name` (at `version`, "" for the latest) is not cached and the tree
        has used its registry lookups (the request's `upstream_guard.FanOut` budget); None, taking
        one lookup when it is not cached, otherwise."""
        budget = fan_out.get()
        if (
            budget is not None
            and not await self.ctx.packages.is_cached(eco, name, version or None)
            and not budget.take(name)
        ):
            return Unresolved(
                "",
                name,
                version,
                "not_looked_up",
                f"this tree reached its limit of {budget.limit} registry lookups",
            )
        return None

    async def _release_list(self, name: str) -> tuple[str, tuple[Release, ...], str] | Unresolved:
        async with self.sem:
            try:
                refused = await self._over_budget(self.eco, name)
                if refused is not None:
                    return refused
                snap = await self.ctx.packages.get_snapshot(self.eco, name)
            except PackageNotFound as exc:
                return Unresolved("", name, "", "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", name, "", "unavailable", exc.message)
        for src in snap.sources:
            self._source(src)
        return snap.info.name, snap.info.releases, snap.info.latest_version

    async def _report(self, name: str, version: str) -> PackageReport | Unresolved:
        async with self.sem:
            try:
                return await self.ctx.reports.get_report(self.eco, name, version or None)
            except (PackageNotFound, VersionNotFound) as exc:
                return Unresolved("", name, version, "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", name, version, "unavailable", exc.message)

    def _source(self, src: SourceStatus) -> None:
        key = (src.name, src.kind)
        have = self.sources.get(key)
        worse = {SourceState.OK: 0, SourceState.STALE: 1, SourceState.UNAVAILABLE: 2}
        if have is None or worse[src.status] > worse[have.status]:
            self.sources[key] = src
        elif (
            src.status == have.status
            and src.fetched_at is not None
            and (have.fetched_at is None or src.fetched_at < have.fetched_at)
        ):
            self.sources[key] = src  # the oldest data used is the tree's age

    def _add_node(
        self,
        report: PackageReport,
        *,
        depth: int,
        requirement: str | None,
        kind: str,
        parent: str | None,
    ) -> str:
        info = report.info
        version = report.evaluated_version
        node_id = f"{info.name}@{version}"
        vulns = report.vulnerabilities
        known = vulns.status != "unavailable"
        severities = {s: vulns.count(s) for s in ("critical", "high", "medium", "low")} | {
            "unrated": vulns.count(None)
        }
        self.reports[node_id] = report
        self.nodes[node_id] = TreeNode(
            id=node_id,
            name=info.name,
            version=version,
            depth=depth,
            requirement=requirement,
            kind=kind,
            required_by=(),
            latest_version=info.latest_version,
            health_score=report.health.score,
            risk=report.health.risk,
            vulnerabilities=len(vulns.details) if known else None,
            vulnerability_status=vulns.status,
            severities=severities if known else {},
            license=report.license.license,
            license_risk=report.license.license_risk,
            copyleft=copyleft_family(report.license.license),
            deprecated=report.health.deprecated,
            malicious=report.malicious.is_malicious,
            dependencies_known=info.dependencies_version is not None
            and "dependencies_unavailable" not in info.extra,
        )
        self.by_name.setdefault(normalise_name(self.eco, info.name), []).append(node_id)
        for src in report.sources:
            self._source(src)
        return node_id

    def _environment(self) -> dict[str, str]:
        """The install target the edges were judged for (PyPI markers, NuGet framework)."""
        if self.eco is Ecosystem.PYPI:
            return {
                "python_version": self.ctx.environment.python_version,
                "sys_platform": self.ctx.environment.sys_platform,
                "extras": ",".join(self.root_extras),
            }
        if self.eco is Ecosystem.NUGET:
            return {"target_framework": self.ctx.environment.nuget_framework}
        return {}

    def _finish(self, root: str) -> DependencyTree:
        nodes = []
        for node_id, node in self.nodes.items():
            nodes.append(
                replace(
                    node,
                    required_by=tuple(self.required_by.get(node_id, [])[:20]),
                    dependencies=tuple(self.edges.get(node_id, [])),
                )
            )
        nodes.sort(key=lambda n: (n.depth, n.name.lower(), n.version))
        cycles = find_cycles({k: list(v) for k, v in self.edges.items()})
        now = self.ctx.clock()
        truncated = bool(self.truncation) or any(
            u.reason == "not_looked_up" for u in self.unresolved
        )
        sources = (
            SourceStatus(
                TREE_SOURCE,
                "dependency_tree",
                SourceState.OK,
                now,
                f"{len(nodes) - 1} dependencies resolved from the registries' published versions",
            ),
            *self.sources.values(),
        )
        return DependencyTree(
            ecosystem=self.eco,
            root=root,
            nodes=tuple(nodes),
            unresolved=tuple(self.unresolved),
            conflicts=tuple(self.conflicts),
            skipped=tuple(self.skipped),
            cycles=tuple(tuple(c) for c in cycles),
            truncated=truncated,
            truncation=tuple(self.truncation),
            max_depth=self.max_depth,
            max_deps=self.max_deps,
            environment=self._environment(),
            computed_at=now,
            sources=sources,
        )


def unevaluable_why(ecosystem: Ecosystem, requirement: str) -> str | None:
    """Why `requirement` names no registry version (None when it is a range of the ecosystem)."""
    try:
        pick_version(ecosystem, (), requirement)
    except UnevaluableRequirement as exc:
        return str(exc) or "not a version range"
    return None
