"""
Go module trees by minimal version selection (`TreeService.tree` for `go`; `domain/trees/mvs.py`).

The tree answers "what does `go get <module>@<version>` put in my build": the main module is a new
module at go 1.17 or later that requires only the root. So:

- A module version's edges are the `require` lines of its go.mod (`PackageInfo.dependencies`;
  `// indirect` ones included, kind `indirect`: they are part of the module graph MVS reads).
- Every reached module version's go.mod is read (`PackageService.get_snapshot` of that exact
  version), the selected one or not: its requirements count for MVS. A required version the proxy
  does not list (a pseudo-version) is taken when the proxy serves its `.info` (the Go adapter).
- Graph pruning: when the root's go.mod says go 1.17 or later, only the root's requirements join
  the graph (that go.mod lists every module its packages need); the requirements of those modules
  are `skipped` with why. Otherwise (go 1.16 or earlier, or no `go` line) every reached go.mod's
  requirements join it, breadth first to `max_depth`.
- Each module path gets one node, at the highest minimum version required of it in the explored
  graph (MVS); its `minimums` list who required which version. A node's edges are the requirements
  of its selected version. There are no conflicts; a requirement on a higher version of the root
  itself is reported in `conflicts` (the build would use that version, the tree shows the one asked).
- The root's `replace` and `exclude` directives are ignored, as the go command ignores them in any
  module but the main one.

Bounds as for the other ecosystems: requirements past `max_depth` are not read (`not_expanded`),
at most `max_deps` module paths besides the root, the request's registry budget. A truncated graph
can miss a requirement that would raise a selected version: `truncation` says so.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Final

from pkgintel.domain.errors import PackageNotFound, PkgIntelError, VersionNotFound
from pkgintel.domain.packages import Dependency, PackageInfo
from pkgintel.domain.trees.mvs import ModuleVersion, highest, newer, prunes
from pkgintel.domain.trees.values import DependencyTree, Unresolved
from pkgintel.services.trees.resolution import Resolution

MAIN_MODULE: Final = (
    "a new module at go 1.17 or later requiring only the root (`go get`); the root's replace and "
    "exclude directives are ignored, as in any module but the main one"
)
PRUNED_WHY: Final = (
    "pruned from the module graph: the root's go.mod is at go 1.17 or later and lists every "
    "module its packages need (Go module graph pruning)"
)


class GoResolution(Resolution):
    """One Go tree (see the module contract); reuses `Resolution`'s nodes, links and sources."""

    async def run(self, name: str, version: str | None) -> DependencyTree:
        root_report = await self.ctx.reports.get_report(self.eco, name, version)
        root_id = self._add_node(root_report, depth=0, requirement=None, kind="root", parent=None)
        root_info = root_report.info
        root: ModuleVersion = (root_info.name, root_report.evaluated_version)
        self.go_directive = root_info.extra.get("go")
        self.pruned = prunes(self.go_directive)
        loaded: dict[ModuleVersion, PackageInfo | Unresolved] = {root: root_info}
        depth_of: dict[str, int] = {root[0]: 0}
        # (child path, child version, requiring module version, edge kind) in discovery order
        required: list[tuple[str, str, ModuleVersion, str]] = []
        not_expanded: dict[ModuleVersion, int] = {}
        frontier = [root]
        depth = 0
        while frontier:
            depth += 1
            edges: list[tuple[ModuleVersion, Dependency]] = []
            for mv in frontier:
                info = loaded[mv]
                if not isinstance(info, PackageInfo):
                    continue
                if self.pruned and mv != root:
                    self._skip_pruned(mv, info)
                    continue
                edges.extend((mv, dep) for dep in info.dependencies)
            if not edges:
                break
            if depth > self.max_depth:
                self._count(not_expanded, edges)
                self.truncation.append(
                    f"max_depth {self.max_depth} reached: {len(edges)} requirements of "
                    f"{len({mv for mv, _ in edges})} module versions not read; a requirement "
                    "below can raise a selected version"
                )
                break
            wanted: list[ModuleVersion] = []
            left: list[tuple[ModuleVersion, Dependency]] = []
            for parent, dep in edges:
                child = (dep.name, dep.requirement)
                if dep.name not in depth_of:
                    if len(depth_of) - 1 >= self.max_deps:
                        left.append((parent, dep))
                        continue
                    depth_of[dep.name] = depth
                required.append((dep.name, dep.requirement, parent, dep.kind))
                if child not in loaded and child not in wanted:
                    wanted.append(child)
            if left:
                self._count(not_expanded, left)
                self.truncation.append(
                    f"max_deps {self.max_deps} reached: {len(left)} requirements of "
                    f"{len({mv for mv, _ in left})} module versions not followed; a requirement "
                    "left out can raise a selected version"
                )
            results = await asyncio.gather(*(self._load(path, v) for path, v in wanted))
            loaded.update(zip(wanted, results, strict=True))
            frontier = wanted
        await self._select(root_id, root, loaded, depth_of, required, not_expanded)
        return self._finish(root_id)

    def _count(
        self, counts: dict[ModuleVersion, int], edges: list[tuple[ModuleVersion, Dependency]]
    ) -> None:
        for mv, _ in edges:
            counts[mv] = counts.get(mv, 0) + 1

    def _skip_pruned(self, mv: ModuleVersion, info: PackageInfo) -> None:
        for dep in info.dependencies:
            self._record_skip(f"{mv[0]}@{mv[1]}", dep.name, dep.requirement, PRUNED_WHY)

    async def _load(self, path: str, version: str) -> PackageInfo | Unresolved:
        """The go.mod requirements of `path@version` (the exact version, never another)."""
        async with self.sem:
            try:
                refused = await self._over_budget(self.eco, path, version)
                if refused is not None:
                    return refused
                snap = await self.ctx.packages.get_snapshot(self.eco, path, version)
            except (PackageNotFound, VersionNotFound) as exc:
                return Unresolved("", path, version, "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", path, version, "unavailable", exc.message)
        for src in snap.sources:
            self._source(src)
        return snap.info

    async def _select(
        self,
        root_id: str,
        root: ModuleVersion,
        loaded: dict[ModuleVersion, PackageInfo | Unresolved],
        depth_of: dict[str, int],
        required: list[tuple[str, str, ModuleVersion, str]],
        not_expanded: dict[ModuleVersion, int],
    ) -> None:
        """Select each path's version (MVS), add one node per path, link selected versions."""
        minimums: dict[str, list[tuple[str, str, str]]] = {}
        for path, version, parent, kind in required:
            minimums.setdefault(path, []).append((version, f"{parent[0]}@{parent[1]}", kind))
            failed = loaded.get((path, version))
            if isinstance(failed, Unresolved):
                self.unresolved.append(
                    replace(failed, parent=f"{parent[0]}@{parent[1]}", requirement=version)
                )
        selected = {path: highest(v for v, _, _ in mins) for path, mins in minimums.items()}
        root_path = root[0]
        if root_path in selected and newer(selected[root_path], root[1]):
            higher = selected[root_path]
            self.conflicts.append(
                {
                    "package": root_path,
                    "requirement": higher,
                    "required_by": next(by for v, by, _ in minimums[root_path] if v == higher),
                    "kept": root_id,
                    "why": (
                        f"minimal version selection raises {root_path} to {higher} in a build "
                        f"that requires {root[1]}: this tree shows the version asked for"
                    ),
                }
            )
        chosen: list[tuple[str, str]] = []
        for path, version in selected.items():
            if path == root_path:
                continue
            found = loaded.get((path, version))
            if isinstance(found, PackageInfo):
                chosen.append((path, version))
                continue
            # The selected version's go.mod could not be read: the edges asking lower versions
            # cannot resolve either (the build would use that version).
            for v, by, _ in minimums[path]:
                if v != version and isinstance(found, Unresolved):
                    self.unresolved.append(
                        replace(
                            found,
                            parent=by,
                            requirement=v,
                            detail=f"minimal version selection picks {path}@{version}: "
                            f"{found.detail}",
                        )
                    )
        reports = await asyncio.gather(*(self._report(p, v) for p, v in chosen))
        ids: dict[str, str] = {root_path: root_id}
        for (path, version), report in zip(chosen, reports, strict=True):
            if isinstance(report, Unresolved):
                for v, by, _ in minimums[path]:
                    self.unresolved.append(replace(report, parent=by, requirement=v))
                continue
            kind = next(k for v, _, k in minimums[path] if v == version)
            node_id = self._add_node(
                report, depth=depth_of[path], requirement=version, kind=kind, parent=None
            )
            ids[path] = node_id
            self.nodes[node_id] = replace(
                self.nodes[node_id],
                minimums=tuple((by, v) for v, by, _ in minimums[path]),
                not_expanded=not_expanded.get((path, version), 0),
            )
        self.nodes[root_id] = replace(self.nodes[root_id], not_expanded=not_expanded.get(root, 0))
        # A node's edges: the requirements of its selected version (the root's own for the root).
        for path, node_id in ids.items():
            mv = root if path == root_path else (path, selected[path])
            info = loaded.get(mv)
            if not isinstance(info, PackageInfo) or (self.pruned and mv != root):
                continue
            for dep in info.dependencies:
                child = ids.get(dep.name)
                if child is not None and child != node_id:
                    self._link(node_id, child)

    def _environment(self) -> dict[str, str]:
        return {
            "main_module": MAIN_MODULE,
            "module_graph": (
                f"pruned: the root's go.mod says go {self.go_directive}"
                if self.pruned
                else f"unpruned: the root's go.mod says go {self.go_directive or '(none: 1.16)'}"
            ),
        }


__all__ = ["GoResolution"]
