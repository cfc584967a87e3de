"""
`GitHubSignals`: repository statistics (report `github_stats`) and maintainer trust
(`/api/maintainer/trust/github/{username}`) from the GitHub REST API, each GitHub answer cached
(`ttl_s`, 6 hours by default, then served stale for `stale_s` while GitHub fails).

Never raises for an upstream failure: a GitHub outage, a rate limit or a bad body gives an answer
with `available=False` and the reason, and `_meta.sources` says `unavailable` (or `stale` when an
older cached copy is served). An unknown account raises `AccountNotFound` (404); a malformed login
raises `InvalidInput` (422).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from pkgintel.cache.base import Cache, CacheUnavailable
from pkgintel.domain.errors import AccountNotFound, RegistryError
from pkgintel.domain.signals.github_facts import (
    Account,
    OwnedRepository,
    RepositoryStats,
    parse_account,
    parse_organisations,
    parse_repositories,
    parse_repository,
    validate_login,
)
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.scoring.trust import TrustScore, compute_trust
from pkgintel.sources.github import SOURCE, RepositoryNotFound, github_repo

logger = logging.getLogger(__name__)


class GitHubApi(Protocol):
    """What `GitHubSignals` needs of `sources.github.GitHubClient`."""

    async def fetch_repository(self, owner: str, repo: str) -> Any: ...
    async def fetch_account(self, login: str) -> Any: ...
    async def fetch_account_repositories(self, login: str) -> Any: ...
    async def fetch_account_organizations(self, login: str) -> Any: ...


@dataclass(frozen=True, slots=True)
class Fetched:
    """One cached GitHub body: its JSON (None when GitHub said 404), its status and age."""

    body: Any
    status: SourceStatus


@dataclass(frozen=True, slots=True)
class RepoStatsAnswer:
    """The report's `github_stats`: `stats` None with `reason` when there is nothing to show."""

    repository: str | None
    stats: RepositoryStats | None
    reason: str | None
    sources: tuple[SourceStatus, ...]


@dataclass(frozen=True, slots=True)
class TrustAnswer:
    """Maintainer trust of one GitHub account; `trust` None with `reason` when GitHub gave nothing."""

    platform: str
    username: str
    account: Account | None
    trust: TrustScore | None
    organizations: tuple[str, ...] | None
    top_repositories: tuple[OwnedRepository, ...]
    reason: str | None
    sources: tuple[SourceStatus, ...]

    @property
    def available(self) -> bool:
        return self.trust is not None


class GitHubSignals:
    """See the module docstring. `clock` returns the current UTC time."""

    def __init__(
        self,
        api: GitHubApi,
        cache: Cache,
        *,
        ttl_s: float = 21600,
        stale_s: float = 86400,
        not_found_ttl_s: float = 600,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._api = api
        self._cache = cache
        self._ttl = ttl_s
        self._stale = stale_s
        self._not_found_ttl = not_found_ttl_s
        self._clock = clock

    async def _fetch(self, key: str, kind: str, call: Callable[[], Awaitable[Any]]) -> Fetched:
        """The body under `key`: fresh from the cache, else from GitHub, else a stale copy."""
        now = self._clock()
        entry = None
        try:
            entry = await self._cache.get(f"gh:{key}")
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)
        cached: tuple[Any, datetime] | None = None
        if entry is not None:
            doc = orjson.loads(entry.value)
            at = datetime.fromisoformat(doc["at"])
            if doc.get("missing"):
                if entry.is_fresh(time.time()):
                    return Fetched(
                        None, SourceStatus(SOURCE, kind, SourceState.OK, at, "not found")
                    )
            else:
                cached = (doc["b"], at)
                if entry.is_fresh(time.time()):
                    return Fetched(cached[0], SourceStatus(SOURCE, kind, SourceState.OK, at))
        try:
            body = await call()
        except (RepositoryNotFound, AccountNotFound):
            marker = orjson.dumps({"missing": True, "at": now.isoformat()})
            await self._set(key, marker, self._not_found_ttl)
            return Fetched(None, SourceStatus(SOURCE, kind, SourceState.OK, now, "not found"))
        except RegistryError as exc:
            if cached is not None:
                detail = f"GitHub failed ({exc.reason}); serving the copy fetched at {cached[1].isoformat()}"
                return Fetched(
                    cached[0], SourceStatus(SOURCE, kind, SourceState.STALE, cached[1], detail)
                )
            return Fetched(
                None,
                SourceStatus(
                    SOURCE, kind, SourceState.UNAVAILABLE, None, f"GitHub API: {exc.reason}"
                ),
            )
        body = _slim(body)
        await self._set(key, orjson.dumps({"b": body, "at": now.isoformat()}), self._ttl)
        return Fetched(body, SourceStatus(SOURCE, kind, SourceState.OK, now))

    async def _set(self, key: str, value: bytes, ttl: float) -> None:
        try:
            await self._cache.set(f"gh:{key}", value, ttl_s=ttl, stale_s=self._stale)
        except CacheUnavailable as exc:
            logger.warning("cache unavailable: %s", exc)

    async def repository_stats(self, repository_url: str | None) -> RepoStatsAnswer:
        """Stars, forks, open issues, last push and archived flag of a github.com repository URL."""
        parsed = github_repo(repository_url)
        if parsed is None:
            return not_on_github(repository_url)
        owner, repo = parsed
        full = f"{owner}/{repo}"
        got = await self._fetch(
            f"repo:{full.lower()}", "github_stats", lambda: self._api.fetch_repository(owner, repo)
        )
        if got.status.status is SourceState.UNAVAILABLE:
            return RepoStatsAnswer(full, None, f"unavailable: {got.status.detail}", (got.status,))
        if got.body is None:
            return RepoStatsAnswer(
                full, None, f"GitHub has no public repository {full}", (got.status,)
            )
        stats = _stats_from_cache(got.body)
        if stats is None:
            return RepoStatsAnswer(
                full, None, "GitHub sent an unreadable repository body", (got.status,)
            )
        return RepoStatsAnswer(stats.full_name, stats, None, (got.status,))

    async def trust(self, username: str, *, platform: str = "github") -> TrustAnswer:
        """
        Trust of the GitHub account `username`. Raises `InvalidInput` for a malformed login and
        `AccountNotFound` when GitHub has no such account; GitHub failures give `available=False`.
        """
        login = validate_login(username)
        acc_got, repos_got, orgs_got = await asyncio.gather(
            self._fetch(f"user:{login.lower()}", "account", lambda: self._api.fetch_account(login)),
            self._fetch(
                f"repos:{login.lower()}",
                "repositories",
                lambda: self._api.fetch_account_repositories(login),
            ),
            self._fetch(
                f"orgs:{login.lower()}",
                "organizations",
                lambda: self._api.fetch_account_organizations(login),
            ),
        )
        sources = (acc_got.status, repos_got.status, orgs_got.status)
        if acc_got.status.status is SourceState.UNAVAILABLE:
            return TrustAnswer(
                platform,
                login,
                None,
                None,
                None,
                (),
                f"unavailable: {acc_got.status.detail}",
                sources,
            )
        account = parse_account(acc_got.body) if acc_got.body is not None else None
        if acc_got.body is None:
            raise AccountNotFound(login)
        if account is None:
            return TrustAnswer(
                platform,
                login,
                None,
                None,
                None,
                (),
                "GitHub sent an unreadable account body",
                sources,
            )
        repos = parse_repositories(repos_got.body) if repos_got.body is not None else None
        orgs = parse_organisations(orgs_got.body) if orgs_got.body is not None else None
        score = compute_trust(account, repos, orgs, now=self._clock())
        top = tuple(sorted((r for r in repos or () if not r.fork), key=lambda r: -r.stars)[:5])
        return TrustAnswer(platform, account.login, account, score, orgs, top, None, sources)


def _stats_from_cache(body: Any) -> RepositoryStats | None:
    return parse_repository(body)


_KEEP = frozenset(
    {
        "login", "type", "name", "created_at", "followers", "public_repos", "full_name",
        "stargazers_count", "forks_count", "open_issues_count", "pushed_at", "archived", "fork",
        "default_branch", "owner",
    }
)  # fmt: skip


def _slim(body: Any) -> Any:
    """Only the fields the parsers read, so cached answers stay small (a repository list is
    hundreds of kB as GitHub sends it)."""
    if isinstance(body, list):
        return [_slim(item) for item in body]
    if isinstance(body, dict):
        return {k: (_slim(v) if k == "owner" else v) for k, v in body.items() if k in _KEEP}
    return body


def not_on_github(repository_url: str | None) -> RepoStatsAnswer:
    """The statistics answer for a package whose repository is not on github.com (or not named)."""
    why = (
        "the package names no source repository"
        if not repository_url
        else f"the repository {repository_url} is not on github.com"
    )
    return RepoStatsAnswer(None, None, why, ())
