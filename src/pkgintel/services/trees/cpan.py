"""
CPAN trees (`TreeService.tree` for `cpan`): the level-by-level walk of `resolution.py` with what a
CPAN install does differently (the rules and their sources are in `domain/trees/cpan.py`).

- **Edges are modules, nodes are distributions.** A release's prerequisites name modules
  (`Plack::Request >= 1.0`); what is installed, listed and versioned is the distribution that ships
  the module. A module is looked up as the PackageService snapshot of that module name: the CPAN
  adapter reads it as its distribution (`Module::Name` → `Module-Name`, else MetaCPAN's module
  index, `GET /v1/module/{Module::Name}`), and the snapshot's release document says the
  distribution's `main_module` and the modules it `provides`.
- **Which edges an install follows**: runtime `requires` only (`domain/trees/cpan.edge_applies`);
  a module that ships with perl 5.36.0 at a version meeting the requirement is `skipped` with that
  reason (`knowledge/cpan_core`, from Module::CoreList); a core module whose shipped version is too
  old is installed from CPAN like any other, unless only perl itself ships it (the module index
  names the `perl` distribution): that edge is `unevaluable` (a newer perl, not a CPAN install).
- **Versions**: the newest release of the distribution that is no developer release and meets the
  range (`domain/trees/cpan.pick_version`). A bounded requirement on a module that is not the
  distribution's main module cannot be checked against distribution versions: the edge is
  `unresolved` with `reason: unevaluable` and why (`domain/trees/cpan.distribution_range`), never
  a guessed version.
- **Already installed**: a module shipped by a distribution already in the tree is satisfied by
  it when its range admits that version (any range for another module than the main one is
  `unevaluable`, as above); otherwise a `conflict` (one version per distribution).

Bounds, budget, reports, caching, sources and cycles are `Resolution`'s.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Final

from pkgintel.domain.errors import PackageNotFound, PkgIntelError
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.ranges import RangeSyntaxError
from pkgintel.domain.trees.cpan import (
    distribution_range,
    edge_applies,
    installed_with_perl,
    pick_version,
    requirement_met,
)
from pkgintel.domain.trees.edges import UnevaluableRequirement
from pkgintel.domain.trees.values import Unresolved
from pkgintel.knowledge.cpan_core import CORE_PERL, core_modules
from pkgintel.services.reports.service import PackageReport
from pkgintel.services.trees.resolution import Resolution, ResolutionContext

PERL_DISTRIBUTION: Final = "perl"
"""The distribution MetaCPAN's module index names for modules only perl itself ships."""


@dataclass(frozen=True, slots=True)
class _Distribution:
    """The distribution a module lookup found: its name, releases, latest version, main module
    and the modules its release ships."""

    name: str
    releases: tuple[Release, ...]
    latest: str
    main_module: str | None
    ships: frozenset[str]


class CpanResolution(Resolution):
    """One CPAN tree (see the module contract)."""

    def __init__(
        self,
        ctx: ResolutionContext,
        ecosystem: Ecosystem,
        max_depth: int,
        max_deps: int,
        extras: tuple[str, ...],
    ) -> None:
        super().__init__(ctx, ecosystem, max_depth, max_deps, extras)
        self.core = core_modules(CORE_PERL)
        self.shipped_by: dict[str, str] = {}
        """Module → the id of the node (distribution version) in the tree that ships it."""
        self.main_of: dict[str, str | None] = {}
        """Node id → the main module of that distribution version."""
        self.lookups: dict[str, asyncio.Task[_Distribution | Unresolved]] = {}
        """Module → its distribution lookup (one per module and tree)."""

    def _add_node(
        self,
        report: PackageReport,
        *,
        depth: int,
        requirement: str | None,
        kind: str,
        parent: str | None,
    ) -> str:
        node_id = super()._add_node(
            report, depth=depth, requirement=requirement, kind=kind, parent=parent
        )
        main = report.info.extra.get("main_module") or None
        self.main_of[node_id] = main
        for module in _shipped(main, report.info.extra.get("provides", "")):
            self.shipped_by.setdefault(module, node_id)
        return node_id

    def _applicable(self, node_id: str) -> list[tuple[str, Dependency]]:
        out: list[tuple[str, Dependency]] = []
        for dep in self.reports[node_id].info.dependencies:
            why = edge_applies(dep)
            if why is None:
                try:
                    why = installed_with_perl(dep, self.core, CORE_PERL)
                except RangeSyntaxError as exc:
                    self.unresolved.append(
                        Unresolved(node_id, dep.name, dep.requirement, "unevaluable", str(exc))
                    )
                    continue
            if why is None:
                out.append((node_id, dep))
            else:
                self._record_skip(node_id, dep.name, dep.requirement, why)
        return out

    async def _level(self, edges: list[tuple[str, Dependency]], depth: int) -> list[str]:
        for _, dep in edges:
            if dep.name not in self.shipped_by and dep.name not in self.lookups:
                self.lookups[dep.name] = asyncio.create_task(self._distribution(dep.name))
        await asyncio.gather(*self.lookups.values())
        new: dict[str, tuple[str, str, str]] = {}
        """New node id → (distribution, version to ask for ("" = latest), requirement)."""
        pending: dict[str, str] = {}
        """Module → the new node that ships it."""
        left: list[tuple[str, Dependency]] = []
        for parent, dep in edges:
            have = self.shipped_by.get(dep.name) or pending.get(dep.name)
            if have is not None:
                self._reuse(parent, dep, have)
                continue
            found = self.lookups[dep.name].result()
            if isinstance(found, Unresolved):
                self.unresolved.append(replace(found, parent=parent, requirement=dep.requirement))
                continue
            if found.name == PERL_DISTRIBUTION:
                self.unresolved.append(
                    Unresolved(parent, dep.name, dep.requirement, "unevaluable", _core_only(dep))
                )
                continue
            try:
                wanted = distribution_range(
                    dep.name, dep.requirement, found.name, found.main_module
                )
                chosen = pick_version(found.releases, wanted)
            except (UnevaluableRequirement, RangeSyntaxError) as exc:
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
                        f"no released version of {found.name} satisfies {dep.requirement!r}",
                    )
                )
                continue
            node_id = f"{found.name}@{chosen}"
            norm = normalise_name(self.eco, found.name)
            other = next(
                (
                    n
                    for n in (*self.by_name.get(norm, []), *new)
                    if n.rsplit("@", 1)[0] == found.name
                ),
                None,
            )
            if node_id in self.nodes or node_id in new:
                self._link(parent, node_id)
                continue
            if other is not None:
                self._conflict(dep, parent, other)
                self._link(parent, other)
                continue
            if len(self.nodes) - 1 + len(new) >= self.max_deps:
                left.append((parent, dep))
                continue
            new[node_id] = (found.name, chosen if chosen != found.latest else "", dep.requirement)
            self.main_of[node_id] = found.main_module
            for module in found.ships | {dep.name}:
                pending.setdefault(module, node_id)
            self._link(parent, node_id)
        if left:
            self._not_expanded(left, f"max_deps {self.max_deps} reached")
        reports = await asyncio.gather(*(self._report(name, v) for name, v, _ in new.values()))
        added: list[str] = []
        for (node_id, (_, _, requirement)), report in zip(new.items(), reports, strict=True):
            if isinstance(report, Unresolved):
                for p in self.required_by.pop(node_id, []):
                    self.edges[p] = [c for c in self.edges.get(p, []) if c != node_id]
                    self.unresolved.append(replace(report, parent=p, requirement=requirement))
                continue
            self._add_node(
                report, depth=depth, requirement=requirement, kind="runtime", parent=None
            )
            added.append(node_id)
        return added

    def _reuse(self, parent: str, dep: Dependency, have: str) -> None:
        """The edge `dep` to a module the node `have` (in the tree or about to be) ships."""
        dist, version = have.rsplit("@", 1)
        try:
            wanted = distribution_range(dep.name, dep.requirement, dist, self.main_of.get(have))
        except UnevaluableRequirement as exc:
            self.unresolved.append(
                Unresolved(
                    parent,
                    dep.name,
                    dep.requirement,
                    "unevaluable",
                    f"{exc}; {have} in this tree ships it",
                )
            )
            return
        if requirement_met(version, wanted) is not True:
            self._conflict(dep, parent, have)
        self._link(parent, have)

    async def _distribution(self, module: str) -> _Distribution | Unresolved:
        """The distribution that ships `module`, within the tree's lookup budget."""
        async with self.sem:
            try:
                refused = await self._over_budget(self.eco, module)
                if refused is not None:
                    return refused
                snap = await self.ctx.packages.get_snapshot(self.eco, module)
            except PackageNotFound:
                return Unresolved(
                    "",
                    module,
                    "",
                    "not_found",
                    f"no distribution on MetaCPAN ships the module {module}",
                )
            except PkgIntelError as exc:
                return Unresolved("", module, "", "unavailable", exc.message)
        for src in snap.sources:
            self._source(src)
        info = snap.info
        main = info.extra.get("main_module") or None
        return _Distribution(
            name=info.name,
            releases=info.releases,
            latest=info.latest_version,
            main_module=main,
            ships=frozenset(_shipped(main, info.extra.get("provides", ""))),
        )

    def _environment(self) -> dict[str, str]:
        # modules shipped with this perl are not installed (`knowledge/cpan_core`)
        return {"perl": CORE_PERL, "installer": "cpanm"}


def _core_only(dep: Dependency) -> str:
    return (
        f"{dep.name} is shipped only with perl itself, at a version below {dep.requirement!r} in "
        f"perl {CORE_PERL}: it comes with a newer perl, not from a CPAN distribution"
    )


def _shipped(main: str | None, provides: str) -> list[str]:
    """The modules a release ships: its main module and its `provides` (space-separated)."""
    return [m for m in (main or "", *provides.split()) if m]


__all__ = ["CpanResolution"]
