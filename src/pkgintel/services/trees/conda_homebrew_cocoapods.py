"""
Conda, Homebrew and CocoaPods trees (`TreeService.tree` for `conda`, `homebrew`, `cocoapods`).

The walk is `services/trees/resolution.py`'s (level by level, newest in range, one version per name, the same
bounds, cache and reports); this resolution changes only what each ecosystem needs
(`domain/trees/conda_homebrew_cocoapods.py` has the rules and their sources):

- **edges**: conda dependencies of a package on a channel other than conda-forge are looked up on
  that channel (`anaconda/six` for an `anaconda/...` parent), as conda resolves a package's
  dependencies from the channels it was installed from; Homebrew build dependencies are listed in
  `skipped` (bottles do not need them), a third-party tap formula is `unresolved` (`unevaluable`);
  CocoaPods `Pod/Subspec` edges go to the pod `Pod`, and a pod node's edges are its root
  dependencies plus those of the subspecs its parents asked for (`domain/trees/conda_homebrew_cocoapods.pod_subspecs`; the
  root's are the request's `extras`, else the default subspecs). A subspec asked for only after
  its pod was expanded is `unresolved` with `not_looked_up` (its dependencies are not in the tree).
- **satisfied / conflict**: a node already in the tree is reused when its version meets the new
  edge's requirement in the ecosystem's grammar (`requirement_met_b`), else the edge is
  a `conflict` (one version per name).
- **environment**: conda — the build platform dependencies were read from and the target Python;
  Homebrew — macOS; CocoaPods — iOS and the subspecs of the root.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem
from pkgintel.domain.trees.conda_homebrew_cocoapods import (
    COCOAPODS_PLATFORM,
    HOMEBREW_PLATFORM,
    POD_ITSELF,
    TAP_WHY,
    is_tap_formula,
    missing_subspecs,
    pod_subspecs,
    requirement_met_b,
)
from pkgintel.domain.trees.resolution import edge_applies
from pkgintel.domain.trees.values import DependencyTree, Unresolved
from pkgintel.services.trees.resolution import Resolution, ResolutionContext

CONDA_DEFAULT_CHANNEL: Final = "conda-forge"
LATE_SUBSPEC_WHY: Final = (
    "this subspec was asked for after its pod was expanded: its own dependencies are not in "
    "this tree"
)


class CondaHomebrewCocoaPodsResolution(Resolution):
    """One conda, Homebrew or CocoaPods tree (see the module contract)."""

    def __init__(
        self,
        ctx: ResolutionContext,
        ecosystem: Ecosystem,
        max_depth: int,
        max_deps: int,
        extras: tuple[str, ...],
    ) -> None:
        super().__init__(ctx, ecosystem, max_depth, max_deps, extras)
        self._asked: dict[tuple[str, str], set[str]] = {}
        """(parent node id, normalised pod) → the subspecs it asked for (`POD_ITSELF`: the pod)."""
        self._expanded_with: dict[str, list[str]] = {}
        """Pod node id → the subspecs its edges were read from."""

    def _declared(self, node_id: str) -> list[Dependency]:
        """The node's declared edges, mapped for the walk (channels, subspecs)."""
        info = self.reports[node_id].info
        if self.eco is Ecosystem.CONDA:
            channel = info.extra.get("channel", CONDA_DEFAULT_CHANNEL)
            if channel == CONDA_DEFAULT_CHANNEL:
                return list(info.dependencies)
            return [
                replace(d, name=f"{channel}/{d.name}") if not d.name.startswith("__") else d
                for d in info.dependencies
            ]
        if self.eco is Ecosystem.HOMEBREW:
            out: list[Dependency] = []
            for d in info.dependencies:
                name = d.name.removeprefix("homebrew/core/")
                if is_tap_formula(name):
                    self.unresolved.append(Unresolved(node_id, name, "", "unevaluable", TAP_WHY))
                    continue
                out.append(replace(d, name=name))
            build = info.extra.get("build_dependencies", "")
            out.extend(Dependency(b.strip(), "", "build") for b in build.split(",") if b.strip())
            return out
        return self._pod_edges(node_id)

    def _pod_edges(self, node_id: str) -> list[Dependency]:
        node = self.nodes[node_id]
        info = self.reports[node_id].info
        norm = normalise_name(self.eco, info.name)
        if node.kind == "root":
            asked: set[str] = set(self.root_extras) or {POD_ITSELF}
        else:
            asked = set()
            for parent in self.required_by.get(node_id, []):
                asked |= self._asked.get((parent, norm), {POD_ITSELF})
        parts = pod_subspecs(info.extra, sorted(asked))
        self._expanded_with[node_id] = parts
        kinds = {"runtime", *(f"extra:{p}" for p in parts)}
        out: list[Dependency] = []
        seen: set[tuple[str, str, str | None]] = set()
        for d in info.dependencies:
            if d.kind not in kinds:
                continue
            pod, _, sub = d.name.partition("/")
            key = (pod, d.requirement, d.marker)
            if key not in seen:
                seen.add(key)
                out.append(replace(d, name=pod, kind="runtime"))
            self._asked.setdefault((node_id, normalise_name(self.eco, pod)), set()).add(
                sub or POD_ITSELF
            )
        return out

    def _applicable(self, node_id: str) -> list[tuple[str, Dependency]]:
        out: list[tuple[str, Dependency]] = []
        for dep in self._declared(node_id):
            decision = edge_applies(self.eco, dep, self.ctx.environment)
            if decision.applies:
                out.append((node_id, dep))
            else:
                self._record_skip(node_id, dep.name, dep.requirement, decision.why)
        return out

    def _in(self, node_id: str, dep: Dependency) -> bool:
        version = node_id.rsplit("@", 1)[1]
        return requirement_met_b(self.eco, version, dep.requirement) is True

    def _satisfied(self, norm: str, requirement: str) -> str | None:
        for node_id in self.by_name.get(norm, []):
            if requirement_met_b(self.eco, self.nodes[node_id].version, requirement) is True:
                return node_id
        return None

    def _environment(self) -> dict[str, str]:
        if self.eco is Ecosystem.CONDA:
            root = next((r for nid, r in self.reports.items() if self.nodes[nid].kind == "root"))
            return {
                "platform": root.info.extra.get("dependencies_platform", ""),
                "python_version": self.ctx.environment.python_version,
                "channel": root.info.extra.get("channel", CONDA_DEFAULT_CHANNEL),
            }
        if self.eco is Ecosystem.HOMEBREW:
            return {"platform": HOMEBREW_PLATFORM}
        root_id = next(nid for nid, n in self.nodes.items() if n.kind == "root")
        return {
            "platform": COCOAPODS_PLATFORM,
            "subspecs": ",".join(self._expanded_with.get(root_id, [])),
        }

    def _finish(self, root: str) -> DependencyTree:
        if self.eco is Ecosystem.COCOAPODS:
            self._late_subspecs()
        return super()._finish(root)

    def _late_subspecs(self) -> None:
        """Subspecs asked of an expanded pod that its expansion did not include, or that its
        chosen version does not have."""
        for node_id, parts in self._expanded_with.items():
            node = self.nodes[node_id]
            extra = self.reports[node_id].info.extra
            norm = normalise_name(self.eco, node.name)
            for parent in self.required_by.get(node_id, []):
                wanted = self._asked.get((parent, norm), set())
                absent = set(missing_subspecs(extra, wanted))
                for sub in sorted(wanted - {POD_ITSELF}):
                    if sub in absent:
                        reason = "not_found"
                        detail = f"{node.id} has no subspec {sub}"
                    elif sub in parts:
                        continue
                    else:
                        reason, detail = "not_looked_up", LATE_SUBSPEC_WHY
                    self.unresolved.append(
                        Unresolved(parent, f"{node.name}/{sub}", "", reason, detail)
                    )
