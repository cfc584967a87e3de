"""
`TrustSignals`: the people-and-project signals of one package in one call — maintainers
(`MaintainerService`), GitHub repository statistics and the repository owner's trust
(`GitHubSignals`), and quality (`QualityService`). The report uses it (`github_stats`,
`maintainer_trust`, `quality`, and the health score's community component); the MCP tool
`get_trust_signals` can call `get_trust_signals`. Upstream failures never raise here: each part
says "unavailable" with its reason.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from pkgintel.domain.errors import AccountNotFound, InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.maintainers import MaintainerAnalysis
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.services.packages.service import PackageService, Snapshot
from pkgintel.services.signals.github import (
    GitHubSignals,
    RepoStatsAnswer,
    TrustAnswer,
    not_on_github,
)
from pkgintel.services.signals.maintainers import HistoryResult, MaintainerService
from pkgintel.services.signals.quality import QualityAnswer, QualityService
from pkgintel.sources.github import SOURCE as GITHUB_SOURCE
from pkgintel.sources.github import github_repo


@dataclass(frozen=True, slots=True)
class PackageTrust:
    """Maintainers, repository statistics, owner trust and quality of one package."""

    maintainers: MaintainerAnalysis
    github: RepoStatsAnswer
    owner_trust: TrustAnswer | None
    owner_trust_reason: str | None
    """Why `owner_trust` is None (no GitHub repository, no such account)."""
    quality: QualityAnswer
    sources: tuple[SourceStatus, ...]


class TrustSignals:
    """See the module docstring."""

    def __init__(
        self,
        packages: PackageService,
        maintainers: MaintainerService,
        github: GitHubSignals,
        quality: QualityService,
    ) -> None:
        self._packages = packages
        self.maintainers = maintainers
        self.github = github
        self.quality = quality

    def prefetch(self, ecosystem: Ecosystem, name: str) -> asyncio.Future[HistoryResult]:
        """Start the publisher history now, beside the snapshot fetch (see `MaintainerService.prefetch`)."""
        return self.maintainers.prefetch(ecosystem, name)

    async def for_snapshot(
        self, snapshot: Snapshot, history: asyncio.Future[HistoryResult] | None = None
    ) -> PackageTrust:
        """All signals for an already fetched snapshot; never raises for upstream failures."""
        info = snapshot.info
        hist_task = history or self.prefetch(info.ecosystem, info.name)
        repo_task = self.github.repository_stats(info.repository)
        owner = github_repo(info.repository)
        trust_task = self._owner_trust(owner[0]) if owner else None
        repo, hist, trust, remote = await asyncio.gather(
            repo_task,
            hist_task,
            trust_task if trust_task is not None else _none(),
            self.quality.fetch_remote(snapshot),
        )
        owner_trust, owner_reason = trust if trust is not None else (None, repo.reason)
        quality = self.quality.assemble(snapshot, hist, repo, remote)
        return PackageTrust(
            maintainers=self.maintainers.analyse(snapshot, hist),
            github=repo,
            owner_trust=owner_trust,
            owner_trust_reason=owner_reason,
            quality=quality,
            sources=_unique(quality.sources, owner_trust.sources if owner_trust else ()),
        )

    async def pending(
        self,
        snapshot: Snapshot,
        history: asyncio.Future[HistoryResult] | None,
        reason: str,
    ) -> PackageTrust:
        """`for_snapshot`'s answer while its GitHub, deps.dev and download-window lookups are still
        under way: the maintainer analysis (registry data and the publisher history) in full, and
        each of those signals as unavailable with `reason`."""
        info = snapshot.info
        hist = await (history or self.prefetch(info.ecosystem, info.name))
        owner = github_repo(info.repository)
        if owner is None:
            repo = not_on_github(info.repository)
        else:
            repo = RepoStatsAnswer(
                "/".join(owner),
                None,
                reason,
                (
                    SourceStatus(
                        GITHUB_SOURCE, "github_stats", SourceState.UNAVAILABLE, None, reason
                    ),
                ),
            )
        quality = self.quality.assemble(
            snapshot, hist, repo, self.quality.pending_remote(snapshot, reason)
        )
        return PackageTrust(
            maintainers=self.maintainers.analyse(snapshot, hist),
            github=repo,
            owner_trust=None,
            owner_trust_reason=reason if owner is not None else repo.reason,
            quality=quality,
            sources=_unique(quality.sources),
        )

    async def maintainers_for(
        self, snapshot: Snapshot, history: asyncio.Future[HistoryResult] | None = None
    ) -> MaintainerAnalysis:
        """Only the maintainer analysis (registry data: what the health score uses), without the
        GitHub, deps.dev and download calls; never raises for upstream failures."""
        info = snapshot.info
        hist = await (history or self.prefetch(info.ecosystem, info.name))
        return self.maintainers.analyse(snapshot, hist)

    async def get_trust_signals(self, ecosystem: Ecosystem, name: str) -> PackageTrust:
        """
        Maintainers, GitHub statistics, owner trust and quality of `name`. Raises
        `PackageNotFound`, `EcosystemNotSupported` and `RegistryUnavailable` (registry down, nothing
        stored) like `PackageService.get_snapshot`.
        """
        history = self.prefetch(ecosystem, name)
        snapshot = await self._packages.get_snapshot(ecosystem, name)
        return await self.for_snapshot(snapshot, history)

    async def _owner_trust(self, login: str) -> tuple[TrustAnswer | None, str | None]:
        try:
            return await self.github.trust(login), None
        except AccountNotFound:
            return None, f"GitHub has no account named {login!r}"
        except InvalidInput:
            return None, f"{login!r} is not a GitHub account name"


async def _none() -> None:
    return None


def _unique(*groups: tuple[SourceStatus, ...]) -> tuple[SourceStatus, ...]:
    """The sources of several parts, the first of each (name, kind) kept."""
    seen: dict[tuple[str, str], SourceStatus] = {}
    for group in groups:
        for src in group:
            seen.setdefault((src.name, src.kind), src)
    return tuple(seen.values())
