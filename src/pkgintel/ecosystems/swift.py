"""
Swift adapter: SwiftPM packages, identified by their repository URL.

SwiftPM has no central registry: a package is a git repository and its versions are the
repository's SemVer tags. Existence comes from the Swift Package Index package list
(https://github.com/SwiftPackageIndex/PackageList, `packages.json`: a JSON array of
`https://github.com/<owner>/<repo>.git` URLs); versions, dates and repository facts from the code
host's REST API (https://docs.github.com/en/rest):

| request | gives |
|---|---|
| `GET {list}/packages.json` | every indexed package URL (kept in memory for `LIST_TTL_S`, one fetch at a time) |
| `GET {github}/repos/{owner}/{repo}` | description, licence (`license.spdx_id`), homepage, owner, `archived` |
| `GET {github}/repos/{owner}/{repo}/tags?per_page=100` | tag names, following `Link: rel="next"` up to `MAX_TAG_PAGES` pages |
| `GET {github}/repos/{owner}/{repo}/releases?per_page=100` | publish dates and pre-release flags of the (newest 100) GitHub releases |

The three code-host requests run concurrently once the list has placed the package. Names are
matched with `normalise_name` (`https://github.com/apple/swift-nio.git`, `github.com/apple/swift-nio`
and `apple/swift-nio` are one package). A tag is a version when it is SemVer 2.0 after an optional
leading `v`, as SwiftPM reads tags; the version is reported without the `v`. A tag without a GitHub
release has no date (None).

Failure table (beyond the shared one in `transport/fetch.py`):

- the list does not contain the package → `PackageNotFound` (no code-host call is made);
- the list cannot be read (down, or not the expected array) → the code host alone decides, and the
  list is reported `unavailable` in `sources`;
- the list contains the package but the code host has no repository or tags for it (404) →
  `RegistryUnavailable(source="api.github.com", reason="code_host.not_found")`: the package exists,
  its data is what is missing, so this is never an empty report;
- a code-host rate limit (403/429 with `x-ratelimit-remaining: 0`) → `RegistryUnavailable` with
  `retry_after` from `x-ratelimit-reset`.

A token (`PKGINTEL_GITHUB_TOKEN`) raises GitHub's limit from 60 to 5,000 requests an hour. SwiftPM
declares dependencies in `Package.swift` (Swift code, not data), which is not read: dependencies
are empty with `dependencies_unavailable`. Nobody counts downloads of git repositories: the weekly
figure is null with `downloads_unavailable`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx
import orjson

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_datetime, as_text
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key, versions_equal
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import DEFAULT_HEADERS, NOT_FOUND_STATUSES
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.upstream import raise_if_unavailable, send

DEFAULT_BASE_URL: Final = "https://raw.githubusercontent.com/SwiftPackageIndex/PackageList/main"
DEFAULT_GITHUB_API_URL: Final = "https://api.github.com"
LIST_SOURCE: Final = "swiftpackageindex.com"
"""The package list: whether a package exists (a secondary source in `_meta.sources`)."""
CODE_HOST_SOURCE: Final = "api.github.com"
REGISTRY_SOURCE: Final = CODE_HOST_SOURCE
"""Versions, dates and repository facts all come from the code host: it is the report's registry."""
LIST_TTL_S: Final = 3600.0
MAX_TAG_PAGES: Final = 10
AVAILABLE_IN_ERRORS: Final = 10
NO_DOWNLOADS: Final = (
    "Swift packages are cloned from their git repositories; nobody counts downloads"
)
NO_DEPENDENCIES: Final = (
    "SwiftPM declares dependencies in Package.swift (Swift code), which is not read"
)

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.SWIFT
_GITHUB_KEY = re.compile(r"^github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)$")
_TAG = re.compile(
    r"^[vV]?((0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?)$"
)


def tag_version(tag: str) -> str | None:
    """The SemVer version a git tag stands for in SwiftPM (`v1.2.3` → `1.2.3`), or None."""
    m = _TAG.match(tag.strip())
    return m[1] if m else None


def parse_package_list(body: bytes) -> dict[str, str]:
    """
    `{normalised key: URL as listed}` from `packages.json`. Raises `RegistryResponseInvalid` when the
    body is not a JSON array of strings.
    """
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise _invalid(LIST_SOURCE, "the package list is not JSON") from exc
    if not isinstance(data, list) or not all(isinstance(u, str) for u in data):
        raise _invalid(LIST_SOURCE, "the package list is not an array of URLs")
    return {normalise_name(_ECOSYSTEM, url): url.strip() for url in data if url.strip()}


class SwiftAdapter:
    """`RegistryAdapter` for SwiftPM packages (Swift Package Index list + GitHub API)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.SWIFT
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        github_api_url: str = DEFAULT_GITHUB_API_URL,
        github_token: str | None = None,
        list_ttl_s: float = LIST_TTL_S,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._github = github_api_url.rstrip("/")
        self._headers = {"Accept": "application/vnd.github+json"}
        if github_token:
            self._headers["Authorization"] = f"Bearer {github_token}"
        self._list = MemoryLRU[str, dict[str, str]](1, ttl_s=list_ttl_s)
        self._list_fetches = SharedFetches[dict[str, str]]()

    @property
    def list_url(self) -> str:
        return f"{self._base_url}/packages.json"

    async def package_list(self) -> dict[str, str]:
        """The Swift Package Index list (cached for `list_ttl_s`); raises like `get_json`."""
        held = self._list.get("list")
        if held is not None:
            return held

        async def start() -> dict[str, str]:
            response = await send(
                self._client,
                "GET",
                self.list_url,
                ecosystem=_ECOSYSTEM,
                source=LIST_SOURCE,
                headers=DEFAULT_HEADERS,
                log=logger,
            )
            raise_if_unavailable(response, ecosystem=_ECOSYSTEM, source=LIST_SOURCE)
            if not 200 <= response.status_code < 300:
                raise _invalid(
                    LIST_SOURCE,
                    f"answered HTTP {response.status_code}",
                    reason=f"status.{response.status_code}",
                )
            listed = await asyncio.to_thread(parse_package_list, response.content)
            self._list.set("list", listed)
            return listed

        return await self._list_fetches.get("list", start)

    async def _github_json(self, path: str, name: str) -> tuple[Any, httpx.Response]:
        """GET a code-host path: its decoded JSON and the response (for `Link`)."""
        url = path if path.startswith(("http://", "https://")) else f"{self._github}{path}"
        response = await send(
            self._client,
            "GET",
            url,
            ecosystem=_ECOSYSTEM,
            source=CODE_HOST_SOURCE,
            headers=self._headers,
            log=logger,
        )
        status = response.status_code
        if status in NOT_FOUND_STATUSES:
            raise PackageNotFound(_ECOSYSTEM, name)
        if status in (403, 429) and response.headers.get("x-ratelimit-remaining") == "0":
            raise RegistryUnavailable(
                _ECOSYSTEM,
                f"{CODE_HOST_SOURCE} rate limit reached (set PKGINTEL_GITHUB_TOKEN for more)",
                reason="rate_limited",
                source=CODE_HOST_SOURCE,
                retry_after=_reset_in(response.headers.get("x-ratelimit-reset")),
            )
        raise_if_unavailable(response, ecosystem=_ECOSYSTEM, source=CODE_HOST_SOURCE)
        if not 200 <= status < 300:
            raise _invalid(CODE_HOST_SOURCE, f"answered HTTP {status}", reason=f"status.{status}")
        try:
            return orjson.loads(response.content), response
        except orjson.JSONDecodeError as exc:
            raise _invalid(CODE_HOST_SOURCE, "sent a body that is not JSON") from exc

    async def _tags(self, repo: str, name: str) -> list[Any]:
        url = f"{self._github}/repos/{repo}/tags?per_page=100"
        tags: list[Any] = []
        for _ in range(MAX_TAG_PAGES):
            page, response = await self._github_json(url, name)
            if not isinstance(page, list):
                raise _invalid(CODE_HOST_SOURCE, "sent tags that are not a JSON array")
            tags.extend(page)
            following = response.links.get("next", {}).get("url")
            if not following or not page:
                break
            url = following
        return tags

    async def _releases(self, repo: str, name: str) -> list[Any] | None:
        body, _ = await self._github_json(f"/repos/{repo}/releases?per_page=100", name)
        return body if isinstance(body, list) else None

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package` and the module's failure table."""
        key = normalise_name(_ECOSYSTEM, name)
        listed_as: str | None = None
        list_status = SourceStatus(LIST_SOURCE, "registry", SourceState.OK)
        try:
            listed = await self.package_list()
        except PackageNotFound:
            list_status = SourceStatus(
                LIST_SOURCE, "registry", SourceState.UNAVAILABLE, None, "no list"
            )
        except RegistryError as exc:
            list_status = SourceStatus(
                LIST_SOURCE, "registry", SourceState.UNAVAILABLE, None, exc.reason
            )
        else:
            if key not in listed:
                raise PackageNotFound(_ECOSYSTEM, name)
            listed_as = listed[key]
        m = _GITHUB_KEY.match(key)
        if m is None:
            if listed_as is None:
                raise PackageNotFound(_ECOSYSTEM, name)
            raise RegistryUnavailable(
                _ECOSYSTEM,
                f"{listed_as} is not hosted on GitHub, the one code host read here",
                reason="code_host.unsupported",
                source=LIST_SOURCE,
            )
        # The key is lower case; ask the code host in the spelling the list (or the caller) uses.
        spelling, wanted = listed_as or name, f"{m[1]}/{m[2]}"
        at = spelling.lower().rfind(wanted)
        owner, _, project = (spelling[at : at + len(wanted)] if at >= 0 else wanted).partition("/")
        repo = f"{quote(owner, safe='')}/{quote(project, safe='')}"
        repo_result, tags_result, (releases, releases_status) = await asyncio.gather(
            self._github_json(f"/repos/{repo}", name),
            self._tags(repo, name),
            optional_source(
                lambda: self._releases(repo, name),
                source=f"{CODE_HOST_SOURCE}/releases",
                kind="registry",
            ),
            return_exceptions=True,
        )
        for failure in (repo_result, tags_result):
            if isinstance(failure, PackageNotFound) and listed_as is not None:
                raise RegistryUnavailable(
                    _ECOSYSTEM,
                    f"{CODE_HOST_SOURCE} has no repository data for {listed_as}, which the Swift "
                    "Package Index lists",
                    reason="code_host.not_found",
                    source=CODE_HOST_SOURCE,
                ) from None
        for failure in (repo_result, tags_result):
            if isinstance(failure, BaseException):
                raise failure
        assert not isinstance(repo_result, BaseException)
        assert not isinstance(tags_result, BaseException)
        repo_body, _ = repo_result
        tags = tags_result
        if not isinstance(repo_body, Mapping):
            raise _invalid(CODE_HOST_SOURCE, "sent a repository that is not a JSON object")
        return parse_repository(
            repo_body,
            tags,
            releases,
            listed_as=listed_as,
            version=version,
            sources=(list_status, releases_status),
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: nobody counts downloads of git repositories."""
        return None


def parse_repository(
    repo: Mapping[str, Any],
    tags: list[Any],
    releases: list[Any] | None,
    *,
    listed_as: str | None = None,
    version: str | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    `PackageInfo` from a GitHub repository document, its tags and (optionally) its releases.

    Raises `RegistryResponseInvalid` when the tags are not objects with a `name` or the repository
    has no SemVer tag (SwiftPM could only depend on a branch or revision), `VersionNotFound` when
    `version` is not tagged.
    """
    html_url = as_text(repo.get("html_url"))
    full_name = as_text(repo.get("full_name"))
    if not html_url and not full_name:
        raise _invalid(CODE_HOST_SOURCE, "sent a repository without html_url or full_name")
    repository_url = normalise_repository_url(html_url or f"https://github.com/{full_name}")
    versions: dict[str, bool] = {}
    ignored = 0
    for tag in tags:
        tag_name = as_text(tag.get("name")) if isinstance(tag, Mapping) else None
        if tag_name is None:
            raise _invalid(CODE_HOST_SOURCE, "sent a tag without a name")
        v = tag_version(tag_name)
        if v is None:
            ignored += 1
        else:
            versions.setdefault(v, False)
    dates: dict[str, Any] = {}
    for rel in releases or ():
        if not isinstance(rel, Mapping) or rel.get("draft") is True:
            continue
        v = tag_version(as_text(rel.get("tag_name")) or "")
        if v is None or v not in versions:
            continue
        dates.setdefault(v, as_datetime(rel.get("published_at") or rel.get("created_at")))
        if rel.get("prerelease") is True:
            versions[v] = True
    display = listed_as or repository_url or f"https://github.com/{full_name}"
    if not versions:
        raise _invalid(
            CODE_HOST_SOURCE,
            f"{display} has no SemVer tag; SwiftPM can only depend on a branch or a revision",
            reason="no_versions",
        )
    releases_out = tuple(
        sorted(
            (
                Release(
                    v,
                    published_at=dates.get(v),
                    prerelease=flag or is_prerelease(_ECOSYSTEM, v),
                )
                for v, flag in versions.items()
            ),
            key=lambda r: sort_key(_ECOSYSTEM, r.version),
        )
    )
    stable = [r.version for r in releases_out if not r.prerelease]
    latest = newest_first(_ECOSYSTEM, stable or [r.version for r in releases_out])[0]
    target = latest
    if version is not None:
        match = next(
            (
                r.version
                for r in releases_out
                if versions_equal(_ECOSYSTEM, r.version, version.strip().lstrip("vV"))
            ),
            None,
        )
        if match is None:
            available = newest_first(_ECOSYSTEM, [r.version for r in releases_out])
            raise VersionNotFound(
                _ECOSYSTEM, display, version.strip(), available=available[:AVAILABLE_IN_ERRORS]
            )
        target = match
    extra: dict[str, str] = {
        "downloads_unavailable": NO_DOWNLOADS,
        "dependencies_unavailable": NO_DEPENDENCIES,
    }
    if ignored:
        extra["tags_not_semver"] = str(ignored)
    if repo.get("archived") is True:
        extra["archived"] = "true"
    if isinstance(repo.get("stargazers_count"), int):
        extra["stars"] = str(repo["stargazers_count"])
    owner = repo.get("owner")
    maintainers: tuple[Maintainer, ...] = ()
    if isinstance(owner, Mapping) and as_text(owner.get("login")):
        role = "organization" if owner.get("type") == "Organization" else "owner"
        maintainers = (Maintainer(str(owner["login"]).strip(), None, role),)
    licence = repo.get("license")
    spdx = as_text(licence.get("spdx_id")) if isinstance(licence, Mapping) else None
    topics = repo.get("topics")
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=display,
        latest_version=latest,
        description=as_text(repo.get("description")) or "",
        license=None if spdx in (None, "NOASSERTION") else spdx,
        homepage=as_text(repo.get("homepage")),
        repository=repository_url,
        releases=releases_out,
        maintainers=maintainers,
        dependencies=(),
        dependencies_version=target,
        keywords=tuple(t for t in topics if isinstance(t, str)) if isinstance(topics, list) else (),
        extra=extra,
        sources=sources,
    )


def _reset_in(value: str | None) -> int | None:
    """Seconds until `x-ratelimit-reset` (epoch seconds), at least 1; None when unreadable."""
    try:
        return max(1, int(value or "") - int(time.time()))
    except ValueError:
        return None


def _invalid(source: str, what: str, *, reason: str = "invalid_json") -> RegistryResponseInvalid:
    return RegistryResponseInvalid(_ECOSYSTEM, f"{source} {what}", reason=reason, source=source)
