"""
Tree resolution for JSR, CRAN, Julia and Hackage: the level-by-level `Resolution` of `services/trees/resolution.py`
with the rules of `domain/trees/jsr_cran_julia_hackage.py`, and two things the registries make different.

- **JSR `npm:` dependencies are npm packages.** Their release lists and reports come from the npm
  registry (`Ecosystem.NPM`), their own dependencies follow npm's rules (`edge_applies` for npm:
  runtime, optional and peer), and their nodes are named `npm:<name>` so the one tree holds both
  registries' packages without a clash (`npm:@std/path` is never `@std/path`).
- **CRAN serves the current version only.** A CRAN package's release list is reduced to its
  current version before a version is picked, so an archived version `install.packages` would not
  install is never chosen; a package removed from CRAN is `unresolved` (`not_found`), since
  `install.packages` cannot install it.

- **Hackage dependencies need the `.cabal` file.** A node whose `.cabal` file could not be read
  has only the package page's merged list (every component, every branch): its edges are not
  followed and it says `dependencies_known: false`.

Everything else (bounds, conflicts, cycles, caching, sources) is `Resolution`'s.
"""

from __future__ import annotations

from dataclasses import replace

from pkgintel.domain.errors import PackageNotFound, PkgIntelError, VersionNotFound
from pkgintel.domain.packages import Dependency, Ecosystem, Release
from pkgintel.domain.trees.cabal import GHC_VERSION, TARGET_ARCH, TARGET_OS
from pkgintel.domain.trees.jsr_cran_julia_hackage import NPM_PREFIX, requirement_met_a
from pkgintel.domain.trees.resolution import edge_applies
from pkgintel.domain.trees.values import Unresolved
from pkgintel.services.packages.service import Snapshot
from pkgintel.services.reports.service import PackageReport
from pkgintel.services.trees.resolution import Resolution


class JsrCranJuliaHackageResolution(Resolution):
    """`Resolution` for the ecosystems of `domain/trees/jsr_cran_julia_hackage.py` (see the module contract)."""

    def _environment(self) -> dict[str, str]:
        if self.eco is Ecosystem.CRAN:
            # CRAN ships no Linux binaries: install.packages builds from source there, and LinkingTo
            # packages are installed (it omits them for binary installs on Windows and macOS)
            return {"platform": "linux", "install": "source"}
        if self.eco is Ecosystem.HACKAGE:
            # the target `.cabal` conditions were decided for (`domain/trees/cabal.py`)
            return {"os": TARGET_OS, "arch": TARGET_ARCH, "ghc": GHC_VERSION, "flags": "defaults"}
        return {}

    def _npm(self, name: str) -> bool:
        return self.eco is Ecosystem.JSR and name.startswith(NPM_PREFIX)

    def _met(self, name: str, version: str, requirement: str) -> bool:
        if self._npm(name):
            return requirement_met_a(Ecosystem.JSR, version, requirement) is True
        return requirement_met_a(self.eco, version, requirement) is True

    def _in(self, node_id: str, dep: Dependency) -> bool:
        version = node_id.rsplit("@", 1)[1]
        return self._met(dep.name, version, dep.requirement)

    def _satisfied(self, norm: str, requirement: str) -> str | None:
        for node_id in self.by_name.get(norm, []):
            if self._met(norm, self.nodes[node_id].version, requirement):
                return node_id
        return None

    def _applicable(self, node_id: str) -> list[tuple[str, Dependency]]:
        info = self.reports[node_id].info
        if (
            self.eco is Ecosystem.HACKAGE
            and info.dependencies
            and "dependencies_source" not in info.extra
        ):
            # no .cabal file: the page's list merges every component and branch, so what the
            # library builds with is not known — said so, not guessed
            self.nodes[node_id] = replace(self.nodes[node_id], dependencies_known=False)
            return []
        if not self._npm(self.nodes[node_id].name):
            return super()._applicable(node_id)
        out: list[tuple[str, Dependency]] = []
        for dep in self.reports[node_id].info.dependencies:
            decision = edge_applies(Ecosystem.NPM, dep, self.ctx.environment)
            named = replace(dep, name=NPM_PREFIX + dep.name)
            if decision.applies:
                out.append((node_id, named))
            else:
                self._record_skip(node_id, named.name, dep.requirement, decision.why)
        return out

    async def _release_list(self, name: str) -> tuple[str, tuple[Release, ...], str] | Unresolved:
        if self.eco is Ecosystem.JSR and not self._npm(name):
            return await super()._release_list(name)
        eco = Ecosystem.NPM if self._npm(name) else self.eco
        snap = await self._snapshot(eco, name.removeprefix(NPM_PREFIX))
        if isinstance(snap, Unresolved):
            return replace(snap, name=name)
        for src in snap.sources:
            self._source(src)
        info = snap.info
        if eco is Ecosystem.NPM:
            return NPM_PREFIX + info.name, info.releases, info.latest_version
        if eco is Ecosystem.CRAN:
            message = info.deprecated_message or ""
            if info.deprecated and message.startswith("removed from"):
                return Unresolved(
                    "",
                    name,
                    "",
                    "not_found",
                    f"{message}; install.packages cannot install a package CRAN no longer serves",
                )
            current = tuple(r for r in info.releases if r.version == info.latest_version)
            return info.name, current, info.latest_version
        return info.name, info.releases, info.latest_version

    async def _snapshot(self, eco: Ecosystem, name: str) -> Snapshot | Unresolved:
        """`PackageService.get_snapshot` within the tree's lookup budget (as `_release_list`)."""
        async with self.sem:
            try:
                refused = await self._over_budget(eco, name)
                if refused is not None:
                    return refused
                return await self.ctx.packages.get_snapshot(eco, name)
            except PackageNotFound as exc:
                return Unresolved("", name, "", "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", name, "", "unavailable", exc.message)

    async def _report(self, name: str, version: str) -> PackageReport | Unresolved:
        if not self._npm(name):
            return await super()._report(name, version)
        async with self.sem:
            try:
                found = await self.ctx.reports.get_report(
                    Ecosystem.NPM, name.removeprefix(NPM_PREFIX), version or None
                )
            except (PackageNotFound, VersionNotFound) as exc:
                return Unresolved("", name, version, "not_found", exc.message)
            except PkgIntelError as exc:
                return Unresolved("", name, version, "unavailable", exc.message)
        info = replace(found.info, name=NPM_PREFIX + found.info.name)
        return replace(found, snapshot=replace(found.snapshot, info=info))


__all__ = ["JsrCranJuliaHackageResolution"]
