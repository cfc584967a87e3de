"""
`AuditService`: a project audit (lockfile or name → version map) answered from the database only.

Per package: the advisories affecting that exact version, the malicious flag for that version,
deprecation and licence (from stored registry data, when the package was ever fetched; otherwise
`null` = unknown), and the nearest safe version: a published, non-yanked release checked against
every advisory at or above the verdict gate (`VerdictService.upgrade_plan`), named only when the
package's release list is stored. Nothing is fetched from a
registry and nothing a lockfile names (URLs, git sources, paths) is followed.

Package `status`, most severe first: `malicious`, `vulnerable`, `deprecated`, `unresolved` (no exact
version: the reason says why), `unchecked` (vulnerability data unavailable for the ecosystem), `ok`.
Each package's `vulnerability_status` and the summary's `vulnerability_data` say how far to trust an
`ok`: `stale` (with `vulnerability_data_as_of` and the stale feeds in `vulnerability_data_sources`)
when the advisory data is old, `partial`, or `unavailable` — never `complete` on old data.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.freshness import Freshness, freshness, iso
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.purl import build_purl, parse_purl
from pkgintel.domain.suppressions import Applied, Suppression, apply, expired_note
from pkgintel.domain.versions import is_valid
from pkgintel.lockfiles import version_problem
from pkgintel.lockfiles.base import LockedPackage, ParsedLockfile
from pkgintel.sbom.base import SbomVulnerability, document_from_lockfile
from pkgintel.sbom.cyclonedx import to_cyclonedx
from pkgintel.sbom.spdx import to_spdx
from pkgintel.scoring import classify_license
from pkgintel.scoring.verdicts import UpgradePlan
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.services.advisories.verdicts import VerdictService, with_published_fixes
from pkgintel.services.advisories.vulnerabilities import VulnerabilityReport
from pkgintel.services.packages.service import PackageService

SEVERITY_RANK = {"malicious": 5, "critical": 4, "high": 3, "medium": 2, "low": 1, "unrated": 3}
"""Rank for `--fail-on` style thresholds. An unrated advisory ranks with `high`: not known to be
minor, so a `high` gate stops on it (a `critical` gate does not)."""
STATUS_ORDER = ("malicious", "vulnerable", "deprecated", "unresolved", "unchecked", "ok")


@dataclass(frozen=True, slots=True)
class AuditResult:
    """One audit: `packages` (wire-ready dicts, in input order) and `summary`."""

    ecosystem: Ecosystem
    kind: str
    packages: tuple[dict[str, Any], ...]
    summary: dict[str, Any]
    data_status: str
    """`complete`, `stale`, `partial` or `unavailable` (`domain/freshness.py`): the vulnerability
    data the audit used, the worst of its packages'."""
    data_as_of: datetime | None = None
    """With stale data: the date of the oldest stale feed's data (`Freshness.as_of`)."""
    warnings: tuple[str, ...] = ()
    vulnerabilities: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Advisory id → detail, for every advisory found (for SBOM output)."""
    affects: dict[str, list[str]] = field(default_factory=dict)
    """Advisory id → keys (`LockedPackage.key`) of the packages it affects."""
    expired: tuple[Suppression, ...] = ()
    """Suppressions given to the audit whose `until` has passed: they applied to nothing."""


def worst_rank(packages: list[dict[str, Any]] | tuple[dict[str, Any], ...]) -> int:
    """The highest `SEVERITY_RANK` among the findings of audited packages (0 when none).
    Suppressed findings (`domain/suppressions.py`) do not count."""
    ranks = [0]
    for pkg in packages:
        if pkg.get("malicious") and not pkg.get("malicious_suppressed"):
            ranks.append(SEVERITY_RANK["malicious"])
        ranks.extend(
            SEVERITY_RANK.get(v["severity"] or "unrated", 0)
            for v in pkg["vulnerabilities"]
            if not v.get("suppressed")
        )
    return max(ranks)


def _unresolved_reason(ecosystem: Ecosystem, text: str, exact: str) -> str:
    if not text:
        return "no version given"
    if exact and not any(c in exact for c in "^~<>*| ,"):
        return version_problem(ecosystem, exact) or "not one exact version"
    return "a range, not one exact version"


PURL_PREFIX = "pkg:"


def purl_keys_resolved(
    ecosystem: Ecosystem | None, packages: dict[str, str]
) -> tuple[Ecosystem | None, dict[str, str]]:
    """
    The scan body's `packages` with each Package URL key (`"pkg:npm/lodash@4.17.15": ""`) turned
    into name → version, and the ecosystem those keys name (or `ecosystem` when given).

    A purl's version is the entry's version; a value beside it must be empty or the same version.
    Raises `InvalidInput("packages")` for an unreadable purl, purls of another ecosystem than
    `ecosystem` or than each other (a scan is of one ecosystem), and conflicting versions.
    """
    out: dict[str, str] = {}
    for key, spec in packages.items():
        if not key.startswith(PURL_PREFIX):
            out[key] = spec
            continue
        try:
            ref = parse_purl(key)
        except InvalidInput as exc:
            raise InvalidInput("packages", f"{key!r}: {exc.message}") from None
        if ecosystem is None:
            ecosystem = ref.ecosystem
        elif ref.ecosystem is not ecosystem:
            raise InvalidInput(
                "packages",
                f"{key!r} is a {ref.ecosystem.value} package; this scan is of {ecosystem.value} "
                "packages (scan each ecosystem on its own)",
            )
        text = spec.strip()
        if ref.version is not None and text and text.removeprefix("==") != ref.version:
            raise InvalidInput(
                "packages",
                f"{key!r}: the version {text!r} differs from the package URL's {ref.version!r}",
            )
        out[ref.name] = ref.version if ref.version is not None else text
    return ecosystem, out


def packages_from_mapping(ecosystem: Ecosystem, packages: dict[str, str]) -> ParsedLockfile:
    """A `ParsedLockfile` from the scan body's `packages` map: an exact version is resolved; a
    range (or anything not a valid version) is unresolved, with the reason."""
    out: list[LockedPackage] = []
    for name, spec in packages.items():
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("packages", "package names must be non-empty strings")
        text = (spec or "").strip() if isinstance(spec, str) else ""
        exact = text.removeprefix("==").removeprefix("=").strip()
        if exact and is_valid(ecosystem, exact) and not any(c in exact for c in "^~<>*| ,"):
            out.append(
                LockedPackage(
                    ecosystem, name, exact, direct=True, purl=build_purl(ecosystem, name, exact)
                )
            )
        else:
            out.append(
                LockedPackage(
                    ecosystem,
                    name,
                    None,
                    direct=True,
                    resolved=False,
                    unresolved_reason=_unresolved_reason(ecosystem, text, exact),
                    requirement=(text if len(text) <= 64 else text[:64] + "…") or None,
                )
            )
    return ParsedLockfile("packages", ecosystem, tuple(out))


CHUNK = 256
"""Packages evaluated between two yields to the event loop (a few milliseconds of work)."""


class AuditService:
    """See the module contract."""

    def __init__(
        self,
        advisories: AdvisoryService,
        packages: PackageService,
        verdicts: VerdictService | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._advisories = advisories
        self._packages = packages
        self._verdicts = verdicts or VerdictService(advisories)
        self._clock = clock or (lambda: datetime.now(UTC))

    async def audit(
        self, parsed: ParsedLockfile, ignore: Sequence[Suppression] = ()
    ) -> AuditResult:
        """Audit `parsed`. Findings an active entry of `ignore` names are marked suppressed and
        left out of the summary's counts (`domain/suppressions.py`); expired entries are returned
        in `expired` and named in `warnings`."""
        names = sorted({p.name for p in parsed.packages})
        # The stored advisories of every package stay at hand for the whole audit, however many
        # packages the lockfile names (a bounded cache evicted the first ones of a 50,000-package
        # lockfile before they were matched: one database query each, then).
        async with self._advisories.pinned(parsed.ecosystem, names):
            return await self._audit(parsed, ignore, names)

    async def _audit(
        self, parsed: ParsedLockfile, ignore: Sequence[Suppression], names: list[str]
    ) -> AuditResult:
        eco = parsed.ecosystem
        resolved = [p for p in parsed.packages if p.resolved and p.version]
        stored = await self._packages.stored_many(eco, names)
        reports: list[Any] = []
        malicious: list[Any] = []
        # In slices, yielding to the event loop between them: a lockfile of tens of thousands
        # of packages must not hold every other request up for the whole evaluation.
        for start in range(0, len(resolved), CHUNK):
            part = resolved[start : start + CHUNK]
            reports += await asyncio.gather(
                *(self._advisories.for_version(eco, p.name, p.version or "") for p in part)
            )
            malicious += await asyncio.gather(
                *(self._advisories.malicious(eco, p.name, p.version) for p in part)
            )
            await asyncio.sleep(0)
        # fixed_in and the nearest safe version are published releases, checked against every
        # advisory, when the package's release list is stored; otherwise the advisory's own word,
        # marked unverified, and no nearest safe version is invented.
        infos = [stored.get(normalise_name(eco, p.name)) for p in resolved]
        reports = [
            with_published_fixes(r, eco, info.releases if info else None)
            for r, info in zip(reports, infos, strict=True)
        ]
        # Plans only where there is something to fix: a task per package was 45 ms of scheduling
        # on the loop for a 15,000-package lockfile.
        plans: list[UpgradePlan | None] = [None] * len(resolved)
        wanted = [
            i for i, (r, info) in enumerate(zip(reports, infos, strict=True)) if info and r.details
        ]
        for start in range(0, len(wanted), CHUNK):
            slots = wanted[start : start + CHUNK]
            found = await asyncio.gather(
                *(self._plan(eco, infos[i], resolved[i].version or "", reports[i]) for i in slots)
            )
            for i, plan in zip(slots, found, strict=True):
                plans[i] = plan
            await asyncio.sleep(0)
        by_key = {
            id(p): (r, m, plan)
            for p, r, m, plan in zip(resolved, reports, malicious, plans, strict=True)
        }
        fresh = (
            await asyncio.to_thread(_freshness, reports, bool(parsed.packages))
            if len(reports) > CHUNK
            else _freshness(reports, bool(parsed.packages))
        )
        data_status = fresh.status
        vulns: dict[str, dict[str, Any]] = {}
        affects: dict[str, list[str]] = {}
        items: list[dict[str, Any]] = []
        for index, pkg in enumerate(parsed.packages, 1):
            info = stored.get(normalise_name(eco, pkg.name))
            pair = by_key.get(id(pkg))
            items.append(self._item(pkg, info, pair, vulns, affects))
            if index % CHUNK == 0:
                await asyncio.sleep(0)
        today = self._clock().date()
        applied, summary = (
            await asyncio.to_thread(_suppressed_summary, items, ignore, today, fresh)
            if len(items) > CHUNK
            else _suppressed_summary(items, ignore, today, fresh)
        )
        items = list(applied.packages)
        summary["suppressed"] = applied.suppressed
        summary["suppressions_expired"] = [e.wire() for e in applied.expired]
        return AuditResult(
            ecosystem=eco,
            kind=parsed.kind,
            packages=tuple(items),
            summary=summary,
            data_status=data_status,
            data_as_of=fresh.as_of,
            warnings=(*parsed.warnings, *(expired_note(e) for e in applied.expired)),
            vulnerabilities=vulns,
            affects=affects,
            expired=applied.expired,
        )

    async def _plan(
        self, eco: Ecosystem, info: PackageInfo | None, version: str, report: VulnerabilityReport
    ) -> UpgradePlan | None:
        if info is None or not report.details:
            return None
        return await self._verdicts.upgrade_plan(eco, info, version, report)

    @staticmethod
    def _item(
        pkg: LockedPackage,
        info: PackageInfo | None,
        pair: tuple[Any, Any, UpgradePlan | None] | None,
        vulns: dict[str, dict[str, Any]],
        affects: dict[str, list[str]],
    ) -> dict[str, Any]:
        release = info.release(pkg.version) if info and pkg.version else None
        deprecated: bool | None = None
        if info is not None:
            deprecated = bool(
                info.deprecated or (release and (release.deprecated or release.yanked))
            )
        license_text = info.license if info else None
        item: dict[str, Any] = {
            "name": pkg.name,
            "version": pkg.version,
            "purl": pkg.purl,
            "direct": pkg.direct,
            "dev": pkg.dev,
            "status": "ok",
            "vulnerabilities": [],
            "malicious": None,
            "deprecated": deprecated,
            "license": license_text,
            "license_class": classify_license(license_text).license_class if license_text else None,
            "nearest_safe_version": None,
        }
        if not pkg.resolved or pair is None:
            item["status"] = "unresolved"
            item["unresolved_reason"] = pkg.unresolved_reason or "no exact version"
            item["requirement"] = pkg.requirement
            return item
        report, mal, plan = pair
        item["vulnerability_status"] = report.status
        item["malicious"] = mal.is_malicious
        for d in report.details:
            vulns.setdefault(d["id"], d)
            affects.setdefault(d["id"], []).append(pkg.key)
            item["vulnerabilities"].append(
                {
                    k: d[k]
                    for k in (
                        "id",
                        "aliases",
                        "severity",
                        "cvss_score",
                        "summary",
                        "fixed_in",
                        "fixed_in_verified",
                        "kev",
                        "epss",
                        "url",
                    )
                }
            )
        if mal.is_malicious:
            item["malicious_advisories"] = [
                a["id"] for a in mal.advisories if a.get("affects_version")
            ]
        if report.details:
            if plan is None:
                item["nearest_safe_version_reason"] = (
                    "the package's published releases are not stored (database-only audit): "
                    "no upgrade target is named; see /api/pin_safe"
                )
            else:
                item["nearest_safe_version"] = plan.target
                item["nearest_safe_version_clears"] = list(plan.clears)
                item["nearest_safe_version_remaining"] = [i for i, _ in plan.remaining]
                if plan.target is None:
                    item["nearest_safe_version_reason"] = plan.reason
        if mal.is_malicious:
            item["status"] = "malicious"
        elif report.details:
            item["status"] = "vulnerable"
        elif deprecated:
            item["status"] = "deprecated"
        elif report.status == "unavailable":
            item["status"] = "unchecked"
        return item


def _freshness(reports: list[VulnerabilityReport], any_packages: bool) -> Freshness:
    """The audit's vulnerability data: the worst status of its reports (`unavailable` for an
    audit of nothing) and the stale feeds they used. Off the event loop for large audits: tens of
    thousands of reports are walked."""
    statuses = {r.status for r in reports}
    if not reports and not any_packages:
        statuses.add("unavailable")
    # One shared source object per feed: a few distinct ones in all.
    used = {id(src): src for r in reports if r.stale for src in r.sources}
    return freshness(statuses, used.values())


def _suppressed_summary(
    items: list[dict[str, Any]], ignore: Sequence[Suppression], today: date, fresh: Freshness
) -> tuple[Applied, dict[str, Any]]:
    """The suppressions applied to the audit's items and the summary of what is left (one call,
    run off the event loop for a large audit: both walk every item)."""
    applied = apply(items, ignore, today)
    return applied, _summary(list(applied.packages), fresh)


def _summary(items: list[dict[str, Any]], fresh: Freshness) -> dict[str, Any]:
    severities: Counter[str] = Counter()
    for item in items:
        for v in item["vulnerabilities"]:
            if not v.get("suppressed"):
                severities[v["severity"] or "unrated"] += 1
    statuses = Counter(i["status"] for i in items)
    licences = Counter(
        i["license_class"] or "unknown" for i in items if i["status"] != "unresolved"
    )
    return {
        "packages": len(items),
        "resolved": sum(1 for i in items if i["status"] != "unresolved"),
        "unresolved": statuses["unresolved"],
        "vulnerable_packages": statuses["vulnerable"]
        + sum(
            1
            for i in items
            if i["status"] == "malicious"
            and any(not v.get("suppressed") for v in i["vulnerabilities"])
        ),
        "vulnerabilities": {
            s: severities[s] for s in ("critical", "high", "medium", "low", "unrated")
        },
        "malicious": statuses["malicious"],
        "deprecated": sum(1 for i in items if i["deprecated"]),
        "unchecked": statuses["unchecked"],
        "licenses": dict(sorted(licences.items())),
        "by_status": {s: statuses[s] for s in STATUS_ORDER if statuses[s]},
        "vulnerability_data": fresh.status,
        "vulnerability_data_as_of": iso(fresh.as_of),
        "vulnerability_data_sources": fresh.sources_wire(),
    }


def to_sbom(
    parsed: ParsedLockfile,
    result: AuditResult,
    fmt: str,
    *,
    name: str,
    created: datetime,
    tool_version: str,
) -> dict[str, Any]:
    """The audit as CycloneDX 1.6 (`cyclonedx`) or SPDX 2.3 (`spdx`) JSON, with the advisories
    found attached to the components they affect. Raises ValueError when the document is invalid."""
    licences = {
        pkg.key: item["license"] for pkg, item in zip(parsed.packages, result.packages, strict=True)
    }
    vulnerabilities = [
        SbomVulnerability(
            id=vid,
            aliases=tuple(d["aliases"]),
            summary=d["summary"],
            severity=d["severity"],
            cvss_score=d["cvss_score"],
            cvss_vector=d["cvss_vector"],
            url=d["url"],
            fixed_in=tuple(d["fixed_in"]),
            published=_dt(d["published"]),
            modified=_dt(d["modified"]),
            affects=tuple(dict.fromkeys(result.affects.get(vid, ()))),
        )
        for vid, d in result.vulnerabilities.items()
    ]
    doc = document_from_lockfile(
        parsed,
        name=name,
        created=created,
        tool_version=tool_version,
        licenses=licences,
        vulnerabilities=vulnerabilities,
    )
    return to_cyclonedx(doc) if fmt == "cyclonedx" else to_spdx(doc)


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None
