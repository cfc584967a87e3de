"""
`AdvisoryService`: the `AdvisoryLookup` backed by ingested OSV data, enriched with KEV and EPSS
(`advisories.enrichment`), with the OSV API as the fallback for ecosystems nothing was ingested for;
malicious-package answers come from `advisories.malicious_lookup`, feed freshness from
`advisories.coverage`.

Status contract (`VulnerabilityReport.status`, per ecosystem; precedence in `domain/freshness.py`):

- `complete`: at least one advisory feed for the ecosystem finished its last ingestion run (or the
  OSV API answered, for an ecosystem with no ingested feed), no feed's run is unfinished and none is
  stale.
- `stale`: as `complete`, but a feed used was loaded longer ago than `stale_after_s` or its newest
  record is older than `data_stale_after_s`: recent advisories may be missing (`data_as_of` and the
  feed's source say how old). Malicious-package answers follow the same rule.
- `partial`: data is there but some feed's last run did not finish (under way or killed), so
  records may be missing.
- `unavailable`: no feed holds advisories for the ecosystem and the OSV API is off, unreachable,
  or has no such ecosystem. Never an empty list that reads as "safe".

Each answer lists its sources with their age: every feed used (status `stale` past
`stale_after_s`), plus `cisa-kev` and `epss` (`unavailable` when not loaded). The details of a
vulnerability carry `kev: null` / `epss: null` when that enrichment is not loaded, and
`kev: {"in_catalog": false}` when it is loaded and the CVE is not in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import orjson

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.feeds import StoredRecord
from pkgintel.domain.matching import affecting, group_by_alias, representative
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.osv_ecosystems import osv_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import sort_key
from pkgintel.services.advisories.coverage import (
    Coverage,
    FeedStatuses,
    coverage_from_runs,
    iso,
    with_staleness,
)
from pkgintel.services.advisories.enrichment import Enrichment, cve_ids, detail
from pkgintel.services.advisories.malicious_lookup import MaliciousLookup
from pkgintel.services.advisories.vulnerabilities import MaliciousAnswer, VulnerabilityReport
from pkgintel.sources.osv_schema import InvalidOSVRecord, parse_osv
from pkgintel.storage.base import AdvisoryStore
from pkgintel.transport.guard import fan_out
from pkgintel.transport.memo import SharedFetches

OSV_API_SOURCE = "api.osv.dev"
REPORT_TTL_S = 60.0
SEVERITY_ORDER = ("critical", "high", "medium", "low", "none")


class OsvApi(Protocol):
    """What the fallback needs of `sources.osv_api.OsvApiClient`."""

    async def advisories_for(
        self, osv_ecosystem: str, name: str, version: str | None = None
    ) -> list[Advisory]: ...


@dataclass(slots=True)
class _Entry:
    token: tuple[Any, ...]
    advisories: list[Advisory]
    expires: float = field(default=0.0)
    error: PkgIntelError | None = None


API_FAILURE_TTL_S = 60.0
"""How long an OSV API failure is remembered before asking again (no hammering a down upstream)."""


class AdvisoryService:
    """Implements `AdvisoryLookup`; see the module contract."""

    def __init__(
        self,
        store: AdvisoryStore,
        *,
        clock: Callable[[], datetime],
        stale_after_s: int,
        data_stale_after_s: int = 30 * 86400,
        osv_api: OsvApi | None = None,
        api_ttl_s: float = 21600.0,
        coverage_ttl_s: float = 5.0,
        max_cached_packages: int = 20_000,
    ) -> None:
        self._store = store
        self._clock = clock
        self._osv_api = osv_api
        self._api_ttl_s = api_ttl_s
        self._coverage_ttl_s = coverage_ttl_s
        self._coverage: Coverage | None = None
        self._coverage_at = 0.0
        self._coverage_lock = asyncio.Lock()
        self._cache: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._pins: list[dict[tuple[str, str, str], _Entry]] = []
        """What `pinned` blocks hold (one dict per block running)."""
        self._api_flights = SharedFetches[list[Advisory]]()
        self._reports: OrderedDict[
            tuple[str, str, str], tuple[tuple[Any, ...], VulnerabilityReport, float]
        ] = OrderedDict()
        self._max_cached = max_cached_packages
        self.statuses = FeedStatuses(
            clock=clock, stale_after_s=stale_after_s, data_stale_after_s=data_stale_after_s
        )
        self.enrichment = Enrichment(store, self.statuses)
        self.malicious_lookup = MaliciousLookup(
            store, self.statuses, coverage=self.coverage, advisories=self.advisories
        )

    # -- coverage --------------------------------------------------------------------------
    async def coverage(self) -> Coverage:
        """What is loaded; read from the database at most every `coverage_ttl_s` seconds."""
        now = time.monotonic()
        if self._coverage is not None and now - self._coverage_at < self._coverage_ttl_s:
            return self._coverage
        async with self._coverage_lock:
            if (
                self._coverage is None
                or time.monotonic() - self._coverage_at >= self._coverage_ttl_s
            ):
                self._coverage = coverage_from_runs(await self._store.runs())
                self._coverage_at = time.monotonic()
        return self._coverage

    async def summary(self) -> dict[str, Any]:
        """What advisory data is loaded, per ecosystem and for KEV/EPSS (for status endpoints)."""
        cov = await self.coverage()
        per_eco: dict[str, dict[str, Any]] = {}
        for eco in Ecosystem:
            adv = cov.advisory_runs.get(eco, ())
            mal = cov.malicious_runs.get(eco, ())
            if not adv and not mal:
                continue
            runs = {(r.feed, r.scope): r for r in (*adv, *mal)}.values()
            per_eco[eco.value] = {
                "advisory_records": sum(r.detail.get("advisory_records", 0) for r in runs),
                "malicious_records": sum(r.detail.get("malicious_records", 0) for r in runs),
                "feeds": [
                    {
                        "feed": r.feed,
                        "osv_ecosystem": r.scope,
                        "records": r.records,
                        "completed_at": iso(r.completed_at),
                        "data_updated_at": iso(r.data_updated_at),
                    }
                    for r in runs
                ],
                "complete": all(r.completed for r in runs),
                "data_as_of": iso(
                    max((r.data_updated_at for r in runs if r.data_updated_at), default=None)
                ),
                "stale": any(
                    self.statuses.source(r, "vulnerabilities").status is SourceState.STALE
                    for r in runs
                ),
            }
        return {
            "ecosystems": per_eco,
            "kev": None
            if cov.kev is None
            else {
                "records": cov.kev.records,
                "loaded_at": iso(cov.kev.completed_at),
                "data_updated_at": iso(cov.kev.data_updated_at),
            },
            "epss": None
            if cov.epss is None
            else {
                "records": cov.epss.records,
                "loaded_at": iso(cov.epss.completed_at),
                "data_updated_at": iso(cov.epss.data_updated_at),
            },
            "osv_api_fallback": self._osv_api is not None,
        }

    def invalidate(self) -> None:
        """Forget cached coverage and advisories (after an ingestion in this process)."""
        self._coverage = None
        self._cache.clear()
        self._reports.clear()
        self.enrichment.invalidate()

    # -- advisories ------------------------------------------------------------------------
    async def advisories(self, ecosystem: Ecosystem, name: str) -> list[Advisory]:
        """Every stored, non-withdrawn advisory naming the package (all feeds), parsed; cached
        until the coverage changes."""
        cov = await self.coverage()
        key = normalise_name(ecosystem, name)
        cache_key = ("db", ecosystem.value, key)
        entry = self._cache.get(cache_key)
        if entry is not None and entry.token == cov.token:
            self._cache.move_to_end(cache_key)
            return entry.advisories
        for pins in self._pins:
            pinned = pins.get(cache_key)
            if pinned is not None and pinned.token == cov.token:
                return pinned.advisories
        parsed = _parse_records(await self._store.records_for(ecosystem, key))
        self._remember(cache_key, _Entry(cov.token, parsed))
        return parsed

    async def prefetch(self, ecosystem: Ecosystem, names: Sequence[str]) -> None:
        """Load the stored advisories of many packages in a few queries (before auditing a project);
        later `for_version`/`malicious` calls for them need no database round trip while they stay
        in the bounded cache (`pinned` keeps them for a block, however many)."""
        await self._prefetched(ecosystem, names)

    async def _prefetched(
        self, ecosystem: Ecosystem, names: Sequence[str]
    ) -> dict[tuple[str, str, str], _Entry]:
        """`prefetch`, returning the entry of every name (cached or loaded now)."""
        cov = await self.coverage()
        if not cov.advisory_runs.get(ecosystem) and not cov.malicious_runs.get(ecosystem):
            return {}
        held: dict[tuple[str, str, str], _Entry] = {}
        wanted = []
        for k in {normalise_name(ecosystem, n) for n in names}:
            cache_key = ("db", ecosystem.value, k)
            e = self._cache.get(cache_key)
            if e is not None and e.token == cov.token:
                held[cache_key] = e
            else:
                wanted.append(k)
        if wanted:
            found = await self._store.records_for_many(ecosystem, wanted)
            for key in wanted:
                entry = _Entry(cov.token, _parse_records(found.get(key, [])))
                held[("db", ecosystem.value, key)] = entry
                self._remember(("db", ecosystem.value, key), entry)
        return held

    @contextlib.asynccontextmanager
    async def pinned(self, ecosystem: Ecosystem, names: Sequence[str]) -> AsyncIterator[None]:
        """`prefetch`, and the loaded advisories answered from memory until the block ends, even
        past the cache's bound (`max_cached_packages`): a lockfile may name more packages than the
        cache holds. Still only while the coverage token is unchanged."""
        pins = await self._prefetched(ecosystem, names)
        self._pins.append(pins)
        try:
            yield
        finally:
            self._pins.remove(pins)

    def _remember(self, key: tuple[str, str, str], entry: _Entry) -> None:
        self._cache[key] = entry
        self._cache.move_to_end(key)
        while len(self._cache) > self._max_cached:
            self._cache.popitem(last=False)

    def _api_cached(self, ecosystem: Ecosystem, name: str) -> bool:
        entry = self._cache.get(("api", ecosystem.value, normalise_name(ecosystem, name)))
        return entry is not None and entry.expires > time.monotonic()

    async def _api_advisories(self, ecosystem: Ecosystem, name: str) -> list[Advisory]:
        assert self._osv_api is not None
        key = ("api", ecosystem.value, normalise_name(ecosystem, name))
        entry = self._cache.get(key)
        if entry is not None and entry.expires > time.monotonic():
            if entry.error is not None:
                raise entry.error
            return entry.advisories
        # One OSV API lookup per package at a time: a lockfile naming two versions of one package
        # asks for both at once.
        return await self._api_flights.get(
            "\n".join(key), lambda: self._api_lookup(ecosystem, name, key)
        )

    async def _api_lookup(
        self, ecosystem: Ecosystem, name: str, key: tuple[str, str, str]
    ) -> list[Advisory]:
        assert self._osv_api is not None
        try:
            found = await self._osv_api.advisories_for(osv_name(ecosystem) or "", name, None)
        except PkgIntelError as exc:
            self._remember(key, _Entry((), [], time.monotonic() + API_FAILURE_TTL_S, exc))
            raise
        self._remember(key, _Entry((), found, time.monotonic() + self._api_ttl_s))
        return found

    async def _gather(
        self, ecosystem: Ecosystem, name: str
    ) -> tuple[str, list[Advisory], list[SourceStatus], str | None]:
        """(status, advisories, sources, reason) for the vulnerability feeds of an ecosystem."""
        cov = await self.coverage()
        runs = cov.advisory_runs.get(ecosystem, ())
        if runs:
            sources = [self.statuses.source(r, "vulnerabilities") for r in runs]
            unfinished = [r for r in runs if not r.completed]
            status = "partial" if unfinished else "complete"
            reason = (
                "the last ingestion of "
                + ", ".join(f"{r.feed}:{r.scope}" for r in unfinished)
                + " did not finish; advisories may be missing"
                if unfinished
                else None
            )
            return status, await self.advisories(ecosystem, name), sources, reason
        osv = osv_name(ecosystem)
        if osv is None:
            reason = (
                f"no vulnerability database covers {ecosystem.value} (OSV has no such ecosystem)"
            )
            return (
                "unavailable",
                [],
                [SourceStatus("osv", "vulnerabilities", SourceState.UNAVAILABLE, None, reason)],
                reason,
            )
        if self._osv_api is None:
            reason = f"no {osv} advisories are loaded (pkgintel ingest osv --ecosystem {osv}) and the OSV API fallback is off"
            return (
                "unavailable",
                [],
                [SourceStatus("osv", "vulnerabilities", SourceState.UNAVAILABLE, None, reason)],
                reason,
            )
        budget = fan_out.get()
        if budget is not None and not self._api_cached(ecosystem, name) and not budget.take(name):
            reason = (
                f"not looked up: this request reached its limit of {budget.limit} on-demand OSV API "
                "lookups; ask about this package on its own"
            )
            return (
                "unavailable",
                [],
                [
                    SourceStatus(
                        OSV_API_SOURCE, "vulnerabilities", SourceState.UNAVAILABLE, None, reason
                    )
                ],
                reason,
            )
        try:
            found = await self._api_advisories(ecosystem, name)
        except PkgIntelError as exc:
            reason = f"no {osv} advisories are loaded and the OSV API could not be reached ({exc.message})"
            return (
                "unavailable",
                [],
                [
                    SourceStatus(
                        OSV_API_SOURCE, "vulnerabilities", SourceState.UNAVAILABLE, None, reason
                    )
                ],
                reason,
            )
        return (
            "complete",
            found,
            [
                SourceStatus(
                    OSV_API_SOURCE,
                    "vulnerabilities",
                    SourceState.OK,
                    self._clock(),
                    "queried on demand",
                )
            ],
            None,
        )

    # -- answers ---------------------------------------------------------------------------
    async def for_version(
        self, ecosystem: Ecosystem, name: str, version: str
    ) -> VulnerabilityReport:
        """Advisories (malicious reports excluded: see `malicious`) affecting exactly `version`.
        Answers from ingested data are cached until the coverage changes (an ingestion run)."""
        cov = await self.coverage()
        key = (ecosystem.value, normalise_name(ecosystem, name), version)
        cached = self._reports.get(key)
        now = time.monotonic()
        if cached is not None and cached[0] == cov.token and cached[2] > now:
            self._reports.move_to_end(key)
            return cached[1]
        report = await self._evaluate(ecosystem, name, version, cov)
        if report.status != "unavailable" and not any(
            s.name == OSV_API_SOURCE for s in report.sources
        ):
            # A minute at most, so source ages (ok → stale) stay current without an ingestion.
            self._reports[key] = (cov.token, report, now + REPORT_TTL_S)
            while len(self._reports) > self._max_cached:
                self._reports.popitem(last=False)
        return report

    async def _evaluate(
        self, ecosystem: Ecosystem, name: str, version: str, cov: Coverage
    ) -> VulnerabilityReport:
        status, advisories, sources, reason = await self._gather(ecosystem, name)
        sources.extend(self.enrichment.sources(cov))
        if status == "unavailable":
            return VulnerabilityReport(
                status=status, version=version, sources=tuple(sources), reason=reason
            )
        hits = [a for a in affecting(advisories, ecosystem, name, version) if not a.is_malicious]
        groups = group_by_alias(hits)
        reps = [representative(g) for g in groups]
        cves = sorted({c for g in groups for a in g for c in cve_ids(a)})
        kev = await self.enrichment.kev_for(cves, cov)
        epss = await self.enrichment.epss_for(cves, cov)
        details = [
            detail(rep, group, ecosystem, name, version, cov, kev, epss)
            for rep, group in zip(reps, groups, strict=True)
        ]
        details.sort(
            key=lambda d: (
                SEVERITY_ORDER.index(d["severity"]) if d["severity"] in SEVERITY_ORDER else 5,
                d["id"],
            )
        )
        fixed_version = _lowest_fix_for_all(ecosystem, [d["fixed_in"] for d in details])
        if fixed_version is not None and affecting(hits, ecosystem, name, fixed_version):
            fixed_version = None  # fixes on different branches: no single version fixes all
        max_epss = max((d["epss"]["score"] for d in details if d["epss"]), default=None)
        feed_sources = [s for s in sources if s.kind == "vulnerabilities"]
        data_as_of = max((s.data_as_of for s in feed_sources if s.data_as_of), default=None)
        stale = any(s.status is SourceState.STALE for s in feed_sources)
        return VulnerabilityReport(
            status=with_staleness(status, stale),
            version=version,
            details=tuple(details),
            sources=tuple(sources),
            reason=reason,
            data_as_of=data_as_of,
            stale=stale,
            kev_count=sum(1 for d in details if d["kev"] and d["kev"]["in_catalog"]),
            max_epss=max_epss,
            fixed_version=fixed_version,
            fix_available=bool(details) and all(d["fixed_in"] for d in details),
        )

    async def naming(self, ecosystem: Ecosystem, name: str) -> VulnerabilityReport:
        """
        Every advisory naming the package (malicious reports excluded), whichever versions it
        affects, with `version` None: the answer when no release of the package is known (no
        registry adapter and nothing in the name index). `fixed_in` lists each advisory's first fix.
        """
        cov = await self.coverage()
        status, advisories, sources, reason = await self._gather(ecosystem, name)
        sources.extend(self.enrichment.sources(cov))
        if status == "unavailable":
            return VulnerabilityReport(
                status=status, version=None, sources=tuple(sources), reason=reason
            )
        key = normalise_name(ecosystem, name)
        hits = [
            a
            for a in advisories
            if not a.is_malicious
            and not a.is_withdrawn
            and any(x.ecosystem is ecosystem and x.name == key for x in a.affected)
        ]
        groups = group_by_alias(hits)
        cves = sorted({c for g in groups for a in g for c in cve_ids(a)})
        kev = await self.enrichment.kev_for(cves, cov)
        epss = await self.enrichment.epss_for(cves, cov)
        details = [
            detail(representative(g), g, ecosystem, name, "", cov, kev, epss) for g in groups
        ]
        feed_sources = [s for s in sources if s.kind == "vulnerabilities"]
        stale = any(x.status is SourceState.STALE for x in feed_sources)
        return VulnerabilityReport(
            status=with_staleness(status, stale),
            version=None,
            details=tuple(details),
            sources=tuple(sources),
            reason=(reason + "; " if reason else "")
            + "no release of the package is known, so every advisory naming it is listed",
            kev_count=sum(1 for d in details if d["kev"] and d["kev"]["in_catalog"]),
            max_epss=max((d["epss"]["score"] for d in details if d["epss"]), default=None),
            data_as_of=max((x.data_as_of for x in feed_sources if x.data_as_of), default=None),
            stale=stale,
        )

    # -- malicious packages (`advisories.malicious_lookup`) ---------------------------------
    async def malicious(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> MaliciousAnswer:
        """See `MaliciousLookup.answer`."""
        return await self.malicious_lookup.answer(ecosystem, name, version)

    async def malicious_data(self, ecosystem: Ecosystem) -> tuple[str, tuple[SourceStatus, ...]]:
        """See `MaliciousLookup.data`."""
        return await self.malicious_lookup.data(ecosystem)

    async def malicious_names(self, ecosystem: Ecosystem, names: Sequence[str]) -> set[str] | None:
        """See `MaliciousLookup.names`."""
        return await self.malicious_lookup.names(ecosystem, names)


def _parse_records(records: Sequence[StoredRecord]) -> list[Advisory]:
    """Stored records as advisories (ingestion stores only records that parsed; a record that no
    longer does, after a parser change, is left out rather than failing the answer)."""
    parsed: list[Advisory] = []
    for rec in records:
        try:
            parsed.append(
                parse_osv(orjson.loads(rec.record), source=f"{rec.feed}:{rec.osv_ecosystem}")
            )
        except (orjson.JSONDecodeError, InvalidOSVRecord):
            continue
    return parsed


def _lowest_fix_for_all(ecosystem: Ecosystem, fixes: list[list[str]]) -> str | None:
    """The lowest version that is a fix of every advisory: the highest of each advisory's
    lowest fix (a version fixing all is at least that). None when any advisory has no fix."""
    if not fixes or any(not f for f in fixes):
        return None
    return max((f[0] for f in fixes), key=lambda v: sort_key(ecosystem, v))
