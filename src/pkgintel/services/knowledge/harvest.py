"""
`HarvestService`: grows the knowledge base from upstream data, for the packages agents ask about.

`harvest(ecosystem, name)` reads the package's source repository (from its registry data, or the
`repository` given), and when it is on GitHub:
- `releases`: the GitHub releases and the changelog file, parsed into per-version sections with
  breaking changes (`domain/knowledge/release_notes.py`), stored per origin;
- `bugs`: issues labelled as bugs, parsed (`domain/knowledge/bugs.py`), `fixed_in` linked from release notes
  that reference them, stored with full-text indexing.
Each kind records a harvest state (`ok`, `no_repository`, `failed` with the reason), so readers can
tell "nothing found" from "never looked". It is a plain async method: the CLI (`pkgintel harvest`)
calls it today, and the job system can schedule it (e.g. `harvest_asked` daily).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.knowledge.bugs import link_fixes, parse_github_issues
from pkgintel.domain.knowledge.release_notes import (
    ORIGIN_CHANGELOG,
    ORIGIN_RELEASE,
    ReleaseSection,
    parse_changelog,
    parse_github_releases,
)
from pkgintel.domain.knowledge.values import HarvestState
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.operations.usage import TRENDING_EXCLUDED_CLASSES, TRENDING_EXCLUDED_SOURCES
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import is_valid, sort_key
from pkgintel.services.packages.service import PackageService
from pkgintel.sources.github import GitHubClient, github_repo
from pkgintel.storage.base import KnowledgeStore

logger = logging.getLogger(__name__)

KINDS = ("releases", "bugs")


@dataclass(frozen=True, slots=True)
class HarvestResult:
    ecosystem: Ecosystem
    package: str
    repository: str | None
    outcomes: dict[str, HarvestState] = field(default_factory=dict)


def _repo_url(value: str) -> str:
    """`owner/repo` or a URL → a github.com URL (other hosts are returned as given)."""
    value = value.strip().rstrip("/")
    if "://" not in value and value.count("/") == 1:
        return f"https://github.com/{value}"
    return value


class HarvestService:
    """See the module docstring."""

    def __init__(
        self,
        packages: PackageService,
        github: GitHubClient,
        store: KnowledgeStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._packages = packages
        self._github = github
        self._store = store
        self._clock = clock

    async def harvest(
        self,
        ecosystem: Ecosystem,
        name: str,
        *,
        repository: str | None = None,
        kinds: Sequence[str] = KINDS,
    ) -> HarvestResult:
        """Harvest `kinds` for one package; never raises for upstream failures (they are recorded)."""
        name = validate_name(ecosystem, name)
        key = normalise_name(ecosystem, name)
        now = self._clock()
        repo = _repo_url(repository) if repository else None
        detail = None
        if repo is None:
            try:
                repo = (await self._packages.get_snapshot(ecosystem, name)).info.repository
            except PkgIntelError as exc:
                detail = f"registry data unavailable: {exc.message}"
        result = HarvestResult(ecosystem, key, repo)
        gh = github_repo(repo)
        if gh is None:
            status = "failed" if detail else "no_repository"
            why = detail or (
                f"repository {repo} is not on GitHub"
                if repo
                else "the package states no repository"
            )
            for kind in kinds:
                state = HarvestState(ecosystem, key, kind, repo, status, why, 0, now)
                await self._store.save_harvest(state)
                result.outcomes[kind] = state
            return result
        owner, name_ = gh
        repo = f"https://github.com/{owner}/{name_}"
        result = HarvestResult(ecosystem, key, repo)
        sections: list[ReleaseSection] = []
        if "releases" in kinds:
            sections, state = await self._releases(ecosystem, key, name, owner, name_, repo, now)
            result.outcomes["releases"] = state
        elif "bugs" in kinds:
            sections = await self._store.sections(ecosystem, key)
        if "bugs" in kinds:
            result.outcomes["bugs"] = await self._bugs(
                ecosystem, key, owner, name_, repo, sections, now
            )
        return result

    async def _releases(
        self,
        ecosystem: Ecosystem,
        key: str,
        name: str,
        owner: str,
        repo_name: str,
        repo: str,
        now: datetime,
    ) -> tuple[list[ReleaseSection], HarvestState]:
        try:
            releases = parse_github_releases(
                await self._github.fetch_releases(owner, repo_name), package=name
            )
            changelog = await self._github.fetch_changelog(owner, repo_name)
        except (PkgIntelError, ValueError) as exc:
            detail = exc.message if isinstance(exc, PkgIntelError) else str(exc)
            state = HarvestState(ecosystem, key, "releases", repo, "failed", detail, 0, now)
            await self._store.save_harvest(state)
            return [], state
        notes: list[ReleaseSection] = []
        if changelog is not None:
            file_name, text = changelog
            notes = parse_changelog(text, url=f"{repo}/blob/HEAD/{file_name}")
        await self._store.replace_sections(ecosystem, key, ORIGIN_RELEASE, releases, now)
        await self._store.replace_sections(ecosystem, key, ORIGIN_CHANGELOG, notes, now)
        detail = f"{len(releases)} GitHub releases, " + (
            f"{len(notes)} changelog sections ({changelog[0]})"
            if changelog
            else "no changelog file"
        )
        state = HarvestState(
            ecosystem, key, "releases", repo, "ok", detail, len(releases) + len(notes), now
        )
        await self._store.save_harvest(state)
        return releases + notes, state

    async def _bugs(
        self,
        ecosystem: Ecosystem,
        key: str,
        owner: str,
        repo_name: str,
        repo: str,
        sections: Sequence[ReleaseSection],
        now: datetime,
    ) -> HarvestState:
        try:
            bugs = parse_github_issues(await self._github.fetch_bug_issues(owner, repo_name))
        except (PkgIntelError, ValueError) as exc:
            detail = exc.message if isinstance(exc, PkgIntelError) else str(exc)
            state = HarvestState(ecosystem, key, "bugs", repo, "failed", detail, 0, now)
            await self._store.save_harvest(state)
            return state
        ordered = sorted(
            (s for s in sections if is_valid(ecosystem, s.version)),
            key=lambda s: sort_key(ecosystem, s.version),
        )
        bugs = link_fixes(bugs, [(s.version, "\n".join(s.entries)) for s in ordered], repo_url=repo)
        count = await self._store.replace_bugs(ecosystem, key, bugs, now)
        state = HarvestState(
            ecosystem, key, "bugs", repo, "ok", f"{count} issues labelled as bugs", count, now
        )
        await self._store.save_harvest(state)
        return state

    async def harvest_asked(
        self, *, limit: int = 20, days: int = 7, kinds: Sequence[str] = KINDS
    ) -> list[HarvestResult]:
        """Harvest the `limit` packages asked about most in the last `days` (crawlers excluded), one
        after the other (GitHub's rate limit is per token)."""
        end = self._clock()
        counts = await self._store.package_counts(
            end - timedelta(days=days),
            end,
            ecosystem=None,
            exclude_classes=TRENDING_EXCLUDED_CLASSES,
            exclude_sources=TRENDING_EXCLUDED_SOURCES,
            limit=limit,
        )
        out = []
        for eco, pkg in counts:
            try:
                ecosystem = Ecosystem(eco)
            except ValueError:
                continue
            out.append(await self.harvest(ecosystem, pkg, kinds=kinds))
        return out
