"""
`ScorecardService`: the OpenSSF Scorecard result of a package's source repository.

The repository comes from the registry metadata (`PackageInfo.repository`, normalised by the
adapters); Scorecard holds results for GitHub and GitLab projects it scans. Results are cached
like package data (`signal_cache.cached_signal`): fresh for the package TTL, then served stale while
the Scorecard API fails. Every answer says why it has no result when it has none: no repository
declared, a host Scorecard does not scan, a repository Scorecard has not scanned, or the API
failing — never a score of 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from urllib.parse import urlsplit

from pkgintel.cache.base import Cache
from pkgintel.domain.errors import RegistryError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.signals.scorecard import Scorecard, ScorecardCheck
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.services.signals.cache import cached_signal

SOURCE = "api.scorecard.dev"
SCANNED_HOSTS = frozenset({"github.com", "gitlab.com"})


class ScorecardFetcher(Protocol):
    """`sources.scorecard.ScorecardClient`: None when Scorecard has no result for the project."""

    async def fetch(self, host: str, owner: str, repo: str) -> Scorecard | None: ...


@dataclass(frozen=True, slots=True)
class ScorecardResult:
    """What we know of one repository's Scorecard: the result, or why there is none."""

    repository: str | None
    project: str | None
    """`host/owner/repo` as asked of Scorecard (None when no project could be named)."""
    scorecard: Scorecard | None
    status: str
    """`ok`, `stale` (an older copy while the API fails), `not_scanned`, `no_repository`,
    `unsupported_host` or `unavailable` (the API failed and nothing is cached)."""
    reason: str | None
    source: SourceStatus | None
    """The Scorecard API's entry for `_meta.sources` (None when it was not asked)."""

    @property
    def available(self) -> bool:
        return self.scorecard is not None


@dataclass(frozen=True, slots=True)
class ScorecardAnswer:
    """`/api/scorecard`: a package's repository and its Scorecard result."""

    ecosystem: Ecosystem
    package: str
    version: str
    result: ScorecardResult
    snapshot: Snapshot

    @property
    def sources(self) -> tuple[SourceStatus, ...]:
        extra = (self.result.source,) if self.result.source is not None else ()
        return (*self.snapshot.sources, *extra)


def scorecard_project(repository: str | None) -> tuple[str, str, str] | None:
    """`(host, owner, repo)` of a github.com / gitlab.com repository URL, else None."""
    if not repository:
        return None
    try:
        parts = urlsplit(repository.strip())
    except ValueError:
        return None
    host = (parts.hostname or "").removeprefix("www.").lower()
    segments = [s for s in parts.path.split("/") if s]
    if host not in SCANNED_HOSTS or len(segments) < 2:
        return None
    repo = segments[1].removesuffix(".git")
    return (host, segments[0], repo) if repo else None


def _encode(card: Scorecard) -> dict[str, Any]:
    return {
        "r": card.repository,
        "s": card.score,
        "d": card.date.isoformat() if card.date else None,
        "v": card.scorecard_version,
        "c": card.commit,
        "k": [[c.name, c.score, c.reason, c.documentation_url] for c in card.checks],
    }


def _decode(doc: Any) -> Scorecard:
    return Scorecard(
        repository=doc["r"],
        score=doc["s"],
        date=datetime.fromisoformat(doc["d"]) if doc["d"] else None,
        scorecard_version=doc["v"],
        commit=doc["c"],
        checks=tuple(ScorecardCheck(n, s, r, u) for n, s, r, u in doc["k"]),
    )


class ScorecardService:
    """See the module docstring. `clock` returns UNIX seconds (injected for tests)."""

    def __init__(
        self,
        packages: PackageService,
        fetcher: ScorecardFetcher,
        cache: Cache,
        *,
        ttl_s: float,
        stale_s: float,
        not_found_ttl_s: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._packages = packages
        self._fetcher = fetcher
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._none_ttl = not_found_ttl_s
        self._clock = clock

    async def get(self, ecosystem: Ecosystem, name: str) -> ScorecardAnswer:
        """
        The Scorecard of `name`'s repository (from the latest version's metadata). Raises like
        `PackageService.get_snapshot` (`PackageNotFound`, `RegistryUnavailable`, ...) when the
        package itself cannot be read; a failing Scorecard API is an `unavailable` result, not an error.
        """
        snapshot = await self._packages.get_snapshot(ecosystem, name)
        result = await self.for_repository(snapshot.info.repository)
        return ScorecardAnswer(ecosystem, name, snapshot.info.latest_version, result, snapshot)

    async def for_repository(self, repository: str | None) -> ScorecardResult:
        """The Scorecard result of a repository URL (see `ScorecardResult.status`). Never raises
        for upstream failures."""
        target = _target(repository)
        if isinstance(target, ScorecardResult):
            return target
        host, owner, repo = target
        label = f"{host}/{owner}/{repo}"
        try:
            cached = await cached_signal(
                self._cache,
                f"scorecard:{label.lower()}",
                lambda: self._fetcher.fetch(host, owner, repo),
                encode=_encode,
                decode=_decode,
                ttl_s=self._ttl,
                stale_s=self._stale,
                none_ttl_s=self._ttl,
                now=self._clock,
            )
        except RegistryError as exc:
            reason = f"the Scorecard API failed ({exc.reason}): {exc.message}"
            return ScorecardResult(
                repository,
                label,
                None,
                "unavailable",
                reason,
                SourceStatus(SOURCE, "scorecard", SourceState.UNAVAILABLE, None, reason),
            )
        card = cached.value
        state = SourceState.STALE if cached.cache_status == "stale" else SourceState.OK
        source = SourceStatus(
            SOURCE,
            "scorecard",
            state,
            cached.fetched_at,
            cached.detail,
            data_as_of=card.date if card else None,
        )
        if card is None:
            return ScorecardResult(
                repository,
                label,
                None,
                "not_scanned",
                f"OpenSSF Scorecard has no result for {label} (it scans a selection of projects)",
                source,
            )
        return ScorecardResult(
            repository,
            label,
            card,
            "stale" if state is SourceState.STALE else "ok",
            cached.detail,
            source,
        )

    def pending(self, repository: str | None, reason: str) -> ScorecardResult:
        """The result while the Scorecard lookup is still under way (`reason` says so): as
        `for_repository` when no project can be asked, else `unavailable` with that reason."""
        target = _target(repository)
        if isinstance(target, ScorecardResult):
            return target
        return ScorecardResult(
            repository,
            "/".join(target),
            None,
            "unavailable",
            reason,
            SourceStatus(SOURCE, "scorecard", SourceState.UNAVAILABLE, None, reason),
        )


def _target(repository: str | None) -> tuple[str, str, str] | ScorecardResult:
    """The `(host, owner, repo)` to ask Scorecard about, or the result when there is none."""
    if not repository:
        return ScorecardResult(
            None,
            None,
            None,
            "no_repository",
            "the registry metadata names no source repository, so there is nothing to score",
            None,
        )
    project = scorecard_project(repository)
    if project is None:
        return ScorecardResult(
            repository,
            None,
            None,
            "unsupported_host",
            "OpenSSF Scorecard publishes results only for GitHub and GitLab repositories",
            None,
        )
    return project
