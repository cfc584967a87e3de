"""
GitHub REST API client for release notes, changelog files, bug issues, repository statistics and
account facts (maintainer trust)
(https://docs.github.com/en/rest). Fetch only; parsing lives in `domain/knowledge/release_notes.py` and
`domain/knowledge/bugs.py`, tested on the recorded bodies in `../shared/data/registry-fixtures/github/`.

Endpoints used (base `PKGINTEL_UPSTREAM_GITHUB_API_URL`, default https://api.github.com):

- `GET /repos/{o}/{r}/releases?per_page=100` — newest first.
- `GET /repos/{o}/{r}/contents/{path}` with `Accept: application/vnd.github.raw` for each of
  `CHANGELOG_FILES` until one exists (404 → try the next).
- `GET /repos/{o}/{r}/issues?labels={label}&state=all&per_page=100` for each of `BUG_LABELS`
  until one answers with issues (label names differ between projects).
- `GET /repos/{o}/{r}` (report `github_stats`), `GET /users/{login}`, `/users/{login}/repos` and
  `/users/{login}/orgs` (maintainer trust); parsed by `domain/signals/github_facts.py`. These run on the
  request path, each answer cached 6 hours by `services/signals/github.py`.

An optional token (`PKGINTEL_GITHUB_TOKEN`) is sent as `Authorization: Bearer`; without one GitHub
allows 60 requests per hour, which is why harvests run as jobs, not on the request path. Failures map
like the registries' (`pkgintel/transport/upstream.py`): 429/5xx and a 403 with `x-ratelimit-remaining: 0` →
`RegistryUnavailable`; a 404 repository → `RepositoryNotFound`.
"""

from __future__ import annotations

import logging
import re
from typing import Any, Final
from urllib.parse import quote, urlsplit

import httpx
import orjson

from pkgintel.domain.errors import (
    AccountNotFound,
    PkgIntelError,
    RegistryResponseInvalid,
    RegistryUnavailable,
)
from pkgintel.transport.upstream import parse_retry_after, raise_if_unavailable, send

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL: Final = "https://api.github.com"
SOURCE: Final = "api.github.com"
CHANGELOG_FILES: Final = (
    "CHANGELOG.md",
    "CHANGES.md",
    "HISTORY.md",
    "CHANGES.rst",
    "HISTORY.rst",
    "CHANGELOG.rst",
    "NEWS.md",
    "CHANGELOG",
    "CHANGES",
)
BUG_LABELS: Final = ("bug", "type: bug", "kind/bug", "Type: Bug", "type/bug", "defect")
_REPO = re.compile(r"^/([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


class RepositoryNotFound(PkgIntelError):
    """GitHub has no such repository (or it is private)."""

    reason = "repository_not_found"

    def __init__(self, repo: str) -> None:
        super().__init__(f"GitHub repository {repo!r} was not found")
        self.repo = repo


def github_repo(url: str | None) -> tuple[str, str] | None:
    """`(owner, repo)` of a github.com URL (as the adapters normalise it), else None."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if (parts.hostname or "").removeprefix("www.") != "github.com":
        return None
    m = _REPO.match(parts.path)
    return (m.group(1), m.group(2)) if m else None


class GitHubClient:
    """Reads releases, changelog files and bug issues of one repository at a time."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str = DEFAULT_BASE_URL,
        *,
        token: str | None = None,
    ) -> None:
        self._client = client
        self._base = base_url.rstrip("/")
        self._headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        if token:
            self._headers["Authorization"] = f"Bearer {token}"

    async def _get(self, path: str, *, raw: bool = False) -> httpx.Response:
        headers = dict(self._headers)
        if raw:
            headers["Accept"] = "application/vnd.github.raw"
        response = await send(
            self._client,
            "GET",
            f"{self._base}{path}",
            ecosystem="github",
            source=SOURCE,
            headers=headers,
            log=logger,
        )
        if response.status_code == 403 and response.headers.get("x-ratelimit-remaining") == "0":
            raise RegistryUnavailable(
                "github",
                f"{SOURCE} rate limit reached",
                reason="rate_limited",
                source=SOURCE,
                retry_after=parse_retry_after(response.headers.get("retry-after")),
            )
        raise_if_unavailable(response, ecosystem="github", source=SOURCE)
        return response

    def _json(self, response: httpx.Response) -> Any:
        if not 200 <= response.status_code < 300:
            raise RegistryResponseInvalid(
                "github",
                f"{SOURCE} answered HTTP {response.status_code}",
                reason=f"status.{response.status_code}",
                source=SOURCE,
            )
        try:
            return orjson.loads(response.content)
        except orjson.JSONDecodeError as exc:
            raise RegistryResponseInvalid(
                "github",
                f"{SOURCE} sent a body that is not JSON",
                reason="invalid_json",
                source=SOURCE,
            ) from exc

    @staticmethod
    def _path(owner: str, repo: str) -> str:
        return f"/repos/{quote(owner, safe='')}/{quote(repo, safe='')}"

    async def fetch_repository(self, owner: str, repo: str) -> Any:
        """`GET /repos/{o}/{r}` (JSON object). Raises `RepositoryNotFound` on 404."""
        response = await self._get(self._path(owner, repo))
        if response.status_code == 404:
            raise RepositoryNotFound(f"{owner}/{repo}")
        return self._json(response)

    async def fetch_account(self, login: str) -> Any:
        """`GET /users/{login}` (a user or an organisation). Raises `AccountNotFound` on 404."""
        response = await self._get(f"/users/{quote(login, safe='')}")
        if response.status_code == 404:
            raise AccountNotFound(login)
        return self._json(response)

    async def fetch_account_repositories(self, login: str) -> Any:
        """`GET /users/{login}/repos?type=owner&sort=pushed&per_page=100` (JSON array)."""
        response = await self._get(
            f"/users/{quote(login, safe='')}/repos?type=owner&sort=pushed&per_page=100"
        )
        if response.status_code == 404:
            raise AccountNotFound(login)
        return self._json(response)

    async def fetch_account_organizations(self, login: str) -> Any:
        """`GET /users/{login}/orgs` (public memberships, JSON array)."""
        response = await self._get(f"/users/{quote(login, safe='')}/orgs?per_page=100")
        if response.status_code == 404:
            raise AccountNotFound(login)
        return self._json(response)

    async def fetch_releases(self, owner: str, repo: str) -> Any:
        """The releases list (JSON array, newest first). Raises `RepositoryNotFound` on 404."""
        response = await self._get(f"{self._path(owner, repo)}/releases?per_page=100")
        if response.status_code == 404:
            raise RepositoryNotFound(f"{owner}/{repo}")
        return self._json(response)

    async def fetch_changelog(self, owner: str, repo: str) -> tuple[str, str] | None:
        """`(file name, text)` of the first changelog file found, or None when there is none."""
        for name in CHANGELOG_FILES:
            response = await self._get(
                f"{self._path(owner, repo)}/contents/{quote(name)}", raw=True
            )
            if response.status_code == 404:
                continue
            if not 200 <= response.status_code < 300:
                self._json(response)  # raises with the status
            return name, response.content.decode("utf-8", errors="replace")
        return None

    async def fetch_bug_issues(self, owner: str, repo: str) -> Any:
        """Issues (open and closed, newest first) under the first bug label that has any."""
        for label in BUG_LABELS:
            path = (
                f"{self._path(owner, repo)}/issues?labels={quote(label, safe='')}"
                "&state=all&per_page=100&sort=updated"
            )
            response = await self._get(path)
            if response.status_code == 404:
                raise RepositoryNotFound(f"{owner}/{repo}")
            body = self._json(response)
            if isinstance(body, list) and any(
                isinstance(i, dict) and "pull_request" not in i for i in body
            ):
                return body
        return []
