"""
What a package ships, for the report: `bundle` (npm: unpacked size, file count, dependency count
from the packument), `typescript` (npm: bundled types, the DefinitelyTyped `@types/` package and its
version) and the Scorecard of the repository — fetched concurrently with the rest of the report.

Only npm has these facts in its registry metadata; for other ecosystems `bundle` and `typescript`
are None and `null_reasons` says why. Minified and gzip sizes are not published by any registry we
read, so they are always null with that reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from pkgintel.cache.base import Cache
from pkgintel.domain.errors import PackageNotFound, RegistryError
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.services.packages.service import PackageService
from pkgintel.services.signals.cache import cached_signal
from pkgintel.services.signals.scorecard import ScorecardResult, ScorecardService

NOT_NPM = "only npm publishes {what} in its registry metadata; not available for {ecosystem}"
NO_BUNDLER_SIZE = (
    "minified and gzip sizes are not published by the registry and no bundle-size source is queried"
)


@dataclass(frozen=True, slots=True)
class BundleFacts:
    """npm `bundle`: sizes of the version's tarball as the registry states them (None: not stated)."""

    version: str
    unpacked_size_bytes: int | None
    file_count: int | None
    dependencies_count: int | None
    reason: str | None
    """Why a figure is missing, when one is."""


@dataclass(frozen=True, slots=True)
class DefinitelyTyped:
    """The `@types/...` package for an npm package: whether it exists, its latest version."""

    name: str
    exists: bool | None
    """None when the registry could not be asked."""
    latest_version: str | None = None
    deprecated: bool | None = None
    deprecated_message: str | None = None
    reason: str | None = None
    fetched_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class TypescriptFacts:
    """npm `typescript`: declared types of the version and the DefinitelyTyped package."""

    version: str
    bundled_types: bool
    """The manifest declares types (`types`/`typings`, or a `types` condition in `exports`)."""
    types_entry: str | None
    declared_by: str | None
    """`types` (the `types`/`typings` field), `exports`, or `package` (an `@types/` package itself)."""
    definitely_typed: DefinitelyTyped | None
    note: str | None


@dataclass(frozen=True, slots=True)
class ReportArtifacts:
    """The report's `bundle`, `typescript` and `scorecard` (see the module docstring)."""

    bundle: BundleFacts | None
    typescript: TypescriptFacts | None
    scorecard: ScorecardResult | None
    null_reasons: dict[str, str] = field(default_factory=dict)
    sources: tuple[SourceStatus, ...] = ()


def definitely_typed_name(name: str) -> str | None:
    """`@types/<name>` (a scoped `@scope/pkg` becomes `@types/scope__pkg`); None for `@types/*`."""
    if name.startswith("@types/"):
        return None
    return "@types/" + name.lstrip("@").replace("/", "__")


def bundle_facts(info: PackageInfo) -> BundleFacts | None:
    """npm bundle facts of `info.dependencies_version` from the packument (pure); None elsewhere."""
    if info.ecosystem is not Ecosystem.NPM:
        return None
    size = info.extra.get("unpacked_size")
    files = info.extra.get("file_count")
    missing = []
    if size is None:
        missing.append("unpacked size")
    if files is None:
        missing.append("file count")
    reason = (
        f"the registry states no {' or '.join(missing)} for this version "
        "(tarballs published before npm 5 lack them)"
        if missing
        else None
    )
    return BundleFacts(
        version=info.dependencies_version or info.latest_version,
        unpacked_size_bytes=int(size) if size is not None else None,
        file_count=int(files) if files is not None else None,
        dependencies_count=sum(1 for d in info.dependencies if d.kind in ("runtime", "optional"))
        if info.dependencies_version is not None
        else None,
        reason=reason,
    )


class ArtifactService:
    """
    Builds `ReportArtifacts`. The `@types/` lookup goes through the package service; its small result
    is cached on its own (`dt:<name>`), so a warm report does not decode a large `@types/` packument.
    """

    def __init__(
        self,
        packages: PackageService,
        scorecard: ScorecardService | None,
        cache: Cache,
        *,
        ttl_s: float,
        stale_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._packages = packages
        self._scorecard = scorecard
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._clock = clock

    async def for_report(self, info: PackageInfo) -> ReportArtifacts:
        """Bundle, typescript and scorecard facts of a report's package; never raises for upstream
        failures (each part says it is unavailable)."""
        scorecard_task = (
            self._scorecard.for_repository(info.repository) if self._scorecard else _none()
        )
        typescript, scorecard = await asyncio.gather(self.typescript(info), scorecard_task)
        return _artifacts(info, typescript, scorecard)

    def pending(self, info: PackageInfo, reason: str) -> ReportArtifacts:
        """What `for_report` answers from the registry's data alone while its lookups are still
        under way: the bundle facts, the declared types, and the DefinitelyTyped package and the
        Scorecard as unavailable with `reason`."""
        scorecard = self._scorecard.pending(info.repository, reason) if self._scorecard else None
        typescript = self._typescript_facts(
            info, lambda name: DefinitelyTyped(name, None, reason=reason)
        )
        return _artifacts(info, typescript, scorecard)

    async def typescript(self, info: PackageInfo) -> TypescriptFacts | None:
        """TypeScript facts of an npm package (None for other ecosystems)."""
        if info.ecosystem is not Ecosystem.NPM:
            return None
        dt_name = definitely_typed_name(info.name)
        dt = await self.definitely_typed(dt_name) if dt_name else None
        return self._typescript_facts(info, lambda _: dt)

    @staticmethod
    def _typescript_facts(
        info: PackageInfo, definitely_typed: Callable[[str], DefinitelyTyped | None] | None
    ) -> TypescriptFacts | None:
        """The declared types of an npm package (None for other ecosystems), with the
        DefinitelyTyped package `definitely_typed` gives for its name."""
        if info.ecosystem is not Ecosystem.NPM:
            return None
        version = info.dependencies_version or info.latest_version
        entry = info.extra.get("types")
        declared_by = None
        if info.name.startswith("@types/"):
            declared_by = "package"
        elif entry is not None:
            declared_by = "exports" if info.extra.get("types_from") == "exports" else "types"
        dt_name = definitely_typed_name(info.name)
        dt = definitely_typed(dt_name) if dt_name and definitely_typed is not None else None
        note = (
            None
            if declared_by
            else "no types/typings field or types export condition; a .d.ts file beside the "
            "main entry is not visible in registry metadata"
        )
        return TypescriptFacts(
            version=version,
            bundled_types=declared_by is not None,
            types_entry=entry,
            declared_by=declared_by,
            definitely_typed=dt,
            note=note,
        )

    async def definitely_typed(self, name: str) -> DefinitelyTyped:
        """Whether `@types/...` exists on the registry, its latest version and deprecation."""

        async def fetch() -> dict[str, Any]:
            try:
                snap = await self._packages.get_snapshot(Ecosystem.NPM, name)
            except PackageNotFound:
                return {"exists": False}
            info = snap.info
            return {
                "exists": True,
                "latest": info.latest_version,
                "deprecated": info.deprecated,
                "message": info.deprecated_message,
            }

        try:
            cached = await cached_signal(
                self._cache,
                f"dt:{name}",
                fetch,
                encode=lambda doc: doc,
                decode=lambda doc: cast(dict[str, Any], doc),
                ttl_s=self._ttl,
                stale_s=self._stale,
                none_ttl_s=self._ttl,
                now=self._clock,
            )
        except RegistryError as exc:
            return DefinitelyTyped(
                name, None, reason=f"the registry could not be asked ({exc.reason})"
            )
        doc = cached.value or {"exists": False}
        if not doc["exists"]:
            return DefinitelyTyped(
                name, False, reason="no such package on the registry", fetched_at=cached.fetched_at
            )
        return DefinitelyTyped(
            name,
            True,
            latest_version=doc["latest"],
            deprecated=doc["deprecated"],
            deprecated_message=doc["message"],
            fetched_at=cached.fetched_at,
        )


async def _none() -> None:
    return None


def _artifacts(
    info: PackageInfo, typescript: TypescriptFacts | None, scorecard: ScorecardResult | None
) -> ReportArtifacts:
    """The report's artifacts from their parts, with the reasons and sources they imply."""
    reasons: dict[str, str] = {}
    if info.ecosystem is not Ecosystem.NPM:
        eco = info.ecosystem.value
        reasons["bundle"] = NOT_NPM.format(what="tarball sizes", ecosystem=eco)
        reasons["typescript"] = NOT_NPM.format(what="TypeScript declarations", ecosystem=eco)
    sources: list[SourceStatus] = []
    if scorecard is not None and scorecard.source is not None:
        sources.append(scorecard.source)
    dt = typescript.definitely_typed if typescript else None
    if dt is not None:
        sources.append(
            SourceStatus(
                "registry.npmjs.org",
                "definitely_typed",
                SourceState.UNAVAILABLE if dt.exists is None else SourceState.OK,
                dt.fetched_at,
                dt.reason if dt.exists is None else None,
            )
        )
    return ReportArtifacts(
        bundle=bundle_facts(info),
        typescript=typescript,
        scorecard=scorecard,
        null_reasons=reasons,
        sources=tuple(sources),
    )
