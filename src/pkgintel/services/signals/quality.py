"""
`QualityService`: `/api/quality/{ecosystem}/{package}` and the report's `quality` — the OpenSSF
criticality-score inputs we can compute (age, update frequency, publishers, dependents from deps.dev,
repository facts from GitHub), download velocity (last week against the 30-day average) and
publish-security signals (trusted publishing / provenance, MFA required) where the registry says.

Each part names its source; a part whose upstream fails is None with the reason in `unavailable`
(never 0), and its source is `unavailable` in `sources`. Download windows and dependents are cached
like package data (`ttl_s`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import RegistryError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.releases import VersionHistory, summarise_history
from pkgintel.domain.signals.maintainers import MaintainerAnalysis
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.signals.quality import DownloadTrend, download_trend
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.services.signals.github import GitHubSignals, RepoStatsAnswer
from pkgintel.services.signals.maintainers import HistoryResult, MaintainerService
from pkgintel.sources.quality import (
    DEPSDEV_SOURCE,
    DEPSDEV_SYSTEMS,
    Dependents,
    DownloadWindows,
    QualitySources,
)

logger = logging.getLogger(__name__)

PYPI_MFA_POLICY: Final = (
    "PyPI requires two-factor authentication of every account that maintains a project "
    "(announced 2023-05-25, enforced from the start of 2024)",
    "https://blog.pypi.org/posts/2023-05-25-securing-pypi-with-2fa/",
)


@dataclass(frozen=True, slots=True)
class PublishSecurity:
    trusted_publishing: bool | None
    """The latest release was published by an OIDC trusted publisher or carries a provenance
    attestation; None when the registry data does not say."""
    trusted_publisher: str | None
    mfa_required: bool | None
    mfa_basis: str | None
    """What `mfa_required` rests on (the package's own flag, or a registry-wide policy with its link)."""


@dataclass(frozen=True, slots=True)
class QualityAnswer:
    ecosystem: Ecosystem
    package: str
    latest_version: str
    history: VersionHistory
    maintainers_count: int | None
    publishers_last_365_days: int | None
    dependents: Dependents | None
    windows: DownloadWindows | None
    trend: DownloadTrend | None
    repository: RepoStatsAnswer | None
    publish_security: PublishSecurity
    unavailable: dict[str, str]
    sources: tuple[SourceStatus, ...]
    generated_at: datetime
    cache_status: str = "hit"
    extra: dict[str, Any] = field(default_factory=dict)


class QualityService:
    """See the module docstring."""

    def __init__(
        self,
        packages: PackageService,
        maintainers: MaintainerService,
        github: GitHubSignals,
        sources: QualitySources,
        cache: Cache,
        *,
        ttl_s: float = 21600,
        stale_s: float = 86400,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._packages = packages
        self._maintainers = maintainers
        self._github = github
        self._sources = sources
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._clock = clock

    async def get_quality(self, ecosystem: Ecosystem, name: str) -> QualityAnswer:
        """
        Quality signals of `name`. Raises `PackageNotFound`, `EcosystemNotSupported` and
        `RegistryUnavailable` (registry down, nothing stored) like `PackageService.get_snapshot`;
        every other upstream failure is reported inside the answer.
        """
        history_task = self._maintainers.prefetch(ecosystem, name)
        snapshot = await self._packages.get_snapshot(ecosystem, name)
        repo, history, remote = await asyncio.gather(
            self._github.repository_stats(snapshot.info.repository),
            history_task,
            self.fetch_remote(snapshot),
        )
        return self.assemble(snapshot, history, repo, remote)

    async def compute(
        self, snapshot: Snapshot, history: HistoryResult, repo: RepoStatsAnswer | None
    ) -> QualityAnswer:
        """Quality from an already fetched snapshot, publisher history and repository stats
        (the report passes its own, so nothing is fetched twice)."""
        return self.assemble(snapshot, history, repo, await self.fetch_remote(snapshot))

    async def fetch_remote(self, snapshot: Snapshot) -> QualityRemote:
        """The download windows and deps.dev dependents of `snapshot`'s package, fetched
        concurrently (cached); never raises for upstream failures."""
        info = snapshot.info
        eco = info.ecosystem
        windows_task = (
            self._cached(
                f"q:dl:{eco.value}:{info.name.lower()}",
                "downloads_trend",
                lambda: self._sources.fetch_download_windows(
                    eco, info.name, snapshot.weekly_downloads
                ),
                _enc_windows,
                _dec_windows,
                source=_window_source(eco),
            )
            if self._sources.has_download_windows(eco)
            else _absent()
        )
        deps_task = (
            self._cached(
                f"q:dep:{eco.value}:{info.name.lower()}:{info.latest_version}",
                "dependents",
                lambda: self._sources.fetch_dependents(eco, info.name, info.latest_version),
                _enc_dependents,
                _dec_dependents,
                source=DEPSDEV_SOURCE,
            )
            if eco in DEPSDEV_SYSTEMS
            else _absent()
        )
        windows, deps = await asyncio.gather(windows_task, deps_task)
        return QualityRemote(windows, deps)

    def pending_remote(self, snapshot: Snapshot, reason: str) -> QualityRemote:
        """`fetch_remote`'s answer while its lookups are still under way: each part the ecosystem
        has a source for, as unavailable with `reason`."""
        eco = snapshot.info.ecosystem
        windows = (
            (
                None,
                SourceStatus(
                    _window_source(eco), "downloads_trend", SourceState.UNAVAILABLE, None, reason
                ),
            )
            if self._sources.has_download_windows(eco)
            else None
        )
        dependents = (
            (
                None,
                SourceStatus(DEPSDEV_SOURCE, "dependents", SourceState.UNAVAILABLE, None, reason),
            )
            if eco in DEPSDEV_SYSTEMS
            else None
        )
        return QualityRemote(windows, dependents)

    def assemble(
        self,
        snapshot: Snapshot,
        history: HistoryResult,
        repo: RepoStatsAnswer | None,
        remote: QualityRemote,
    ) -> QualityAnswer:
        """The quality answer from fetched parts (pure but for the clock)."""
        info = snapshot.info
        eco = info.ecosystem
        now = self._clock()
        unavailable: dict[str, str] = {}
        sources: list[SourceStatus] = []
        windows_task = remote.windows
        deps_task = remote.dependents
        windows: DownloadWindows | None = None
        dependents: Dependents | None = None
        if windows_task is not None:
            windows, st = windows_task
            sources.append(st)
            if windows is None:
                unavailable["downloads_trend"] = (
                    st.detail or "the downloads source does not know this package"
                )
        else:
            unavailable["downloads_trend"] = f"no download-window source for {eco.value}"
        if deps_task is not None:
            dependents, st = deps_task
            sources.append(st)
            if dependents is None:
                unavailable["dependents"] = st.detail or "deps.dev does not know this version"
        else:
            unavailable["dependents"] = f"deps.dev does not cover {eco.value}"
        analysis = self._maintainers.analyse(snapshot, history)
        if history.status is not None:
            sources.append(history.status)
        if repo is not None:
            sources.extend(repo.sources)
            if repo.stats is None and repo.reason:
                unavailable["repository"] = repo.reason
        pub_recent = _publishers_recent(history, now)
        if pub_recent is None:
            unavailable["publishers_last_365_days"] = (
                analysis.unavailable.get("publishers") or "no per-release publisher data"
            )
        unavailable["contributors"] = (
            "the repository's commit authors are not fetched; see maintainers and publishers"
        )
        history_summary = summarise_history(info.releases, now)
        if history_summary.first_release_age_days is None:
            for key in ("age_days", "last_release_days_ago", "releases_last_365_days"):
                unavailable[key] = (
                    f"the {eco.value} registry gave no release dates for this package"
                )
        security = _publish_security(eco, info.extra, analysis)
        if security.trusted_publishing is None:
            unavailable["trusted_publishing"] = (
                "PyPI shows trusted publishing only in each file's attestations (see /api/provenance)"
                if eco is Ecosystem.PYPI
                else f"{eco.value} registry data does not say how releases were published"
            )
        if security.mfa_required is None:
            unavailable["mfa_required"] = (
                f"the {eco.value} registry does not say whether publishing needs MFA"
            )
        return QualityAnswer(
            ecosystem=eco,
            package=info.name,
            latest_version=info.latest_version,
            history=history_summary,
            maintainers_count=analysis.count,
            publishers_last_365_days=pub_recent,
            dependents=dependents,
            windows=windows,
            trend=download_trend(windows.last_week, windows.last_month) if windows else None,
            repository=repo,
            publish_security=security,
            unavailable=unavailable,
            sources=tuple(sources),
            generated_at=now,
            cache_status=snapshot.cache_status,
        )

    async def _cached(
        self,
        key: str,
        kind: str,
        fetch: Callable[[], Awaitable[Any]],
        encode: Callable[[Any], Any],
        decode: Callable[[Any], Any],
        *,
        source: str,
    ) -> tuple[Any, SourceStatus]:
        now = self._clock()
        entry = None
        try:
            entry = await self._cache.get(key)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)
        cached = None
        if entry is not None:
            doc = orjson.loads(entry.value)
            cached = (
                decode(doc["v"]) if doc["v"] is not None else None,
                datetime.fromisoformat(doc["at"]),
            )
            if entry.is_fresh(time.time()):
                note = None if cached[0] is not None else "no entry for this package"
                return cached[0], SourceStatus(source, kind, SourceState.OK, cached[1], note)
        try:
            value = await fetch()
        except RegistryError as exc:
            if cached is not None:
                detail = f"source failed ({exc.reason}); serving the copy fetched at {cached[1].isoformat()}"
                return cached[0], SourceStatus(source, kind, SourceState.STALE, cached[1], detail)
            return None, SourceStatus(
                source, kind, SourceState.UNAVAILABLE, None, f"{source}: {exc.reason}"
            )
        doc = {"v": encode(value) if value is not None else None, "at": now.isoformat()}
        try:
            await self._cache.set(key, orjson.dumps(doc), ttl_s=self._ttl, stale_s=self._stale)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)
        note = None if value is not None else "no entry for this package"
        return value, SourceStatus(source, kind, SourceState.OK, now, note)


@dataclass(frozen=True, slots=True)
class QualityRemote:
    """What `fetch_remote` got: each part with its source status, or None when the ecosystem has
    no such source."""

    windows: tuple[DownloadWindows | None, SourceStatus] | None
    dependents: tuple[Dependents | None, SourceStatus] | None


async def _absent() -> None:
    return None


def _window_source(eco: Ecosystem) -> str:
    return "pypistats.org" if eco is Ecosystem.PYPI else "api.npmjs.org"


def _enc_windows(w: DownloadWindows) -> list[Any]:
    return [w.last_week, w.last_month, w.source]


def _dec_windows(v: list[Any]) -> DownloadWindows:
    return DownloadWindows(v[0], v[1], v[2])


def _enc_dependents(d: Dependents) -> list[Any]:
    return [d.total, d.direct, d.indirect, d.version]


def _dec_dependents(v: list[Any]) -> Dependents:
    return Dependents(v[0], v[1], v[2], v[3])


def _publishers_recent(history: HistoryResult, now: datetime) -> int | None:
    if history.history is None:
        return None
    pubs = history.history.publications
    if not any(p.publisher for p in pubs):
        return None
    return len(
        {
            p.publisher.lower()
            for p in pubs
            if p.publisher and p.published_at is not None and (now - p.published_at).days <= 365
        }
    )


def _publish_security(
    eco: Ecosystem, extra: dict[str, str], analysis: MaintainerAnalysis
) -> PublishSecurity:
    trusted = analysis.trusted_publishing_latest
    mfa: bool | None = None
    basis: str | None = None
    if eco is Ecosystem.RUBYGEMS and "mfa_required" in extra:
        mfa = extra["mfa_required"] == "true"
        basis = "the gem's metadata `rubygems_mfa_required`"
    elif eco is Ecosystem.PYPI:
        mfa, basis = True, f"{PYPI_MFA_POLICY[0]} ({PYPI_MFA_POLICY[1]})"
    return PublishSecurity(trusted, None, mfa, basis)
