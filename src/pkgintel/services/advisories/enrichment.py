"""
KEV and EPSS enrichment of vulnerability answers.

`Enrichment.kev_for` / `epss_for` give the CISA KEV entries and EPSS scores of CVE ids, each cached
until the coverage token changes (the KEV catalog is read whole once; EPSS scores per CVE, at most
200,000 kept). `sources(cov)` lists the `cisa-kev` and `epss` sources of an answer (`unavailable` when
not loaded). `detail(...)` is one vulnerability of an answer: an advisory group's representative with
its fixes, `kev: null` / `epss: null` when that enrichment is not loaded and `kev: {"in_catalog":
false}` when it is loaded and no CVE of the group is in it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.feeds import EpssFact, KevFact
from pkgintel.domain.matching import fixed_versions
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import sort_key
from pkgintel.services.advisories.coverage import Coverage, FeedStatuses, iso
from pkgintel.services.advisories.ingest import EPSS_FEED, KEV_FEED
from pkgintel.storage.base import AdvisoryStore


def cve_ids(advisory: Advisory) -> list[str]:
    """The CVE ids among an advisory's id and aliases."""
    return sorted(i for i in advisory.ids if i.upper().startswith("CVE-"))


class Enrichment:
    """See the module docstring."""

    def __init__(self, store: AdvisoryStore, statuses: FeedStatuses) -> None:
        self._store = store
        self._statuses = statuses
        self._kev_cache: dict[str, KevFact] = {}
        self._kev_token: tuple[Any, ...] | None = None
        self._kev_lock = asyncio.Lock()
        self._epss_cache: dict[str, EpssFact | None] = {}
        self._epss_token: tuple[Any, ...] | None = None

    def invalidate(self) -> None:
        """Read KEV and EPSS afresh on the next lookup (after an ingestion in this process)."""
        self._kev_token = self._epss_token = None

    def sources(self, cov: Coverage) -> list[SourceStatus]:
        """The `cisa-kev` and `epss` sources of an answer."""
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
                out.append(self._statuses.source(run, kind))
        return out

    async def kev_for(self, cves: list[str], cov: Coverage) -> dict[str, KevFact]:
        """The KEV entries of `cves` (empty when the catalog is not loaded)."""
        if cov.kev is None or not cves:
            return {}
        if self._kev_token != cov.token:
            async with self._kev_lock:  # concurrent first lookups load the catalog once
                if self._kev_token != cov.token:
                    self._kev_cache = await self._store.kev_for(None)
                    self._kev_token = cov.token
        return {c: self._kev_cache[c] for c in cves if c in self._kev_cache}

    async def epss_for(self, cves: list[str], cov: Coverage) -> dict[str, EpssFact]:
        """The EPSS scores of `cves` (empty when the scores are not loaded)."""
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


def detail(
    rep: Advisory,
    group: list[Advisory],
    ecosystem: Ecosystem,
    name: str,
    version: str,
    cov: Coverage,
    kev: dict[str, KevFact],
    epss: dict[str, EpssFact],
) -> dict[str, Any]:
    """One vulnerability of an answer: the group's representative `rep`, its fixes and enrichment."""
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
            "date": iso(cov.epss.data_updated_at) if cov.epss else None,
        },
        "published": iso(rep.published),
        "modified": iso(rep.modified),
        "source": rep.source,
        "url": rep.url or f"https://osv.dev/vulnerability/{rep.id}",
    }
