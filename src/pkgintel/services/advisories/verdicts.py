"""
`VerdictService`: the I/O half of the verdict rules in `scoring/verdicts.py`.

It finds upgrade targets among **published, non-yanked** releases (evaluating each candidate against
every advisory, like `pin_safe`), rewrites advisory `fixed_in` lists to published releases, and
resolves malicious status against what the registry and the name index say about the latest release.
Report, scan, stack, bulk and `/api/malicious` all call it, so they cannot disagree.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pkgintel.domain.errors import EcosystemNotSupported, RegistryUnavailable
from pkgintel.domain.packages import Ecosystem, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.versions import is_prerelease, is_valid, sort_key
from pkgintel.scoring.verdicts import (
    NOTHING_BLOCKS,
    VERDICT_GATE,
    Candidate,
    MaliciousStatus,
    UpgradePlan,
    choose_upgrade,
    malicious_status,
    unknown_plan,
)
from pkgintel.services.advisories.compromises import merge_status
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.services.advisories.vulnerabilities import (
    AdvisoryLookup,
    MaliciousAnswer,
    VulnerabilityReport,
)
from pkgintel.services.names.service import NameService
from pkgintel.services.packages.service import PackageService

MAX_CANDIDATES = 200
"""Newer releases examined at most for an upgrade target (ascending); beyond, the plan says so."""
_BATCH = 8


def _key(ecosystem: Ecosystem, version: str) -> tuple[Any, ...]:
    try:
        return sort_key(ecosystem, version)
    except (ValueError, TypeError):
        return (-1,)


def installable(
    ecosystem: Ecosystem, releases: Sequence[Release], *, prerelease_ok: bool
) -> list[str]:
    """Published releases an installer would pick, ascending by the ecosystem's ordering: not yanked,
    and not pre-releases unless `prerelease_ok`."""
    out = [
        r.version
        for r in releases
        if not r.yanked
        and is_valid(ecosystem, r.version)
        and (prerelease_ok or not (r.prerelease or is_prerelease(ecosystem, r.version)))
    ]
    return sorted(out, key=lambda v: _key(ecosystem, v))


def newer_installable(ecosystem: Ecosystem, info: PackageInfo, version: str) -> list[str]:
    """`installable` releases above `version`; pre-releases only when `version` is one itself."""
    floor = _key(ecosystem, version)
    pre = is_prerelease(ecosystem, version) if is_valid(ecosystem, version) else False
    return [
        v
        for v in installable(ecosystem, info.releases, prerelease_ok=pre)
        if _key(ecosystem, v) > floor
    ]


def published_fix(ecosystem: Ecosystem, releases: Sequence[str], fixed: str) -> str | None:
    """The lowest of `releases` (installable, ascending) at or above the advisory's `fixed` version;
    None when the registry has none (a fix never published, withdrawn or yanked)."""
    wanted = _key(ecosystem, fixed)
    if wanted[0] != 1 and not is_valid(ecosystem, fixed):
        return None
    for version in releases:
        if _key(ecosystem, version) >= wanted:
            return version
    return None


def with_published_fixes(
    report: VulnerabilityReport, ecosystem: Ecosystem, releases: Sequence[Release] | None
) -> VulnerabilityReport:
    """
    `report` with each advisory's `fixed_in` replaced by published, installable releases (the
    advisory's own values kept in `fixed_in_advisory` when they differ) and `fixed_in_verified` set.
    Without a release list (`releases` None) the advisory's values stay and `fixed_in_verified` is
    False: they are what the advisory says, not checked against the registry.
    """
    if not report.details:
        return report
    if releases is None:
        details = tuple({**d, "fixed_in_verified": False} for d in report.details)
        return dataclasses.replace(report, details=details)
    published = installable(ecosystem, releases, prerelease_ok=True)
    stable = installable(ecosystem, releases, prerelease_ok=False)
    details_out = []
    for d in report.details:
        raw = list(d.get("fixed_in") or [])
        fixes: list[str] = []
        for value in raw:
            pool = stable if not is_prerelease(ecosystem, value) else published
            hit = published_fix(ecosystem, pool, value)
            if hit is not None and hit not in fixes:
                fixes.append(hit)
        item = {**d, "fixed_in": fixes, "fixed_in_verified": True}
        if fixes != raw:
            item["fixed_in_advisory"] = raw
        details_out.append(item)
    return dataclasses.replace(report, details=tuple(details_out))


def _qualified(plan: UpgradePlan, current: VulnerabilityReport) -> UpgradePlan:
    """`plan`, its "nothing blocks" reason qualified when some advisory source did not answer."""
    if plan.reason == NOTHING_BLOCKS and current.status == "partial":
        return dataclasses.replace(
            plan,
            reason="no known advisory at or above the gate affects it; some advisory sources did "
            "not answer, so this may be incomplete",
        )
    return plan


class VerdictService:
    """See the module contract. `lookup` is the advisory lookup every door uses."""

    def __init__(self, lookup: AdvisoryLookup, *, max_candidates: int = MAX_CANDIDATES) -> None:
        self._lookup = lookup
        self._max = max_candidates

    async def upgrade_plan(
        self,
        ecosystem: Ecosystem,
        info: PackageInfo,
        version: str,
        current: VulnerabilityReport,
        *,
        gate: str = VERDICT_GATE,
    ) -> UpgradePlan:
        """
        The upgrade target for `version` of `info` given its `current` findings: each newer
        installable release is evaluated (advisories and malicious reports) in ascending order, a
        few at a time, until one clears the strictest gate possible (see `choose_upgrade`).
        Without advisory data (`current.status` unavailable) the plan says so (`unknown_plan`) and
        names nothing; with partial data, "nothing blocks" says the answer may be incomplete.
        """
        if current.status == "unavailable":
            return unknown_plan(current.reason)
        plan = choose_upgrade(current.details, [], gate=gate)
        if plan.reason == NOTHING_BLOCKS:
            return _qualified(plan, current)
        newer = newer_installable(ecosystem, info, version)
        limit = newer[: self._max]
        evaluated: list[Candidate] = []
        for start in range(0, len(limit), _BATCH):
            batch = limit[start : start + _BATCH]
            reports = await asyncio.gather(
                *(self._lookup.for_version(ecosystem, info.name, v) for v in batch)
            )
            malicious = await asyncio.gather(
                *(self._lookup.malicious(ecosystem, info.name, v) for v in batch)
            )
            for v, rep, mal in zip(batch, reports, malicious, strict=True):
                evaluated.append(Candidate(v, rep.details, bool(mal.is_malicious)))
            plan = choose_upgrade(current.details, evaluated, gate=gate)
            if plan.target is not None and not plan.exhausted:
                return plan
        if plan.target is None and len(newer) > self._max:
            return dataclasses.replace(
                plan,
                reason=f"none of the {self._max} next releases clears its critical advisories "
                f"({len(newer) - self._max} newer ones not examined)",
            )
        return plan

    async def malicious_verdict(
        self,
        ecosystem: Ecosystem,
        name: str,
        answer: MaliciousAnswer,
        *,
        version: str | None,
        latest_version: str | None,
        package_gone: bool,
        weekly_downloads: int | None = None,
    ) -> MaliciousStatus:
        """
        Resolve `answer` (the reports naming the package; with `version`, evaluated for it) into one
        status. Without `version` the latest release is evaluated against the reports.
        """
        loaded = answer.status != "unavailable"
        reports = len(answer.advisories)
        latest_affected: bool | None = None
        if version is None and latest_version is not None and reports:
            at_latest = await self._lookup.malicious(ecosystem, name, latest_version)
            latest_affected = bool(at_latest.is_malicious)
        status = malicious_status(
            loaded=loaded,
            reports=reports,
            all_versions=bool(answer.extra.get("all_versions")),
            asked_version=version,
            asked_affected=answer.is_malicious if version is not None else None,
            latest_version=latest_version,
            latest_affected=latest_affected,
            package_gone=package_gone,
            reported_versions=answer.extra.get("reported_versions", ()),
            weekly_downloads=weekly_downloads,
        )
        # Curated past compromises (knowledge/compromises) only ever add to the reports.
        return merge_status(status, ecosystem, name)[0]


@dataclass(frozen=True, slots=True)
class LatestVulnerabilities:
    """`/api/vulns`: the advisories of the latest release, and how that release was found."""

    report: VulnerabilityReport
    version: str | None
    version_source: str
    """`registry`, `name_index` (the ecosystem has no live registry adapter, or its registry is down
    with nothing stored) or `none` (no release known: every advisory naming the package is listed)."""
    info: PackageInfo | None
    sources: tuple[SourceStatus, ...]
    cache_status: str | None
    upgrade: UpgradePlan | None


class VulnerabilityAnswers:
    """Answers `/api/vulns` from the registry when it can, else from the advisory data alone."""

    def __init__(
        self,
        packages: PackageService,
        names: NameService,
        lookup: AdvisoryLookup,
        advisories: AdvisoryService,
        verdicts: VerdictService,
    ) -> None:
        self._packages = packages
        self._names = names
        self._lookup = lookup
        self._advisories = advisories
        self._verdicts = verdicts

    async def latest(self, ecosystem: Ecosystem, name: str) -> LatestVulnerabilities:
        """
        The latest release's advisories. When the ecosystem has no live adapter, or its registry is
        unreachable with nothing stored, the name index supplies the latest version; failing that,
        every advisory naming the package is listed (`version` None). Raises `PackageNotFound`
        when the registry says the package does not exist.
        """
        try:
            snapshot = await self._packages.get_snapshot(ecosystem, name)
        except (EcosystemNotSupported, RegistryUnavailable):
            return await self._from_advisory_data(ecosystem, name)
        info = snapshot.info
        report = await self._lookup.for_version(ecosystem, info.name, info.latest_version)
        report = with_published_fixes(report, ecosystem, info.releases)
        plan = await self._verdicts.upgrade_plan(ecosystem, info, info.latest_version, report)
        return LatestVulnerabilities(
            report,
            info.latest_version,
            "registry",
            info,
            (*snapshot.sources, *report.sources),
            snapshot.cache_status,
            plan,
        )

    async def _from_advisory_data(self, ecosystem: Ecosystem, name: str) -> LatestVulnerabilities:
        exists = await self._names.exists(ecosystem, name, suggestions=False)
        latest = exists.entry.latest_version if exists.entry is not None else None
        if latest is not None:
            report = await self._lookup.for_version(ecosystem, name, latest)
            report = with_published_fixes(report, ecosystem, None)
            return LatestVulnerabilities(
                report, latest, "name_index", None, report.sources, None, None
            )
        report = await self._advisories.naming(ecosystem, name)
        return LatestVulnerabilities(report, None, "none", None, report.sources, None, None)
