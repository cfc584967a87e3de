"""
`ReportService`: the package report — registry data, vulnerabilities, malicious check, typosquat hint,
licence, health score and recommendation — assembled from the other services. One report feeds every
front door (`/api/check`, `/api/health`, the briefs, MCP), so their scores cannot disagree.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import VersionNotFound
from pkgintel.domain.knowledge.bugs import KnownIssues
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.releases import VersionHistory, resolve_version, summarise_history
from pkgintel.domain.signals.maintainers import MaintainerAnalysis
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.versions import newest_first, validate_version
from pkgintel.scoring import (
    HealthScore,
    HealthSignals,
    LicenseAssessment,
    Recommendation,
    VulnerabilitySummary,
    classify_license,
    compute_health,
    compute_recommendation,
)
from pkgintel.scoring.verdicts import (
    SEVERITY_RANK,
    UpgradePlan,
    effective_severity,
    stated_severity,
)
from pkgintel.services.advisories.compromises import merge_answer
from pkgintel.services.advisories.verdicts import VerdictService, with_published_fixes
from pkgintel.services.advisories.vulnerabilities import (
    AdvisoryLookup,
    MaliciousAnswer,
    VulnerabilityReport,
)
from pkgintel.services.names.hints import TyposquatHint
from pkgintel.services.names.service import NameService
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.services.reports.deprecations import DeprecationFacts, KnownDeprecation
from pkgintel.services.signals.artifacts import ReportArtifacts
from pkgintel.transport.side_tasks import abandon

if TYPE_CHECKING:
    from pkgintel.services.signals.maintainers import HistoryResult
    from pkgintel.services.signals.trust import PackageTrust, TrustSignals

RECENT_VERSIONS = 10

KnownIssuesLookup = Callable[[Ecosystem, str, str | None], Awaitable[KnownIssues]]
"""`(ecosystem, name, version) → known_issues` (the bug service's `known_issues`)."""
ArtifactsLookup = Callable[[PackageInfo], Awaitable["ReportArtifacts"]]
"""`info → bundle, typescript, scorecard` (`ArtifactService.for_report`)."""
ArtifactsPending = Callable[[PackageInfo, str], "ReportArtifacts"]
"""What the artifacts lookup answers from registry data alone, with the reason the rest is missing
(`ArtifactService.pending`)."""


@dataclass(frozen=True, slots=True)
class PackageReport:
    """Everything one report says; `application/schemas` shapes it for the wire."""

    ecosystem: Ecosystem
    package: str
    snapshot: Snapshot
    requested_version: str | None
    evaluated_version: str
    license: LicenseAssessment
    health: HealthScore
    recommendation: Recommendation
    vulnerabilities: VulnerabilityReport
    """Of the evaluated version: the requested one when a version was asked for, else the latest
    (the specification's rule 1: a pinned report is rendered for the pin)."""
    latest_vulnerabilities: VulnerabilityReport
    """Of the latest version (the same object when no version was asked for)."""
    upgrade: UpgradePlan
    """Where to go from the evaluated version (`scoring.verdicts.choose_upgrade`)."""
    malicious: MaliciousAnswer
    typosquat: TyposquatHint
    history: VersionHistory
    generated_at: datetime
    known_issues: KnownIssues | None = None
    """Known non-CVE bugs (None when no bug lookup is wired in)."""
    trust: PackageTrust | None = None
    """Maintainers, GitHub stats, owner trust and quality (None when not wired in)."""
    artifacts: ReportArtifacts | None = None
    """Bundle, typescript and scorecard facts (None when no artifact service is wired in)."""
    known_deprecation: KnownDeprecation | None = None
    """A deprecation known beside the registry (curated knowledge), set only when the registry
    does not mark the package deprecated itself."""

    @property
    def info(self) -> PackageInfo:
        return self.snapshot.info

    @property
    def deprecated(self) -> bool:
        """The package is deprecated by the registry's word or the curated knowledge's."""
        return self.info.deprecated or self.known_deprecation is not None

    @property
    def deprecated_message(self) -> str | None:
        if self.info.deprecated or self.known_deprecation is None:
            return self.info.deprecated_message
        return self.known_deprecation.message

    @property
    def deprecation_source(self) -> dict[str, str] | None:
        """Who says the package is deprecated: `{"origin": "registry"}` or `{"origin": "curated",
        "url": ...}`; None when nobody does."""
        if self.info.deprecated:
            return {"origin": "registry"}
        if self.known_deprecation is not None:
            return {"origin": self.known_deprecation.origin, "url": self.known_deprecation.url}
        return None

    @property
    def sources(self) -> tuple[SourceStatus, ...]:
        seen: dict[tuple[str, str], SourceStatus] = {}
        for src in (
            *self.snapshot.sources,
            *self.vulnerabilities.sources,
            *self.latest_vulnerabilities.sources,
            *self.malicious.sources,
            *(self.trust.sources if self.trust is not None else ()),
            *(self.artifacts.sources if self.artifacts is not None else ()),
            *((self.known_deprecation.source,) if self.known_deprecation is not None else ()),
        ):
            seen.setdefault((src.name, src.kind), src)
        return tuple(seen.values())


def _first_release_days(info: PackageInfo, now: datetime) -> int | None:
    dates = [r.published_at for r in info.releases if r.published_at is not None]
    return (now - min(dates)).days if dates else None


def vulnerability_summary(
    report: VulnerabilityReport, plan: UpgradePlan | None = None
) -> VulnerabilitySummary:
    """The scoring view of a vulnerability report (and of the upgrade plan for its version)."""
    effective = dict.fromkeys(SEVERITY_RANK, 0)
    raised = dict.fromkeys(SEVERITY_RANK, 0)
    for d in report.details:
        severity = effective_severity(d)
        effective[severity] += 1
        if SEVERITY_RANK[severity] > SEVERITY_RANK[stated_severity(d)]:
            raised[severity] += 1
    return VulnerabilitySummary(
        status=report.status,
        effective=tuple(effective.items()),
        raised=tuple((s, n) for s, n in raised.items() if n),
        upgrade=plan,
        stale=report.stale,
        data_as_of=report.data_as_of,
        critical=report.count("critical"),
        high=report.count("high"),
        medium=report.count("medium"),
        low=report.count("low"),
        unrated=report.count(None),
        kev_count=report.kev_count,
        max_epss=report.max_epss,
        fix_available=bool(plan and plan.target),
        fixed_version=plan.target if plan else None,
    )


MEMO_TTL = timedelta(seconds=10)
"""How long a built report is served again (see `ReportService.get_report`): well inside how long
this process already reuses what a report is built from (advisory coverage 5 s after another
process's ingestion, curated rows and bugs 30 s)."""
MEMO_MAX = 4_096


@dataclass(frozen=True, slots=True)
class _Memo:
    report: PackageReport
    inputs: Hashable


class ReportService:
    """Builds `PackageReport`s. `clock` returns the current UTC time (injected for tests)."""

    def __init__(
        self,
        packages: PackageService,
        names: NameService,
        advisories: AdvisoryLookup,
        *,
        verdicts: VerdictService | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        known_issues: KnownIssuesLookup | None = None,
        trust_signals: TrustSignals | None = None,
        artifacts: ArtifactsLookup | None = None,
        artifacts_pending: ArtifactsPending | None = None,
        signal_wait_s: float | None = None,
        deprecations: DeprecationFacts | None = None,
        memo_inputs: Callable[[], Awaitable[Hashable]] | None = None,
    ) -> None:
        self._packages = packages
        self._names = names
        self._advisories = advisories
        self._verdicts = verdicts or VerdictService(advisories)
        self._clock = clock
        self._known_issues = known_issues
        self._trust = trust_signals
        self._artifacts = artifacts
        self._artifacts_pending = artifacts_pending
        self._signal_wait_s = signal_wait_s
        self._deprecations = deprecations
        # Second-round lookups a report stopped waiting for, kept until they finish (their results
        # land in the caches, for the next ask).
        self._completing: set[asyncio.Future[Any]] = set()
        self._memo_inputs = memo_inputs
        self._memo: MemoryLRU[tuple[Any, ...], _Memo] = MemoryLRU(MEMO_MAX)

    @property
    def packages(self) -> PackageService:
        return self._packages

    async def known_deprecation(self, info: PackageInfo) -> KnownDeprecation | None:
        """
        The package's deprecation known beside the registry (curated knowledge), when the registry
        does not mark it deprecated itself; None otherwise. Every door that says whether a package
        is deprecated (report, health, briefs, `/api/latest`, `/api/versions`) asks this.
        """
        if self._deprecations is None or info.deprecated:
            return None
        return await self._deprecations.deprecation(info.ecosystem, info.name)

    async def get_report(
        self,
        ecosystem: Ecosystem,
        name: str,
        version: str | None = None,
        *,
        artifacts: bool = False,
    ) -> PackageReport:
        """
        The report for `name`, rendered for `version` when given (else the latest). With
        `artifacts`, the report also carries `bundle`, `typescript` and `scorecard` (more upstream
        calls; the full report asks for them, score-only callers — health, trees, history — do not:
        none of them moves the score).

        Raises `InvalidInput` for an unparseable version, `VersionNotFound`, `PackageNotFound`,
        `EcosystemNotSupported` and `RegistryUnavailable` (nothing cached or stored).

        With `memo_inputs`, a report built from a fresh cache hit is served again for up to
        `MEMO_TTL` (its `generated_at` says when it was built) while the registry data is the very
        same cached entry and `memo_inputs()` answers the same; a report whose second round was
        still pending, or whose vulnerability data was unavailable, is never served again.
        """
        if version is not None and version.strip().lower() == "latest":
            version = None
        if version is not None:
            version = validate_version(ecosystem, version)
        memo_key = (ecosystem, name, version, artifacts)
        held = self._memo.get(memo_key)
        if held is not None and self._clock() - held.report.generated_at >= MEMO_TTL:
            held = None
        # Without a memo to check, the history lookup starts before the registry's answer.
        history = (
            self._trust.prefetch(ecosystem, name)
            if self._trust is not None and held is None
            else None
        )
        snapshot = await self._packages.get_snapshot(ecosystem, name, version)
        inputs: Hashable = None
        if self._memo_inputs is not None and snapshot.cache_status == "hit":
            inputs = await self._memo_inputs()
            if (
                held is not None
                and held.report.snapshot.info is snapshot.info
                and held.inputs == inputs
            ):
                return held.report
        if held is not None and self._trust is not None:
            history = self._trust.prefetch(ecosystem, name)
        info = snapshot.info
        if version is not None:
            version = resolve_version(info, version)
        if version is not None and info.release(version) is None:
            raise VersionNotFound(
                ecosystem.value,
                name,
                version,
                available=newest_first(ecosystem, [r.version for r in info.releases])[
                    :RECENT_VERSIONS
                ],
            )
        evaluated = version or info.latest_version
        latest_task = self._advisories.for_version(ecosystem, info.name, info.latest_version)
        scoped_task = (
            self._advisories.for_version(ecosystem, info.name, version)
            if version is not None and version != info.latest_version
            else None
        )
        bugs_task = (
            self._known_issues(ecosystem, info.name, version)
            if self._known_issues is not None
            else None
        )
        # Asked on every report, from a cached snapshot or a fresh one alike: the registry's (or a
        # mirror's) silence about a deprecation never hides what the curated knowledge records.
        deprecation_task = (
            self.known_deprecation(info)
            if self._deprecations is not None and not info.deprecated
            else None
        )
        # The score needs only the maintainer analysis (registry data); GitHub, deps.dev and the
        # download counts are asked for the full report alone, so score-only callers (health,
        # trees, history, compare) do not spend the code host's rate limit on every node. Those
        # second-round lookups need the registry's answer, so they start now; how long the report
        # waits for them is bounded (`_second_round`).
        second_started = time.monotonic()
        trust_task: Any = None
        trust_future: asyncio.Future[PackageTrust] | None = None
        if self._trust is not None:
            if artifacts:
                trust_future = asyncio.ensure_future(self._trust.for_snapshot(snapshot, history))
                trust_future.add_done_callback(_retrieve)
            else:
                trust_task = self._trust.maintainers_for(snapshot, history)
        artifacts_task = (
            asyncio.ensure_future(self._artifacts(info))
            if artifacts and self._artifacts is not None
            else None
        )
        if artifacts_task is not None:  # retrieved even when a lookup below fails first
            artifacts_task.add_done_callback(_retrieve)
        try:
            results: list[Any] = await asyncio.gather(
                *([trust_task] if trust_task is not None else []),
                latest_task,
                self._advisories.malicious(ecosystem, info.name, evaluated),
                self._names.typosquat(
                    ecosystem,
                    info.name,
                    weekly_downloads=snapshot.weekly_downloads,
                    release_count=len(info.releases),
                    first_release_days=_first_release_days(info, self._clock()),
                    first_release=min(
                        (r.published_at for r in info.releases if r.published_at is not None),
                        default=None,
                    ),
                ),
                *([scoped_task] if scoped_task is not None else []),
                *([bugs_task] if bugs_task is not None else []),
                *([deprecation_task] if deprecation_task is not None else []),
            )
        except BaseException:
            # The report failed (or its caller left): the second round is not needed any more.
            abandon(trust_future, artifacts_task)
            raise
        trust: PackageTrust | None = None
        maintainers: MaintainerAnalysis | None = None
        if trust_task is not None:
            maintainers, results = results[0], results[1:]
        known_deprecation: KnownDeprecation | None = None
        if deprecation_task is not None:
            known_deprecation, results = results[-1], results[:-1]
        known_issues: KnownIssues | None = results[-1] if bugs_task is not None else None
        latest_vulns: VulnerabilityReport = results[0]
        malicious: MaliciousAnswer = merge_answer(results[1], ecosystem, info.name, evaluated)
        typosquat: TyposquatHint = results[2]
        latest_vulns = with_published_fixes(latest_vulns, ecosystem, info.releases)
        evaluated_vulns = latest_vulns
        if scoped_task is not None:
            evaluated_vulns = with_published_fixes(results[3], ecosystem, info.releases)
        plan = await self._verdicts.upgrade_plan(ecosystem, info, evaluated, evaluated_vulns)
        report_artifacts: ReportArtifacts | None = None
        if trust_future is not None or artifacts_task is not None:
            trust, report_artifacts = await self._second_round(
                snapshot, history, trust_future, artifacts_task, second_started
            )
            if trust is not None:
                maintainers = trust.maintainers
        complete = all(f is None or f.done() for f in (trust_future, artifacts_task))
        now = self._clock()
        signals = self._signals(
            info, snapshot, evaluated, evaluated_vulns, malicious, plan, known_deprecation
        )
        if maintainers is not None:
            signals = community_signals(signals, maintainers)
        health = compute_health(signals, now=now)
        report = PackageReport(
            ecosystem=ecosystem,
            package=name,
            snapshot=snapshot,
            requested_version=version,
            evaluated_version=evaluated,
            license=classify_license(info.license),
            health=health,
            recommendation=compute_recommendation(signals, health),
            vulnerabilities=evaluated_vulns,
            latest_vulnerabilities=latest_vulns,
            upgrade=plan,
            malicious=malicious,
            typosquat=typosquat,
            history=summarise_history(info.releases, now),
            generated_at=now,
            known_issues=known_issues,
            trust=trust,
            artifacts=report_artifacts,
            known_deprecation=known_deprecation,
        )
        if (
            inputs is not None
            and complete
            and "unavailable" not in (latest_vulns.status, evaluated_vulns.status)
        ):
            self._memo.set(memo_key, _Memo(report, inputs))
        return report

    async def _second_round(
        self,
        snapshot: Snapshot,
        history: asyncio.Future[HistoryResult] | None,
        trust_future: asyncio.Future[PackageTrust] | None,
        artifacts_task: asyncio.Future[ReportArtifacts] | None,
        started: float,
    ) -> tuple[PackageTrust | None, ReportArtifacts | None]:
        """
        The trust signals and artifacts of a full report, waiting for their lookups at most
        `signal_wait_s` seconds after they started (without limit when None). A lookup still under
        way then is answered from registry data alone (`TrustSignals.pending`, the artifacts'
        `pending`), each missing signal unavailable with the reason, and kept running: what it
        fetches is cached for the next ask.
        """
        waiting = [f for f in (trust_future, artifacts_task) if f is not None]
        wait = self._signal_wait_s
        if wait is None:
            await asyncio.wait(waiting)
        elif (left := wait - (time.monotonic() - started)) > 0:
            await asyncio.wait(waiting, timeout=left)
        reason = (
            f"still being fetched {wait or 0:g} s after the registry answered; the lookup goes "
            "on in the background, so asking again shortly gives it"
        )
        trust: PackageTrust | None = None
        if trust_future is not None:
            if trust_future.done():
                trust = trust_future.result()
            else:
                self._complete_later(trust_future)
                assert self._trust is not None
                trust = await self._trust.pending(snapshot, history, reason)
        artifacts: ReportArtifacts | None = None
        if artifacts_task is not None:
            if artifacts_task.done():
                artifacts = artifacts_task.result()
            else:
                self._complete_later(artifacts_task)
                if self._artifacts_pending is not None:
                    artifacts = self._artifacts_pending(snapshot.info, reason)
        return trust, artifacts

    async def close(self) -> None:
        """At shutdown: cancel the second-round lookups still running for earlier reports (each
        may wait up to the upstream timeout; nobody is waiting for their answer)."""
        pending = list(self._completing)
        for future in pending:
            future.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def _complete_later(self, future: asyncio.Future[Any]) -> None:
        self._completing.add(future)
        future.add_done_callback(self._completing.discard)

    @staticmethod
    def _signals(
        info: PackageInfo,
        snapshot: Snapshot,
        evaluated: str,
        vulns: VulnerabilityReport,
        malicious: MaliciousAnswer,
        plan: UpgradePlan,
        known_deprecation: KnownDeprecation | None = None,
    ) -> HealthSignals:
        dates = [r.published_at for r in info.releases if r.published_at is not None]
        release = info.release(evaluated)
        deprecated = info.deprecated
        message = info.deprecated_message
        if not deprecated and known_deprecation is not None:
            # The same effect a registry deprecation has (maintenance 0, find an alternative).
            deprecated, message = True, known_deprecation.message
        if release is not None and not deprecated and (release.deprecated or release.yanked):
            deprecated = True
            message = release.deprecated or (
                f"version {evaluated} was yanked"
                + (f": {release.yanked_reason}" if release.yanked_reason else "")
            )
        latest_release = info.release(info.latest_version)
        return HealthSignals(
            last_release_at=max(dates) if dates else None,
            first_release_at=min(dates) if dates else None,
            version_count=len(info.releases),
            weekly_downloads=snapshot.weekly_downloads,
            maintainers_count=len(info.maintainers) or None,
            deprecated=deprecated,
            deprecated_message=message,
            vulnerabilities=vulnerability_summary(vulns, plan),
            malicious=malicious.is_malicious,
            latest_version=info.latest_version,
            evaluated_version=evaluated,
            latest_is_prerelease=bool(latest_release and latest_release.prerelease),
            release_history_known=info.extra.get("release_history") != "current_only",
        )


def community_signals(signals: HealthSignals, m: MaintainerAnalysis) -> HealthSignals:
    """`signals` with the maintainer facts the community component uses (bus factor, a new
    publisher on the latest release); unchanged where those facts are unknown."""
    from dataclasses import replace

    return replace(
        signals,
        bus_factor=m.bus_factor,
        new_publisher_on_latest=any(a.code == "new_publisher_on_latest" for a in m.alerts),
    )


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a background lookup's outcome as seen (a failure is answered as unavailable)."""
    if not task.cancelled():
        task.exception()
