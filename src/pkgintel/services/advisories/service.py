"""
`AdvisoryService`: the `AdvisoryLookup` backed by ingested OSV data, enriched with KEV and EPSS,
with the OSV API as the fallback for ecosystems nothing was ingested for.

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
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import orjson

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.feeds import EpssFact, KevFact, SourceRun, StoredRecord
from pkgintel.domain.matching import (
    affecting,
    affects,
    fixed_versions,
    group_by_alias,
    representative,
)
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.osv_ecosystems import ecosystem_from_osv, osv_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import sort_key
from pkgintel.services.advisories.ingest import EPSS_FEED, KEV_FEED
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


@dataclass(frozen=True, slots=True)
class Coverage:
    """What is loaded, from the `source_run` table (refreshed every few seconds)."""

    advisory_runs: dict[Ecosystem, tuple[SourceRun, ...]]
    malicious_runs: dict[Ecosystem, tuple[SourceRun, ...]]
    kev: SourceRun | None
    epss: SourceRun | None
    token: tuple[Any, ...]
    """Changes whenever any run starts or finishes (invalidates cached advisories)."""


@dataclass(slots=True)
class _Entry:
    token: tuple[Any, ...]
    advisories: list[Advisory]
    expires: float = field(default=0.0)
    error: PkgIntelError | None = None


API_FAILURE_TTL_S = 60.0
"""How long an OSV API failure is remembered before asking again (no hammering a down upstream)."""
SOURCE_MEMO_SIZE = 256
"""Shared source statuses held at most (feeds x kinds x minutes); past it the memo starts anew."""


def coverage_from_runs(runs: Sequence[SourceRun]) -> Coverage:
    """Sort the runs into per-ecosystem advisory feeds and malicious feeds, plus KEV and EPSS."""
    adv: dict[Ecosystem, list[SourceRun]] = {}
    mal: dict[Ecosystem, list[SourceRun]] = {}
    kev = epss = None
    for run in runs:
        if run.feed == KEV_FEED:
            kev = run
            continue
        if run.feed == EPSS_FEED:
            epss = run
            continue
        eco = ecosystem_from_osv(run.scope)
        if eco is None:
            continue
        # An unfinished run may hold either kind: count it for both until it says otherwise.
        if not run.completed or run.detail.get("advisory_records", 0) > 0:
            adv.setdefault(eco, []).append(run)
        if not run.completed or run.detail.get("malicious_records", 0) > 0:
            mal.setdefault(eco, []).append(run)
    token = tuple(sorted((r.feed, r.scope, str(r.started_at), str(r.completed_at)) for r in runs))
    return Coverage(
        {k: tuple(v) for k, v in adv.items()},
        {k: tuple(v) for k, v in mal.items()},
        kev,
        epss,
        token,
    )


def _days(seconds: float) -> str:
    days = seconds / 86400
    return f"{days:g} day{'s' if days != 1 else ''}"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def cve_ids(advisory: Advisory) -> list[str]:
    """The CVE ids among an advisory's id and aliases."""
    return sorted(i for i in advisory.ids if i.upper().startswith("CVE-"))


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
        self._stale_after_s = stale_after_s
        self._data_stale_after_s = data_stale_after_s
        self._osv_api = osv_api
        self._api_ttl_s = api_ttl_s
        self._coverage_ttl_s = coverage_ttl_s
        self._coverage: Coverage | None = None
        self._coverage_at = 0.0
        self._coverage_lock = asyncio.Lock()
        self._cache: OrderedDict[tuple[str, str, str], _Entry] = OrderedDict()
        self._api_flights = SharedFetches[list[Advisory]]()
        self._reports: OrderedDict[
            tuple[str, str, str], tuple[tuple[Any, ...], VulnerabilityReport, float]
        ] = OrderedDict()
        self._kev_cache: dict[str, KevFact] = {}
        self._kev_token: tuple[Any, ...] | None = None
        self._kev_lock = asyncio.Lock()
        self._epss_cache: dict[str, EpssFact | None] = {}
        self._epss_token: tuple[Any, ...] | None = None
        self._max_cached = max_cached_packages
        self._source_memo: dict[tuple[int, str, datetime], tuple[SourceRun, SourceStatus]] = {}

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
                        "completed_at": _iso(r.completed_at),
                        "data_updated_at": _iso(r.data_updated_at),
                    }
                    for r in runs
                ],
                "complete": all(r.completed for r in runs),
                "data_as_of": _iso(
                    max((r.data_updated_at for r in runs if r.data_updated_at), default=None)
                ),
                "stale": any(
                    self._source(r, "vulnerabilities").status is SourceState.STALE for r in runs
                ),
            }
        return {
            "ecosystems": per_eco,
            "kev": None
            if cov.kev is None
            else {
                "records": cov.kev.records,
                "loaded_at": _iso(cov.kev.completed_at),
                "data_updated_at": _iso(cov.kev.data_updated_at),
            },
            "epss": None
            if cov.epss is None
            else {
                "records": cov.epss.records,
                "loaded_at": _iso(cov.epss.completed_at),
                "data_updated_at": _iso(cov.epss.data_updated_at),
            },
            "osv_api_fallback": self._osv_api is not None,
        }

    def invalidate(self) -> None:
        """Forget cached coverage and advisories (after an ingestion in this process)."""
        self._coverage = None
        self._cache.clear()
        self._reports.clear()
        self._kev_token = self._epss_token = None

    def _source(self, run: SourceRun, kind: str) -> SourceStatus:
        """
        The source status of a feed's run: one shared object per run, kind and minute of the
        clock (every answer of a 15,000-package audit carries the same few, and 54,000 copies
        were objects the collector walked on the event loop). Staleness is judged per minute.
        """
        minute = self._clock().replace(second=0, microsecond=0)
        key = (id(run), kind, minute)
        held = self._source_memo.get(key)
        if held is not None and held[0] is run:
            return held[1]
        if len(self._source_memo) >= SOURCE_MEMO_SIZE:
            self._source_memo.clear()
        status = self._judge(run, kind)
        self._source_memo[key] = (run, status)
        return status

    def _judge(self, run: SourceRun, kind: str) -> SourceStatus:
        if not run.completed:
            return SourceStatus(
                run.feed,
                kind,
                SourceState.STALE,
                run.started_at,
                f"{run.scope or run.feed}: ingestion under way or interrupted; data may be incomplete",
            )
        now = self._clock()
        age = (now - run.completed_at).total_seconds() if run.completed_at else 0
        data_age = (
            (now - run.data_updated_at).total_seconds() if run.data_updated_at is not None else None
        )
        parts = [f"{run.records:,} records" if run.scope else None]
        if run.data_updated_at:
            parts.append(f"newest record {_iso(run.data_updated_at)}")
        state = SourceState.OK
        if age > self._stale_after_s:
            state = SourceState.STALE
            parts.append(f"loaded more than {_days(self._stale_after_s)} ago")
        if data_age is not None and data_age > self._data_stale_after_s:
            state = SourceState.STALE
            parts.append(f"newest record older than {_days(self._data_stale_after_s)}")
        detail = "; ".join(p for p in parts if p) or None
        return SourceStatus(
            f"{run.feed}:{run.scope}" if run.scope else run.feed,
            kind,
            state,
            run.completed_at,
            detail,
            run.data_updated_at,
        )

    def _enrichment_sources(self, cov: Coverage) -> list[SourceStatus]:
        out = []
        for run, name, kind in (
            (cov.kev, KEV_FEED, "exploited_catalog"),
            (cov.epss, EPSS_FEED, "exploit_probability"),
        ):
            if run is None:
                out.append(
                    SourceStatus(
                        name,
                        kind,
                        SourceState.UNAVAILABLE,
                        None,
                        f"{name} not loaded (pkgintel ingest {name.removeprefix('cisa-')})",
                    )
                )
            else:
                out.append(self._source(run, kind))
        return out

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
        parsed = _parse_records(await self._store.records_for(ecosystem, key))
        self._remember(cache_key, _Entry(cov.token, parsed))
        return parsed

    async def prefetch(self, ecosystem: Ecosystem, names: Sequence[str]) -> None:
        """Load the stored advisories of many packages in a few queries (before auditing a project);
        later `for_version`/`malicious` calls for them need no database round trip."""
        cov = await self.coverage()
        if not cov.advisory_runs.get(ecosystem) and not cov.malicious_runs.get(ecosystem):
            return
        keys = {normalise_name(ecosystem, n) for n in names}
        wanted = [
            k
            for k in keys
            if (e := self._cache.get(("db", ecosystem.value, k))) is None or e.token != cov.token
        ]
        if not wanted:
            return
        found = await self._store.records_for_many(ecosystem, wanted)
        for key in wanted:
            self._remember(
                ("db", ecosystem.value, key), _Entry(cov.token, _parse_records(found.get(key, [])))
            )

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
            sources = [self._source(r, "vulnerabilities") for r in runs]
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

    async def _kev_for(self, cves: list[str], cov: Coverage) -> dict[str, KevFact]:
        if cov.kev is None or not cves:
            return {}
        if self._kev_token != cov.token:
            async with self._kev_lock:  # concurrent first lookups load the catalog once
                if self._kev_token != cov.token:
                    self._kev_cache = await self._store.kev_for(None)
                    self._kev_token = cov.token
        return {c: self._kev_cache[c] for c in cves if c in self._kev_cache}

    async def _epss_for(self, cves: list[str], cov: Coverage) -> dict[str, EpssFact]:
        if cov.epss is None or not cves:
            return {}
        if self._epss_token != cov.token:
            self._epss_cache = {}
            self._epss_token = cov.token
        missing = [c for c in cves if c not in self._epss_cache]
        if missing:
            found = await self._store.epss_for(missing)
            for c in missing:
                self._epss_cache[c] = found.get(c)
            if len(self._epss_cache) > 200_000:
                self._epss_cache = {c: self._epss_cache[c] for c in cves}
        return {c: f for c in cves if (f := self._epss_cache.get(c)) is not None}

    async def _evaluate(
        self, ecosystem: Ecosystem, name: str, version: str, cov: Coverage
    ) -> VulnerabilityReport:
        status, advisories, sources, reason = await self._gather(ecosystem, name)
        sources.extend(self._enrichment_sources(cov))
        if status == "unavailable":
            return VulnerabilityReport(
                status=status, version=version, sources=tuple(sources), reason=reason
            )
        hits = [a for a in affecting(advisories, ecosystem, name, version) if not a.is_malicious]
        groups = group_by_alias(hits)
        reps = [representative(g) for g in groups]
        cves = sorted({c for g in groups for a in g for c in cve_ids(a)})
        kev = await self._kev_for(cves, cov)
        epss = await self._epss_for(cves, cov)
        details = [
            self._detail(rep, group, ecosystem, name, version, cov, kev, epss)
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
            status=_with_staleness(status, stale),
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
        sources.extend(self._enrichment_sources(cov))
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
        kev = await self._kev_for(cves, cov)
        epss = await self._epss_for(cves, cov)
        details = [
            self._detail(representative(g), g, ecosystem, name, "", cov, kev, epss) for g in groups
        ]
        feed_sources = [s for s in sources if s.kind == "vulnerabilities"]
        stale = any(x.status is SourceState.STALE for x in feed_sources)
        return VulnerabilityReport(
            status=_with_staleness(status, stale),
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

    def _detail(
        self,
        rep: Advisory,
        group: list[Advisory],
        ecosystem: Ecosystem,
        name: str,
        version: str,
        cov: Coverage,
        kev: dict[str, KevFact],
        epss: dict[str, EpssFact],
    ) -> dict[str, Any]:
        severity = rep.severity or next((a.severity for a in group if a.severity), None)
        scored = (
            rep
            if rep.cvss_score is not None
            else next((a for a in group if a.cvss_score is not None), rep)
        )
        fixes: dict[str, None] = {}
        for adv in group:
            for v in fixed_versions(adv, ecosystem, name, version):
                fixes[v] = None
        cves = sorted({c for a in group for c in cve_ids(a)})
        kev_hit = next((kev[c] for c in cves if c in kev), None)
        epss_hit = max((epss[c] for c in cves if c in epss), key=lambda e: e.score, default=None)
        return {
            "id": rep.id,
            "aliases": sorted(set(rep.aliases)),
            "summary": rep.summary or (rep.details[:200] if rep.details else ""),
            "severity": severity.value if severity else None,
            "cvss_score": scored.cvss_score,
            "cvss_vector": scored.cvss_vector,
            "fixed_in": sorted(fixes, key=lambda v: sort_key(ecosystem, v)),
            "kev": None
            if cov.kev is None
            else (
                {
                    "in_catalog": True,
                    "cve": kev_hit.cve_id,
                    "date_added": kev_hit.date_added.isoformat(),
                    "due_date": kev_hit.due_date.isoformat() if kev_hit.due_date else None,
                    "ransomware": kev_hit.ransomware,
                }
                if kev_hit
                else {"in_catalog": False}
            ),
            "epss": None
            if epss_hit is None
            else {
                "cve": epss_hit.cve_id,
                "score": epss_hit.score,
                "percentile": epss_hit.percentile,
                "date": _iso(cov.epss.data_updated_at) if cov.epss else None,
            },
            "published": _iso(rep.published),
            "modified": _iso(rep.modified),
            "source": rep.source,
            "url": rep.url or f"https://osv.dev/vulnerability/{rep.id}",
        }

    async def malicious(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> MaliciousAnswer:
        """
        Malicious-package reports naming the package, with the versions each affects.

        `is_malicious`: with `version`, whether a report affects that version; without, whether
        any report names the package at all (`extra["all_versions"]` says whether every version
        is affected, as for a package published only to attack).
        """
        cov = await self.coverage()
        runs = cov.malicious_runs.get(ecosystem, ())
        if not runs:
            reason = f"no malicious-package reports are loaded for {ecosystem.value}"
            return MaliciousAnswer(
                status="unavailable",
                is_malicious=None,
                sources=(
                    SourceStatus(
                        "osv-malicious", "malicious", SourceState.UNAVAILABLE, None, reason
                    ),
                ),
                reason=reason,
            )
        unfinished = [r for r in runs if not r.completed]
        reports = [a for a in await self.advisories(ecosystem, name) if a.reports_malicious_code]
        key = normalise_name(ecosystem, name)
        items = []
        hit = False
        for group in group_by_alias(reports):
            rep = representative(group)
            item = _malicious_item(rep, ecosystem, key)
            if version is not None:
                item["affects_version"] = affects(rep, ecosystem, version, name)
                hit = hit or item["affects_version"]
            items.append(item)
        sources = tuple(self._source(r, "malicious") for r in runs)
        return MaliciousAnswer(
            status="partial"
            if unfinished
            else _with_staleness("complete", any(s.status is SourceState.STALE for s in sources)),
            is_malicious=hit if version is not None else bool(items),
            extra={
                "version": version,
                "all_versions": any(i["all_versions"] for i in items),
                "reported_versions": sorted(
                    {v for i in items for v in i["versions"]}, key=lambda v: sort_key(ecosystem, v)
                ),
            },
            advisories=tuple(items),
            sources=sources,
            reason=("an ingestion of malicious reports did not finish" if unfinished else None),
        )

    async def malicious_data(self, ecosystem: Ecosystem) -> tuple[str, tuple[SourceStatus, ...]]:
        """The status (`complete`, `stale`, `partial` or `unavailable`, as `malicious` answers it)
        and the sources of the malicious-package reports loaded for an ecosystem, without asking
        about a package (for answers about many packages at once)."""
        runs = (await self.coverage()).malicious_runs.get(ecosystem, ())
        if not runs:
            return "unavailable", ()
        sources = tuple(self._source(r, "malicious") for r in runs)
        if any(not r.completed for r in runs):
            return "partial", sources
        return _with_staleness(
            "complete", any(s.status is SourceState.STALE for s in sources)
        ), sources

    async def malicious_names(self, ecosystem: Ecosystem, names: Sequence[str]) -> set[str] | None:
        """Which normalised `names` have a malicious report; None when none are loaded."""
        cov = await self.coverage()
        if not cov.malicious_runs.get(ecosystem):
            return None
        return await self._store.malicious_names(ecosystem, names)


def _with_staleness(status: str, stale: bool) -> str:
    """`stale` for a `complete` answer whose feeds include a stale one (`domain/freshness.py`:
    old data is never complete); `partial` and `unavailable` are kept."""
    return "stale" if stale and status == "complete" else status


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


def _malicious_item(adv: Advisory, ecosystem: Ecosystem, key: str) -> dict[str, Any]:
    versions: set[str] = set()
    all_versions = False
    for affected in adv.affected:
        if affected.ecosystem is not ecosystem or affected.name != key:
            continue
        versions.update(affected.versions)
        for rng in affected.ranges:
            if any(
                kind == "introduced" and value in ("0", "0.0.0") for kind, value in rng.events
            ) and not any(kind in ("fixed", "last_affected", "limit") for kind, _ in rng.events):
                all_versions = True
    return {
        "id": adv.id,
        "aliases": sorted(set(adv.aliases)),
        "summary": adv.summary,
        "all_versions": all_versions,
        "versions": sorted(versions, key=lambda v: sort_key(ecosystem, v)),
        "published": _iso(adv.published),
        "modified": _iso(adv.modified),
        "source": adv.source,
        "url": f"https://osv.dev/vulnerability/{adv.id}",
    }


def _lowest_fix_for_all(ecosystem: Ecosystem, fixes: list[list[str]]) -> str | None:
    """The lowest version that is a fix of every advisory: the highest of each advisory's
    lowest fix (a version fixing all is at least that). None when any advisory has no fix."""
    if not fixes or any(not f for f in fixes):
        return None
    return max((f[0] for f in fixes), key=lambda v: sort_key(ecosystem, v))
