"""
`TreeService`: the transitive dependency tree of one package version (`/api/tree`, `/api/licenses`).

Go is resolved by minimal version selection instead (`services/trees/go.py`, `GoResolution`), Maven
by its scopes and nearest-wins mediation (`services/trees/maven.py`, `MavenResolution`); the
steps below are those of the other ecosystems with version ranges.
Conda, Homebrew and CocoaPods take these steps with their own edges and range tests
(`services/trees/conda_homebrew_cocoapods.py`, `ResolutionB`; rules in `domain/trees/conda_homebrew_cocoapods.py`).
JSR, CRAN, Julia and Hackage likewise (`services/trees/jsr_cran_julia_hackage.py`, `ResolutionA`; rules in
`domain/trees/jsr_cran_julia_hackage.py`).

Resolution, level by level from the root (breadth first, so `depth` is the shortest path):

1. Each resolved node's declared dependencies (`PackageInfo.dependencies` of that exact version) are
   filtered by `domain.trees.resolution.edge_applies` (npm runtime/optional/peer; PEP 508 markers
   and requested extras; Cargo without optional/dev dependencies — features off by default;
   RubyGems runtime; Composer `require` without platform packages; pub without SDK packages;
   Hex without optional requirements; NuGet the dependency group nearest `net8.0`).
2. An edge is satisfied by a node already in the tree when its version is in the range; npm and
   Cargo otherwise add another version beside it (they install several), PyPI, RubyGems,
   Composer, pub, Hex and NuGet keep one version per name and record a `conflict`.
3. Otherwise the package's published versions are looked up (the `PackageService` snapshot, so
   cache → registry → stored copy) and `pick_version` takes the one the installer would (the
   newest in range; NuGet's lowest applicable). No
   published version in range → the edge is `unresolved`; never an invented version.
4. Each new node gets the same `ReportService.get_report` as `/api/check` (health score,
   vulnerability counts, licence), so a node's score is the package's score.

Bounds: `max_depth` levels are expanded (nodes at the last level are not, and say how many
dependencies were left), at most `max_deps` nodes besides the root, at most `max_upstream` packages
fetched from a registry per tree (the request's `upstream_guard.FanOut` budget, replaced for the
tree) and `concurrency` lookups at a time. Everything cut is named (`truncated`, `truncation`).
Each upstream document is asked for once per tree (`upstream_memo.one_answer`): a node's report
reuses the package document its release list was read from.

An unreachable registry for a dependency makes that edge `unresolved` with `reason: unavailable`
and the tree `complete: false`; only a root that cannot be had raises (`RegistryUnavailable` → 503,
`PackageNotFound` → 404). Trees without such gaps are cached for `ttl_s` (24 h), or for
`SHORT_TTL_S` when some node's advisory data was unavailable; trees with gaps are not cached.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import InvalidInput, PackageNotFound, PkgIntelError, VersionNotFound
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import requirement_met
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.trees import jsr_cran_julia_hackage as tree_rules_a
from pkgintel.domain.trees.resolution import (
    TREE_ECOSYSTEMS,
    Environment,
    UnevaluableRequirement,
    conflict_why,
    edge_applies,
    find_cycles,
    one_version_per_name,
    pick_version,
)
from pkgintel.scoring.license_compat import copyleft_family
from pkgintel.services.reports.service import PackageReport, ReportService
from pkgintel.transport.guard import FanOut, fan_out
from pkgintel.transport.memo import one_answer

logger = logging.getLogger(__name__)

TREE_SOURCE: Final = "dependency-tree"
SHORT_TTL_S: Final = 300
"""Cache lifetime of a tree whose advisory data was unavailable."""
_CACHE_VERSION: Final = "tree1"


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


class TreeService:
    """See the module contract."""

    def __init__(
        self,
        reports: ReportService,
        cache: Cache,
        *,
        ttl_s: float = 86_400,
        max_upstream: int = 200,
        concurrency: int = 8,
        environment: Environment | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._reports = reports
        self._packages = reports.packages
        self._cache = cache
        self._ttl = ttl_s
        self._max_upstream = max_upstream
        self._concurrency = concurrency
        self._env = environment or Environment()
        self._clock = clock

    @staticmethod
    def supports(ecosystem: Ecosystem) -> bool:
        return ecosystem in TREE_ECOSYSTEMS

    async def tree(
        self,
        ecosystem: Ecosystem,
        name: str,
        version: str | None = None,
        *,
        max_depth: int = 3,
        max_deps: int = 200,
        extras: Sequence[str] = (),
    ) -> DependencyTree:
        """
        The tree (see the module contract). Raises `InvalidInput` for an ecosystem without tree
        semantics, and what `ReportService.get_report` raises for the root.
        """
        if ecosystem not in TREE_ECOSYSTEMS:
            from pkgintel.domain.trees.conda_homebrew_cocoapods import UNSUPPORTED_WHY

            raise InvalidInput(
                "ecosystem",
                f"dependency trees are resolved for {', '.join(sorted(e.value for e in TREE_ECOSYSTEMS))}; "
                + UNSUPPORTED_WHY.get(
                    ecosystem, f"{ecosystem.value} dependency semantics are not implemented"
                ),
            )
        extras = tuple(sorted({e.strip().lower() for e in extras if e.strip()}))
        key = (
            f"{_CACHE_VERSION}:{ecosystem.value}:{normalise_name(ecosystem, name)}:{version or ''}"
            f":{max_depth}:{max_deps}:{','.join(extras)}"
        )
        cached = await self._cache_get(key)
        if cached is not None:
            return cached
        budget = FanOut(self._max_upstream)
        token = fan_out.set(budget)
        resolution = _Resolution
        if ecosystem is Ecosystem.GO:
            # minimal version selection, not ranges (imported here: it builds on `_Resolution`)
            from pkgintel.services.trees.go import GoResolution

            resolution = GoResolution
        elif ecosystem is Ecosystem.MAVEN:
            # scopes, exclusions, dependencyManagement, nearest-wins mediation
            from pkgintel.services.trees.maven import MavenResolution

            resolution = MavenResolution
        elif ecosystem in (Ecosystem.CONDA, Ecosystem.HOMEBREW, Ecosystem.COCOAPODS):
            from pkgintel.services.trees.conda_homebrew_cocoapods import ResolutionB

            resolution = ResolutionB
        elif ecosystem in tree_rules_a.ECOSYSTEMS:
            # JSR (npm: dependencies from npm), CRAN (current version only), Julia, Hackage
            from pkgintel.services.trees.jsr_cran_julia_hackage import ResolutionA

            resolution = ResolutionA
        try:
            with one_answer():
                result = await resolution(self, ecosystem, max_depth, max_deps, extras).run(
                    name, version
                )
        finally:
            fan_out.reset(token)
        if result.complete:
            # Without advisory data the tree is kept briefly, so counts appear soon after ingestion.
            ttl = self._ttl if result.vulnerabilities_known else min(self._ttl, SHORT_TTL_S)
            await self._cache_set(key, result, ttl)
        return result

    async def _cache_get(self, key: str) -> DependencyTree | None:
        try:
            entry = await self._cache.get(key)
        except CacheUnavailable:
            return None
        if entry is None:
            return None
        try:
            return replace(_decode(entry.value), cache_status="hit")
        except (ValueError, KeyError, TypeError):
            logger.warning("dropping an undecodable cached tree %s", key)
            return None

    async def _cache_set(self, key: str, tree: DependencyTree, ttl: float) -> None:
        try:
            await self._cache.set(key, _encode(tree), ttl_s=ttl)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable on set: %s", exc)


SKIPPED_MAX: Final = 200
"""Skipped edges listed per tree (`skipped`); more are left out of the answer."""


class _Resolution:
    """One tree's resolution state (not shared between requests)."""

    def __init__(
        self,
        service: TreeService,
        ecosystem: Ecosystem,
        max_depth: int,
        max_deps: int,
        extras: tuple[str, ...],
    ) -> None:
        self.s = service
        self.eco = ecosystem
        self.max_depth = max_depth
        self.max_deps = max_deps
        self.root_extras = extras
        self.sem = asyncio.Semaphore(service._concurrency)
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
        root_report = await self.s._reports.get_report(self.eco, name, version)
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
                self.s._env,
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
            why = _unevaluable(self.eco, dep.requirement)
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
            and not await self.s._packages.is_cached(eco, name, version or None)
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
                snap = await self.s._packages.get_snapshot(self.eco, name)
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
                return await self.s._reports.get_report(self.eco, name, version or None)
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
                "python_version": self.s._env.python_version,
                "sys_platform": self.s._env.sys_platform,
                "extras": ",".join(self.root_extras),
            }
        if self.eco is Ecosystem.NUGET:
            return {"target_framework": self.s._env.nuget_framework}
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
        now = self.s._clock()
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


def _unevaluable(ecosystem: Ecosystem, requirement: str) -> str | None:
    """Why `requirement` names no registry version (None when it is a range of the ecosystem)."""
    try:
        pick_version(ecosystem, (), requirement)
    except UnevaluableRequirement as exc:
        return str(exc) or "not a version range"
    return None


def _encode(tree: DependencyTree) -> bytes:
    data = asdict(tree)
    data["ecosystem"] = tree.ecosystem.value
    data["computed_at"] = tree.computed_at.isoformat()
    data["sources"] = [{**asdict(s), "status": s.status.value, **_times(s)} for s in tree.sources]
    return orjson.dumps(data)


def _times(s: SourceStatus) -> dict[str, Any]:
    return {
        "fetched_at": s.fetched_at.isoformat() if s.fetched_at else None,
        "data_as_of": s.data_as_of.isoformat() if s.data_as_of else None,
    }


def _when(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _decode(raw: bytes) -> DependencyTree:
    data = orjson.loads(raw)
    nodes = tuple(
        TreeNode(
            **{
                **n,
                "required_by": tuple(n["required_by"]),
                "dependencies": tuple(n["dependencies"]),
                "minimums": tuple(tuple(m) for m in n.get("minimums", ())),
            }
        )
        for n in data["nodes"]
    )
    sources = tuple(
        SourceStatus(
            s["name"],
            s["kind"],
            SourceState(s["status"]),
            _when(s["fetched_at"]),
            s.get("detail"),
            _when(s.get("data_as_of")),
        )
        for s in data["sources"]
    )
    return DependencyTree(
        ecosystem=Ecosystem(data["ecosystem"]),
        root=data["root"],
        nodes=nodes,
        unresolved=tuple(Unresolved(**u) for u in data["unresolved"]),
        conflicts=tuple(data["conflicts"]),
        skipped=tuple(data["skipped"]),
        cycles=tuple(tuple(c) for c in data["cycles"]),
        truncated=data["truncated"],
        truncation=tuple(data["truncation"]),
        max_depth=data["max_depth"],
        max_deps=data["max_deps"],
        environment=data["environment"],
        computed_at=datetime.fromisoformat(data["computed_at"]),
        sources=sources,
    )


__all__ = ["TREE_SOURCE", "DependencyTree", "TreeNode", "TreeService", "Unresolved"]
