"""
`TreeService`: the transitive dependency tree of one package version (`/api/tree`, `/api/licenses`):
bounds, the request's lookup budget and the cache (`codec.py`) around one resolution, the one
`registry.RESOLUTIONS` names for the ecosystem.

The steps below are those of the ecosystems with version ranges (`resolution.py`, `Resolution`).
Go is resolved by minimal version selection instead (`go.py`, `GoResolution`), Maven by its scopes
and nearest-wins mediation (`maven.py`, `MavenResolution`). Conda, Homebrew and CocoaPods take these
steps with their own edges and range tests (`conda_homebrew_cocoapods.py`,
`CondaHomebrewCocoaPodsResolution`; rules in `domain/trees/conda_homebrew_cocoapods.py`); JSR, CRAN,
Julia and Hackage likewise (`jsr_cran_julia_hackage.py`, `JsrCranJuliaHackageResolution`; rules in
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

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Final

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.trees.conda_homebrew_cocoapods import UNSUPPORTED_WHY
from pkgintel.domain.trees.resolution import TREE_ECOSYSTEMS, Environment
from pkgintel.domain.trees.values import DependencyTree
from pkgintel.services.reports.service import ReportService
from pkgintel.services.trees.codec import decode_tree, encode_tree
from pkgintel.services.trees.registry import RESOLUTIONS
from pkgintel.services.trees.resolution import ResolutionContext
from pkgintel.transport.guard import FanOut, fan_out
from pkgintel.transport.memo import one_answer

logger = logging.getLogger(__name__)

SHORT_TTL_S: Final = 300
"""Cache lifetime of a tree whose advisory data was unavailable."""
_CACHE_VERSION: Final = "tree1"


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
        self._ctx = ResolutionContext(
            reports, reports.packages, environment or Environment(), concurrency, clock
        )
        self._cache = cache
        self._ttl = ttl_s
        self._max_upstream = max_upstream

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
        resolution = RESOLUTIONS[ecosystem]
        try:
            with one_answer():
                result = await resolution(self._ctx, ecosystem, max_depth, max_deps, extras).run(
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
            return replace(decode_tree(entry.value), cache_status="hit")
        except (ValueError, KeyError, TypeError):
            logger.warning("dropping an undecodable cached tree %s", key)
            return None

    async def _cache_set(self, key: str, tree: DependencyTree, ttl: float) -> None:
        try:
            await self._cache.set(key, encode_tree(tree), ttl_s=ttl)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable on set: %s", exc)


__all__ = ["TreeService"]
