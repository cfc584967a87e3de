"""
Malicious-package answers: which reports name a package, the versions each affects, and how
complete and fresh the loaded reports of an ecosystem are.

`MaliciousLookup` answers from the advisories the `AdvisoryService` holds (`advisories`) and the
coverage it reads (`coverage`); status `unavailable` when no malicious-package reports are loaded for
the ecosystem, `partial` while an ingestion of them is unfinished, `stale` per `coverage`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.matching import affects, group_by_alias, representative
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import sort_key
from pkgintel.services.advisories.coverage import Coverage, FeedStatuses, iso, with_staleness
from pkgintel.services.advisories.vulnerabilities import MaliciousAnswer
from pkgintel.storage.base import AdvisoryStore


class MaliciousLookup:
    """See the module docstring."""

    def __init__(
        self,
        store: AdvisoryStore,
        statuses: FeedStatuses,
        *,
        coverage: Callable[[], Awaitable[Coverage]],
        advisories: Callable[[Ecosystem, str], Awaitable[list[Advisory]]],
    ) -> None:
        self._store = store
        self._statuses = statuses
        self._coverage = coverage
        self._advisories = advisories

    async def answer(
        self, ecosystem: Ecosystem, name: str, version: str | None = None
    ) -> MaliciousAnswer:
        """
        Malicious-package reports naming the package, with the versions each affects.

        `is_malicious`: with `version`, whether a report affects that version; without, whether
        any report names the package at all (`extra["all_versions"]` says whether every version
        is affected, as for a package published only to attack).
        """
        cov = await self._coverage()
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
        reports = [a for a in await self._advisories(ecosystem, name) if a.reports_malicious_code]
        key = normalise_name(ecosystem, name)
        items = []
        hit = False
        for group in group_by_alias(reports):
            rep = representative(group)
            item = malicious_item(rep, ecosystem, key)
            if version is not None:
                item["affects_version"] = affects(rep, ecosystem, version, name)
                hit = hit or item["affects_version"]
            items.append(item)
        sources = tuple(self._statuses.source(r, "malicious") for r in runs)
        return MaliciousAnswer(
            status="partial"
            if unfinished
            else with_staleness("complete", any(s.status is SourceState.STALE for s in sources)),
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

    async def data(self, ecosystem: Ecosystem) -> tuple[str, tuple[SourceStatus, ...]]:
        """The status (`complete`, `stale`, `partial` or `unavailable`, as `malicious` answers it)
        and the sources of the malicious-package reports loaded for an ecosystem, without asking
        about a package (for answers about many packages at once)."""
        runs = (await self._coverage()).malicious_runs.get(ecosystem, ())
        if not runs:
            return "unavailable", ()
        sources = tuple(self._statuses.source(r, "malicious") for r in runs)
        if any(not r.completed for r in runs):
            return "partial", sources
        return with_staleness(
            "complete", any(s.status is SourceState.STALE for s in sources)
        ), sources

    async def names(self, ecosystem: Ecosystem, names: Sequence[str]) -> set[str] | None:
        """Which normalised `names` have a malicious report; None when none are loaded."""
        cov = await self._coverage()
        if not cov.malicious_runs.get(ecosystem):
            return None
        return await self._store.malicious_names(ecosystem, names)


def malicious_item(adv: Advisory, ecosystem: Ecosystem, key: str) -> dict[str, Any]:
    """One malicious report as answered: the versions it names for the package, and whether it
    names every version (introduced 0, no fix or limit)."""
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
        "published": iso(adv.published),
        "modified": iso(adv.modified),
        "source": adv.source,
        "url": f"https://osv.dev/vulnerability/{adv.id}",
    }
