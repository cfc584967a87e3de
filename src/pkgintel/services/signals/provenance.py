"""
`ProvenanceService`: release provenance of a package version — whether it carries attestations,
who built and signed it (Sigstore bundle facts), and whether it **lost the provenance its
predecessors had**.

Flow of `get(ecosystem, name, version)`:
1. The registry snapshot (`PackageService`, cached) and the ecosystem's attestation index
   (`ProvenanceSource.fetch_index`, one request, cached like package data) are fetched concurrently.
2. The evaluated version (asked for, else latest) is compared with up to `PREDECESSORS` earlier
   releases (the ecosystem's version order; yanked releases, and pre-releases for a final release,
   left out) using the index flags only (`domain.signals.attestations.compare_with_predecessors`).
3. At most two attestations are fetched (bounded fan-out): the evaluated version's and the nearest
   attested predecessor's, to tell whether the publisher (repository, workflow, issuer) changed.
   Attestations of a published version never change, so they are cached for `FACTS_TTL_S`.

Ecosystems without a provenance source answer `available: false` with the reason; a failing index
answers `available: false` naming the upstream; a failing attestation fetch leaves `facts` null
with the reason (the flags still stand).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final

from pkgintel.cache.base import Cache
from pkgintel.domain.errors import RegistryError, VersionNotFound
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.releases import resolve_version
from pkgintel.domain.signals.attestations import (
    ProvenanceChange,
    ProvenanceIndex,
    SigstoreFacts,
    VersionAttestations,
    compare_with_predecessors,
    predecessors,
    publisher_changed,
)
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, validate_version
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.services.signals.cache import Cached, cached_signal
from pkgintel.sources.provenance.base import ProvenanceSource

FACTS_TTL_S: Final = 7 * 86400

NO_SOURCE_REASONS: Final[Mapping[Ecosystem, str]] = {
    Ecosystem.CARGO: "crates.io publishes no release attestations",
    Ecosystem.GO: "Go modules carry no publisher attestations; the checksum database proves "
    "immutability, not who built a release",
    Ecosystem.MAVEN: "Maven Central's PGP signatures are not read by this service",
    Ecosystem.RUBYGEMS: "RubyGems.org attestations are not read by this service yet",
}
"""Why an ecosystem has no provenance answer; others get the generic sentence."""


def no_source_reason(ecosystem: Ecosystem) -> str:
    return NO_SOURCE_REASONS.get(
        ecosystem,
        f"no provenance source is read for {ecosystem.value}: only npm attestations and PyPI "
        "PEP 740 attestations are",
    )


@dataclass(frozen=True, slots=True)
class VersionProvenance:
    """One version's attestation flags, and its bundle facts when they were fetched."""

    index: VersionAttestations
    facts: tuple[SigstoreFacts, ...] = ()
    facts_status: str = "not_fetched"
    """`ok`, `not_fetched` (not needed: fan-out is bounded), `none` (listed but not served),
    `unavailable` (the attestation fetch failed)."""
    facts_reason: str | None = None
    fetched_at: datetime | None = None
    """When the facts were fetched (they are cached for `FACTS_TTL_S`)."""


@dataclass(frozen=True, slots=True)
class ProvenanceAnswer:
    """`/api/provenance`: see the module docstring."""

    ecosystem: Ecosystem
    package: str
    version: str
    requested_version: str | None
    available: bool
    reason: str | None
    snapshot: Snapshot
    kind: str | None = None
    current: VersionProvenance | None = None
    predecessors: tuple[VersionProvenance, ...] = ()
    change: ProvenanceChange | None = None
    publisher_change: str | None = None
    """A sentence when the evaluated version and its nearest attested predecessor were built from
    a different repository, workflow or issuer."""
    extra_sources: tuple[SourceStatus, ...] = field(default_factory=tuple)

    @property
    def sources(self) -> tuple[SourceStatus, ...]:
        return (*self.snapshot.sources, *self.extra_sources)


def _encode_index(index: ProvenanceIndex) -> dict[str, Any]:
    return {
        "p": index.package,
        "s": index.source,
        "v": [
            [
                v.version,
                v.attested,
                list(v.urls),
                v.files,
                v.attested_files,
                list(v.predicate_types),
                v.registry_signed,
            ]
            for v in index.versions.values()
        ],
    }


def _decode_index(doc: Any) -> ProvenanceIndex:
    return ProvenanceIndex(
        package=doc["p"],
        source=doc["s"],
        versions={
            v: VersionAttestations(v, bool(a), tuple(u), f, af, tuple(t), rs)
            for v, a, u, f, af, t, rs in doc["v"]
        },
    )


def _encode_facts(facts: list[SigstoreFacts]) -> list[dict[str, Any]]:
    out = []
    for f in facts:
        doc = {k: getattr(f, k) for k in SigstoreFacts.__slots__}
        doc["signed_at"] = f.signed_at.isoformat() if f.signed_at else None
        doc["subjects"] = list(f.subjects)
        out.append(doc)
    return out


def _decode_facts(doc: Any) -> list[SigstoreFacts]:
    out = []
    for item in doc:
        item = dict(item)
        item["signed_at"] = datetime.fromisoformat(item["signed_at"]) if item["signed_at"] else None
        item["subjects"] = tuple(item["subjects"])
        out.append(SigstoreFacts(**item))
    return out


class ProvenanceService:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(
        self,
        packages: PackageService,
        sources: Mapping[Ecosystem, ProvenanceSource],
        cache: Cache,
        *,
        ttl_s: float,
        stale_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._packages = packages
        self._sources = sources
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._clock = clock

    def supports(self, ecosystem: Ecosystem) -> bool:
        return ecosystem in self._sources

    async def get(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> ProvenanceAnswer:
        """
        Provenance of `version` (default: latest) of `name`. Raises `InvalidInput` for an unparseable
        version, `VersionNotFound`, and what `PackageService.get_snapshot` raises (`PackageNotFound`,
        `EcosystemNotSupported`, `RegistryUnavailable` with nothing stored). Upstream failures of the
        attestation index or bodies are `available: false` / `facts_status` answers, not errors.
        """
        if version is not None and version.strip().lower() == "latest":
            version = None
        if version is not None:
            version = validate_version(ecosystem, version)
        source = self._sources.get(ecosystem)
        index_task = asyncio.ensure_future(self._index(source, ecosystem, name)) if source else None
        try:
            snapshot = await self._packages.get_snapshot(ecosystem, name)
        except BaseException:
            if index_task is not None:
                index_task.cancel()
            raise
        info = snapshot.info
        target = resolve_version(info, version) if version else info.latest_version
        if info.release(target) is None:
            if index_task is not None:
                index_task.cancel()
            raise VersionNotFound(
                ecosystem.value,
                name,
                target,
                available=newest_first(ecosystem, [r.version for r in info.releases])[:10],
            )
        base = ProvenanceAnswer(
            ecosystem, info.name, target, version, False, no_source_reason(ecosystem), snapshot
        )
        if source is None or index_task is None:
            return base
        try:
            cached = await index_task
        except RegistryError as exc:
            reason = f"{source.index_source} failed ({exc.reason}): {exc.message}"
            return replace(
                base,
                reason=reason,
                kind=source.kind,
                extra_sources=(
                    SourceStatus(
                        source.index_source, "attestations", SourceState.UNAVAILABLE, None, reason
                    ),
                ),
            )
        index = cached.value
        index_source = SourceStatus(
            source.index_source,
            "attestations",
            SourceState.STALE if cached.cache_status == "stale" else SourceState.OK,
            cached.fetched_at,
            cached.detail,
        )
        entry = index.versions.get(target) if index else None
        if index is None or entry is None:
            reason = (
                f"{source.index_source} does not list {target}, so its attestations are unknown"
            )
            return replace(base, reason=reason, kind=source.kind, extra_sources=(index_source,))
        skip = {r.version for r in info.releases if r.yanked}
        if not is_prerelease(ecosystem, target):
            skip |= {r.version for r in info.releases if r.prerelease}
        ordered = [r.version for r in info.releases]
        earlier = [
            index.versions[v]
            for v in predecessors(ordered, target, skip=frozenset(skip))
            if v in index.versions
        ]
        change = compare_with_predecessors(entry, earlier)
        nearest = next((v for v in earlier if v.attested), None) if entry.attested else None
        wanted = [v for v in (entry, nearest) if v is not None and v.attested]
        fetched = await asyncio.gather(*(self._facts(source, info.name, v) for v in wanted))
        by_version = {v.version: vp for v, vp in zip(wanted, fetched, strict=True)}
        current = by_version.get(entry.version, VersionProvenance(entry, facts_status="none"))
        if not entry.attested:
            current = VersionProvenance(entry, facts_status="none")
        preds = tuple(by_version.get(v.version, VersionProvenance(v)) for v in earlier)
        publisher: str | None = None
        if nearest is not None and current.facts and by_version[nearest.version].facts:
            publisher = publisher_changed(current.facts[0], by_version[nearest.version].facts[0])
        attestation_source = _attestation_source(source, [by_version[v.version] for v in wanted])
        return replace(
            base,
            available=True,
            reason=None,
            kind=source.kind,
            current=current,
            predecessors=preds,
            change=change,
            publisher_change=publisher,
            extra_sources=(index_source, *attestation_source),
        )

    async def _index(
        self, source: ProvenanceSource, ecosystem: Ecosystem, name: str
    ) -> Cached[ProvenanceIndex]:
        return await cached_signal(
            self._cache,
            f"prov-index:{ecosystem.value}:{normalise_name(ecosystem, name)}",
            lambda: source.fetch_index(name),
            encode=_encode_index,
            decode=_decode_index,
            ttl_s=self._ttl,
            stale_s=self._stale,
            none_ttl_s=self._ttl,
            now=self._clock,
        )

    async def _facts(
        self, source: ProvenanceSource, name: str, entry: VersionAttestations
    ) -> VersionProvenance:
        async def fetch() -> list[SigstoreFacts] | None:
            return (await source.fetch_facts(name, entry)) or None

        try:
            cached = await cached_signal(
                self._cache,
                f"prov-facts:{source.ecosystem.value}:{normalise_name(source.ecosystem, name)}:{entry.version}",
                fetch,
                encode=_encode_facts,
                decode=_decode_facts,
                ttl_s=FACTS_TTL_S,
                stale_s=FACTS_TTL_S,
                none_ttl_s=self._ttl,
                now=self._clock,
            )
        except RegistryError as exc:
            return VersionProvenance(
                entry,
                facts_status="unavailable",
                facts_reason=f"{source.attestation_source} failed ({exc.reason}): {exc.message}",
            )
        if not cached.value:
            return VersionProvenance(
                entry,
                facts_status="none",
                facts_reason="the index lists attestations the registry did not serve",
            )
        return VersionProvenance(entry, tuple(cached.value), "ok", cached.detail, cached.fetched_at)


def _attestation_source(
    source: ProvenanceSource, fetched: list[VersionProvenance]
) -> tuple[SourceStatus, ...]:
    if not fetched:
        return ()
    failed = [v for v in fetched if v.facts_status == "unavailable"]
    if failed:
        return (
            SourceStatus(
                source.attestation_source,
                "attestation_bundles",
                SourceState.UNAVAILABLE,
                None,
                failed[0].facts_reason,
            ),
        )
    dates = [v.fetched_at for v in fetched if v.fetched_at is not None]
    return (
        SourceStatus(
            source.attestation_source,
            "attestation_bundles",
            SourceState.OK,
            min(dates) if dates else None,
            None,
        ),
    )
