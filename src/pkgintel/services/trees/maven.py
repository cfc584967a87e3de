"""
Maven dependency trees (`TreeService.tree` for `maven`; the rules are in `domain/trees/maven.py`).

The tree is the root's runtime classpath as `mvn dependency:tree -Dscope=runtime` resolves it
when building the root. Breadth first from the root, level by level, so a node's `depth` is its
distance from the root and, within a level, edges keep their POMs' document order:

1. A node's edges are its version's `<dependency>` records (the adapter's, parents' included),
   filtered by `edge_scope` (scope table, optional dependencies of dependencies) and by the
   exclusions declared on the path from the root (`excluded_by`); the rest are `skipped` with why.
2. Mediation: the first edge to reach a `groupId:artifactId` — the nearest, the first declared at
   equal depth — decides its version; every later declaration of it is omitted. One that asks
   another version is listed in `conflicts` with `mediation: nearest_wins` (Maven's normal
   outcome, not an error) or `range_not_met` (a hard range the kept version is outside of).
3. The winning edge's version: the root's dependencyManagement for a transitive dependency, else
   the version its POM declares or manages (`requirement`); a soft version must be published, a
   range takes the highest published version in it (`pick_version`). Unknown versions
   (`${property}` left, none declared or managed) are `unresolved` with reason `unevaluable`,
   versions not published `no_matching_version`; never a guessed one. When the nearest
   declaration does not resolve, farther ones are not used in its place (Maven would fail): they
   are `skipped` with why.
4. Each new node gets `ReportService.get_report` for its version (the POM of that version, its
   score, advisories and licence), as for the other ecosystems.

Node `kind` is the scope the artifact has on the root's classpath (`compile` or `runtime`), or
`optional` for the root's own optional dependencies (a project depending on the root does not get
them). Bounds, caching and sources are `TreeService`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Final

from pkgintel.domain.errors import PackageNotFound, PkgIntelError, VersionNotFound
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency
from pkgintel.domain.trees.maven import (
    MAVEN_BOMS,
    MAVEN_MANAGED_SCOPES,
    MavenDependency,
    UnresolvableVersion,
    dependencies_of,
    edge_scope,
    excluded_by,
    is_range,
    managed_scope,
    managed_versions,
    mediate,
    nearest_wins,
    pick_version,
    requirement,
)
from pkgintel.domain.trees.values import DependencyTree, Unresolved
from pkgintel.services.reports.service import PackageReport
from pkgintel.services.trees.resolution import Resolution

CLASSPATH: Final = (
    "the root's runtime classpath (compile and runtime scopes) as Maven resolves it when building "
    "the root: `mvn dependency:tree -Dscope=runtime`; no profile active"
)


@dataclass(frozen=True, slots=True)
class _Edge:
    parent: str
    dep: MavenDependency
    scope: str
    kind: str
    exclusions: tuple[tuple[str, str], ...]
    """The exclusions in force below the child: the path's and this edge's own."""


class MavenResolution(Resolution):
    """One Maven tree (see the module contract); reuses `Resolution`'s nodes, links, sources."""

    async def run(self, name: str, version: str | None) -> DependencyTree:
        root_report = await self.ctx.reports.get_report(self.eco, name, version)
        root_id = self._add_node(root_report, depth=0, requirement=None, kind="root", parent=None)
        self.root_managed = managed_versions(root_report.info)
        self.root_scopes = managed_versions(root_report.info, MAVEN_MANAGED_SCOPES)
        self.overrides: list[str] = []
        self.unrecorded: list[str] = []
        # groupId:artifactId → the node the nearest declaration resolved to (None: it did not)
        self.placed: dict[str, str | None] = {self._norm(root_report.info.name): root_id}
        self.scope_of: dict[str, str | None] = {root_id: None}
        self.excl_of: dict[str, tuple[tuple[str, str], ...]] = {root_id: ()}
        frontier = [root_id]
        depth = 0
        while frontier:
            depth += 1
            edges: list[_Edge] = []
            for node_id in frontier:
                edges.extend(self._maven_edges(node_id))
            if not edges:
                break
            if depth > self.max_depth:
                self._not_expanded(
                    [(e.parent, Dependency(e.dep.name, e.dep.version or "")) for e in edges],
                    f"max_depth {self.max_depth} reached",
                )
                break
            frontier = await self._maven_level(edges, depth)
        if self.unrecorded:
            self.truncation.append(
                f"{len(self.unrecorded)} POM(s) were read from a stored copy without scopes, "
                "optional flags and exclusions: their dependencies are taken as compile scope, "
                f"none excluded ({', '.join(self.unrecorded[:5])})"
            )
        return self._finish(root_id)

    def _norm(self, name: str) -> str:
        return normalise_name(self.eco, name)

    def _skip(self, parent: str, dep: MavenDependency, why: str) -> None:
        self._record_skip(parent, dep.name, dep.version or "", why)

    def _maven_edges(self, node_id: str) -> list[_Edge]:
        info = self.reports[node_id].info
        deps, recorded = dependencies_of(info)
        if not recorded and deps:
            self.unrecorded.append(node_id)
        parent_scope = self.scope_of[node_id]
        inherited = self.excl_of[node_id]
        out: list[_Edge] = []
        for dep in deps:
            decision = edge_scope(parent_scope, dep)
            if decision.scope is None:
                self._skip(node_id, dep, decision.why or "not on the runtime classpath")
                continue
            if parent_scope is not None:
                managed = managed_scope(parent_scope, dep, self.root_scopes)
                if managed is not None and managed.scope is None:
                    self._skip(node_id, dep, managed.why or "scope managed by the root")
                    continue
                decision = managed or decision
            why = excluded_by(dep, inherited)
            if why is not None:
                self._skip(node_id, dep, why)
                continue
            scope = decision.scope or "compile"
            own = tuple((p, f"the edge {node_id} → {dep.name}") for p in dep.exclusions)
            kind = "optional" if parent_scope is None and dep.optional else scope
            out.append(_Edge(node_id, dep, scope, kind, inherited + own))
        return out

    def _requirement(self, edge: _Edge, depth: int) -> tuple[str, str] | str:
        """`(requirement, source)`, or why the version is unknown."""
        boms = self.reports[edge.parent].info.extra.get(MAVEN_BOMS)
        try:
            return requirement(
                edge.dep, transitive=depth >= 2, root_managed=self.root_managed, boms=boms
            )
        except UnresolvableVersion as exc:
            return str(exc)

    async def _maven_level(self, edges: list[_Edge], depth: int) -> list[str]:
        # 1. mediation: the first edge per artifact at this level wins, unless a nearer one did
        norms = [self._norm(edge.dep.name) for edge in edges]
        first, omitted = nearest_wins(norms, self.placed)
        winners = [(edges[i], norms[i], self._requirement(edges[i], depth)) for i in first]
        losers = [(edges[i], norms[i]) for i in omitted]
        # 2. published versions of every winner asking a range (a soft version is asked directly:
        #    the report of that exact version says whether it is published)
        for edge, norm, req in winners:
            if isinstance(req, tuple) and is_range(req[0]) and norm not in self.releases:
                self.releases[norm] = asyncio.create_task(self._release_list(edge.dep.name))
        await asyncio.gather(*self.releases.values())
        # 3. each winner's version
        asked: list[tuple[_Edge, str, str, str]] = []  # edge, name, version asked, requirement
        left: list[tuple[str, Dependency]] = []
        for edge, norm, req in winners:
            self.placed[norm] = None
            dep = edge.dep
            if isinstance(req, str):
                self.unresolved.append(
                    Unresolved(edge.parent, dep.name, dep.version or "", "unevaluable", req)
                )
                continue
            text, source = req
            ask = self._range_pick(edge, norm, text) if is_range(text) else (dep.name, text)
            if ask is None:
                continue
            if len(self.nodes) - 1 + len(asked) >= self.max_deps:
                left.append((edge.parent, Dependency(dep.name, text)))
                continue
            if source == "dependencyManagement of the root" and dep.version not in (None, text):
                self.overrides.append(f"{dep.name} {dep.version} → {text} (in {edge.parent})")
            asked.append((edge, ask[0], ask[1], text))
        if left:
            self._not_expanded(left, f"max_deps {self.max_deps} reached")
        reports = await asyncio.gather(*(self._version_report(n, v) for _, n, v, _ in asked))
        added: list[str] = []
        for (edge, name, _, text), report in zip(asked, reports, strict=True):
            if isinstance(report, Unresolved):
                self.unresolved.append(replace(report, parent=edge.parent, requirement=text))
                continue
            node_id = self._place(report, edge, depth, text)
            self.placed[self._norm(name)] = node_id
            self._link(edge.parent, node_id)
            added.append(node_id)
        # 4. the omitted declarations, now that every kept version is known
        for edge, norm in losers:
            self._omitted(edge, norm, depth)
        return added

    def _range_pick(self, edge: _Edge, norm: str, text: str) -> tuple[str, str] | None:
        """`(name, version to ask)` for a range: the highest published version in it ("" when that
        is the latest: the snapshot the list came from); None, with the edge unresolved, else."""
        found = self.releases[norm].result()
        if isinstance(found, Unresolved):
            self.unresolved.append(replace(found, parent=edge.parent, requirement=text))
            return None
        display, releases, latest = found
        try:
            chosen = pick_version(releases, text)
        except UnresolvableVersion as exc:
            self.unresolved.append(
                Unresolved(edge.parent, edge.dep.name, text, "unevaluable", str(exc))
            )
            return None
        if chosen is None:
            self.unresolved.append(
                Unresolved(
                    edge.parent,
                    edge.dep.name,
                    text,
                    "no_matching_version",
                    f"no published version of {display} is in {text}",
                )
            )
            return None
        return display, chosen if chosen != latest else ""

    async def _version_report(self, name: str, version: str) -> PackageReport | Unresolved:
        """The report of `name@version` (the latest for ""), counted against the tree's registry
        budget; a version the repository does not list is `no_matching_version`."""
        async with self.sem:
            try:
                refused = await self._over_budget(self.eco, name, version)
                if refused is not None:
                    return refused
                return await self.ctx.reports.get_report(self.eco, name, version or None)
            except VersionNotFound as exc:
                return Unresolved("", name, version, "no_matching_version", exc.message)
            except PackageNotFound as exc:
                return Unresolved("", name, version, "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", name, version, "unavailable", exc.message)

    def _place(self, report: PackageReport, edge: _Edge, depth: int, text: str) -> str:
        node_id = self._add_node(report, depth=depth, requirement=text, kind=edge.kind, parent=None)
        self.scope_of[node_id] = edge.scope
        self.excl_of[node_id] = edge.exclusions
        return node_id

    def _omitted(self, edge: _Edge, norm: str, depth: int) -> None:
        kept = self.placed.get(norm)
        if kept is None:
            self._skip(
                edge.parent,
                edge.dep,
                "Maven's nearest definition of this artifact is not in the tree (`unresolved`, or "
                "past `max_deps`); a farther declaration is not used in its place",
            )
            return
        req = self._requirement(edge, depth)
        if isinstance(req, str):
            self._skip(
                edge.parent,
                edge.dep,
                f"version unknown ({req}); omitted anyway: Maven's nearest definition keeps {kept}",
            )
            if kept != edge.parent:
                self._link(edge.parent, kept)
            return
        outcome = mediate(edge.dep.name, req[0], edge.parent, kept, self.nodes[kept].version)
        if outcome.conflict is not None:
            self.conflicts.append(outcome.conflict)
        if kept != edge.parent:
            self._link(edge.parent, kept)

    def _environment(self) -> dict[str, str]:
        env = {"classpath": CLASSPATH}
        if self.root_managed:
            env["dependency_management"] = (
                f"{len(self.root_managed)} versions managed by the root's POM chain"
            )
        if self.overrides:
            env["managed_versions"] = "; ".join(self.overrides[:50])
        return env


__all__ = ["MavenResolution"]
