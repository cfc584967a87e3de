"""
`PinSafeService`: the highest version whose known advisories are all below a severity threshold.

Rules (the specification's pin-safe rules, made exact):

1. Candidates are the registry's releases, newest first by the ecosystem's ordering; yanked
   releases are skipped; pre-releases (alpha, beta, rc, canary, nightly, dev) are skipped unless
   `include_prerelease`; `constraint` (see `domain/pins.py`) filters them.
2. At most `limit_checked` candidates are examined, newest first; the first that passes wins.
3. A version fails when it is affected by a malicious-package report, or by an advisory whose
   effective severity (KEV-listed: critical; EPSS ≥ 0.5: at least high; see `scoring.verdicts`) is
   at or above `min_severity` — or whose severity is unknown: an advisory we cannot rate is not
   known to be below the threshold, so it is not waved through.
4. When the vulnerability data for the ecosystem is `unavailable`, no version is called safe.
5. `status` is the worst data status met (`domain/freshness.py`: `unavailable` > `partial` > `stale`
   > `complete`). On `stale` data the pin is still given, with `data_as_of`, the stale feeds and a
   `warning` saying it was computed on data as of that date.

Every rejected version is listed with the advisories that rejected it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.freshness import freshness
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.pins import Constraint, parse_constraint
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first
from pkgintel.scoring.verdicts import at_or_above
from pkgintel.services.advisories.vulnerabilities import AdvisoryLookup
from pkgintel.services.packages.service import PackageService

THRESHOLDS = ("critical", "high", "medium", "low")
_RANK = {"critical": 4, "high": 3, "medium": 2, "low": 1, "none": 0}


@dataclass(frozen=True, slots=True)
class PinSafeAnswer:
    """The chosen version (or None) and the reasons for every newer candidate's rejection."""

    ecosystem: Ecosystem
    package: str
    safe_version: str | None
    latest_version: str
    status: str
    """`complete`, `stale`, `partial` or `unavailable`: the worst of the vulnerability and
    malicious-report data used for the versions checked (`domain/freshness.py`)."""
    min_severity: str
    constraint: str | None
    include_prerelease: bool
    limit_checked: int
    checked: int
    candidates: int
    rejected: tuple[dict[str, Any], ...]
    sources: tuple[SourceStatus, ...] = ()
    reason: str | None = None
    skipped: dict[str, int] = field(default_factory=dict)
    data_as_of: datetime | None = None
    """With stale data: the date of the oldest stale feed's data."""
    stale_sources: tuple[SourceStatus, ...] = ()
    """The stale feeds the versions were checked against."""
    warning: str | None = None
    """With stale data: that the pin was computed on data as of `data_as_of` (it is still given)."""


def blocking(detail: dict[str, Any], min_severity: str) -> bool:
    """True when an advisory detail's effective severity (`scoring.verdicts`: raised by KEV and
    EPSS) is at or above `min_severity`, or its severity is unknown."""
    sev = detail.get("severity")
    if sev not in _RANK:
        return True
    return at_or_above(detail, min_severity)


class PinSafeService:
    """See the module contract."""

    def __init__(self, packages: PackageService, advisories: AdvisoryLookup) -> None:
        self._packages = packages
        self._advisories = advisories

    async def pin_safe(
        self,
        ecosystem: Ecosystem,
        name: str,
        *,
        min_severity: str = "high",
        constraint: str | None = None,
        include_prerelease: bool = False,
        limit_checked: int = 50,
    ) -> PinSafeAnswer:
        """Raises `InvalidInput` for a bad threshold or constraint, and the package service's
        errors (unknown package, registry down with nothing stored)."""
        if min_severity not in THRESHOLDS:
            raise InvalidInput(
                "min_severity", f"min_severity must be one of {', '.join(THRESHOLDS)}"
            )
        parsed: Constraint | None = (
            parse_constraint(ecosystem, constraint, include_prerelease=include_prerelease)
            if constraint
            else None
        )
        snapshot = await self._packages.get_snapshot(ecosystem, name)
        info = snapshot.info
        skipped = {"yanked": 0, "prerelease": 0, "outside_constraint": 0}
        candidates: list[str] = []
        yanked = {r.version for r in info.releases if r.yanked}
        for version in newest_first(ecosystem, [r.version for r in info.releases]):
            if version in yanked:
                skipped["yanked"] += 1
            elif not include_prerelease and is_prerelease(ecosystem, version):
                skipped["prerelease"] += 1
            elif parsed is not None and not parsed.matches(version):
                skipped["outside_constraint"] += 1
            else:
                candidates.append(version)

        rejected: list[dict[str, Any]] = []
        chosen: str | None = None
        statuses: list[str] = []
        sources: tuple[SourceStatus, ...] = ()
        used: dict[int, SourceStatus] = {}
        reason: str | None = None
        checked = 0
        for version in candidates[:limit_checked]:
            checked += 1
            vulns = await self._advisories.for_version(ecosystem, info.name, version)
            malicious = await self._advisories.malicious(ecosystem, info.name, version)
            sources = vulns.sources + malicious.sources
            for src in sources:
                used.setdefault(id(src), src)
            if vulns.status == "unavailable":
                statuses.append("unavailable")
                reason = vulns.reason
                break
            # Malicious reports not loaded (or not finished) leave the pin partly unchecked.
            mal_status = (
                malicious.status if malicious.status in ("complete", "stale") else "partial"
            )
            statuses += [vulns.status, mal_status]
            if "partial" in (vulns.status, mal_status):
                reason = vulns.reason or malicious.reason
            blockers = [
                {
                    "id": d["id"],
                    "severity": d["severity"],
                    "summary": d["summary"],
                    "fixed_in": d["fixed_in"],
                }
                for d in vulns.details
                if blocking(d, min_severity)
            ]
            if malicious.is_malicious:
                blockers.extend(
                    {
                        "id": a["id"],
                        "severity": "malicious",
                        "summary": a["summary"],
                        "fixed_in": [],
                    }
                    for a in malicious.advisories
                    if a.get("affects_version")
                )
            if not blockers:
                chosen = version
                break
            rejected.append({"version": version, "advisories": blockers})
        fresh = freshness(statuses, used.values(), kinds=("vulnerabilities", "malicious"))
        warning = None
        if fresh.stale and fresh.status != "unavailable":
            what = (
                f"the pin {chosen} was computed"
                if chosen is not None
                else "the versions were checked"
            )
            warning = f"{what} on {fresh.note()}: recent advisories may be missing"
        if chosen is None and reason is None:
            if not candidates:
                reason = "no release matches the constraint and filters"
            else:
                reason = (
                    f"every one of the {checked} newest matching versions has an advisory at or above "
                    f"{min_severity} (or of unknown severity)"
                )
        return PinSafeAnswer(
            ecosystem=ecosystem,
            package=info.name,
            safe_version=chosen,
            latest_version=info.latest_version,
            status=fresh.status,
            min_severity=min_severity,
            constraint=constraint,
            include_prerelease=include_prerelease,
            limit_checked=limit_checked,
            checked=checked,
            candidates=len(candidates),
            rejected=tuple(rejected),
            sources=(*snapshot.sources, *sources),
            reason=reason,
            skipped=skipped,
            data_as_of=fresh.as_of,
            stale_sources=fresh.stale_sources,
            warning=warning,
        )
