"""
Hex adapter: package metadata from the hex.pm HTTP API.

API: https://github.com/hexpm/specifications/blob/main/apiary.apib (no auth for public packages).

| request | gives |
|---|---|
| `GET /api/packages/{name}` | releases (version, `inserted_at` on current API versions), `retirements` by version, `owners`, `meta` (description, licences, links), `downloads` (`all`, `recent` = 90 days, `week`, `day`), `latest_stable_version` |
| `GET /api/packages/{name}/releases/{version}` | that release's `requirements` (dependencies), `inserted_at`, `retirement` |

The release request needs a version: with one asked for, both requests run concurrently; without,
the release of the latest version can only be asked for once the package document names it (two
sequential requests, the one dependent fetch in this adapter). A failing release request leaves
dependencies empty with `extra["dependencies_unavailable"]`; the package is still reported.

Retired releases (https://hex.pm/docs/faq — `mix hex.retire`, reasons `other`, `invalid`,
`security`, `deprecated`, `renamed`) stay installable with a warning, like an npm deprecation:
each is `deprecated` with its reason and message, and the package is deprecated when its latest
release is retired. The weekly figure is `downloads.week`; `extra["downloads"]` is `recent` (the
last 90 days, `downloads_window: "recent"`, the API's own name), and all four counts are kept as
`extra["downloads.<all|recent|week|day>"]`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_count, as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://hex.pm"
REGISTRY_SOURCE: Final = "hex.pm"
DOWNLOADS_SOURCE: Final = "hex.pm/downloads"
AVAILABLE_IN_ERRORS: Final = 10
DOWNLOAD_WINDOWS: Final = ("all", "recent", "week", "day")

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.HEX


class HexAdapter:
    """`RegistryAdapter` for hex.pm (or a mirror of its API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.HEX
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._packages = SharedFetches[JSONObject]()

    def _url(self, name: str, tail: str = "") -> str:
        return f"{self._base_url}/api/packages/{quote(name.strip(), safe='')}{tail}"

    def _package(self, name: str) -> asyncio.Future[JSONObject]:
        async def start() -> JSONObject:
            return await get_json(
                self._client,
                self._url(name),
                ecosystem=self.ecosystem,
                name=name,
                source=self.registry_source,
            )

        return asyncio.ensure_future(self._packages.get(name.strip(), start))

    async def _release(self, name: str, version: str) -> JSONObject | None:
        return await get_json(
            self._client,
            self._url(name, f"/releases/{quote(version.strip(), safe='')}"),
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
            not_found="none",
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        package_task = self._package(name)
        release_task = (
            asyncio.ensure_future(self._release(name, version)) if version is not None else None
        )
        try:
            body = await package_task
        except BaseException:
            if release_task is not None:
                abandon(release_task)
            raise
        if release_task is None:
            target = latest_version(body)
            release_task = asyncio.ensure_future(self._release(name, target)) if target else None
        release: JSONObject | None = None
        release_error: str | None = None
        if release_task is not None:
            try:
                release = await release_task
            except RegistryError as exc:
                logger.info("hex %s: release document unavailable (%s)", name, exc.reason)
                release_error = f"hex.pm release document unavailable ({exc.reason})"
        return parse_package(body, release=release, version=version, release_error=release_error)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """`downloads.week` of the package document (shared with `fetch_package`); None when the
        document has no weekly figure or hex.pm does not know the package."""
        try:
            body = await self._package(name)
        except PackageNotFound:
            return None
        downloads = body.get("downloads")
        return as_count(downloads.get("week")) if isinstance(downloads, Mapping) else None


def latest_version(body: Mapping[str, Any]) -> str | None:
    """`latest_stable_version`, else `latest_version`, else the highest non-pre-release listed."""
    for key in ("latest_stable_version", "latest_version"):
        value = body.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    versions = [
        str(r["version"]).strip()
        for r in body.get("releases") or ()
        if isinstance(r, Mapping) and isinstance(r.get("version"), str)
    ]
    stable = [v for v in versions if not is_prerelease(_ECOSYSTEM, v)]
    ordered = newest_first(_ECOSYSTEM, stable or versions)
    return ordered[0] if ordered else None


def parse_package(
    body: Mapping[str, Any],
    *,
    release: Mapping[str, Any] | None = None,
    version: str | None = None,
    release_error: str | None = None,
) -> PackageInfo:
    """
    Turn `GET /api/packages/{name}` (+ the target release document) into `PackageInfo`.

    Raises `RegistryResponseInvalid` when the body has no name or no releases list,
    `VersionNotFound` when `version` is not released.
    """
    name = as_text(body.get("name"))
    raw = body.get("releases")
    if not name or not isinstance(raw, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "hex.pm package body has no name or releases",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    retirements = as_object(body.get("retirements"))
    dates: dict[str, datetime | None] = {}
    for item in raw:
        if isinstance(item, Mapping) and as_text(item.get("version")):
            dates[str(item["version"]).strip()] = as_datetime(item.get("inserted_at"))
    if not dates:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"hex.pm lists no releases of {name!r}",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    latest = latest_version(body)
    if latest not in dates:
        latest = newest_first(_ECOSYSTEM, list(dates))[0]
    target = latest if version is None else version.strip()
    if target not in dates:
        available = newest_first(_ECOSYSTEM, list(dates))
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])

    release_ok = release is not None and as_text(release.get("version")) == target
    if release_ok and release is not None and dates.get(target) is None:
        dates[target] = as_datetime(release.get("inserted_at"))
    releases = tuple(
        sorted(
            (
                Release(
                    version=v,
                    published_at=when,
                    prerelease=is_prerelease(_ECOSYSTEM, v),
                    deprecated=_retirement(retirements.get(v)),
                )
                for v, when in dates.items()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    extra: dict[str, str] = {}
    deps: tuple[Dependency, ...] = ()
    if release_ok and release is not None:
        deps = _dependencies(release.get("requirements"))
        meta = as_object(release.get("meta"))
        if isinstance(meta.get("elixir"), str):
            extra["requires_elixir"] = meta["elixir"].strip()
    else:
        extra["dependencies_unavailable"] = release_error or (
            "hex.pm has no release document for this version"
            if release is None
            else "hex.pm answered with a document for another release"
        )
    downloads = as_object(body.get("downloads"))
    for window in DOWNLOAD_WINDOWS:
        count = as_count(downloads.get(window))
        if count is not None:
            extra[f"downloads.{window}"] = str(count)
    for window in ("recent", "all"):
        if f"downloads.{window}" in extra:
            extra["downloads"] = extra[f"downloads.{window}"]
            extra["downloads_window"] = window
            break

    meta = as_object(body.get("meta"))
    links = as_object(meta.get("links"))
    repository = None
    homepage = None
    for label, url in links.items():
        if not isinstance(url, str):
            continue
        repo = normalise_repository_url(url, forges_only=True)
        if repo and repository is None:
            repository = repo
        elif homepage is None and str(label).lower() in ("homepage", "website", "home", "site"):
            homepage = url.strip()
    latest_retired = _retirement(retirements.get(latest))
    maintainers = _owners(body.get("owners"))
    if maintainers:
        extra["maintainers_source"] = "owners"
    licenses = [v.strip() for v in meta.get("licenses") or () if isinstance(v, str) and v.strip()]
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(meta.get("description")) or "",
        license=" OR ".join(dict.fromkeys(licenses)) or None,
        homepage=homepage or as_text(body.get("html_url")),
        repository=repository,
        releases=releases,
        maintainers=maintainers,
        dependencies=deps,
        dependencies_version=target,
        deprecated=latest_retired is not None,
        deprecated_message=latest_retired,
        extra=extra,
    )


def _retirement(value: Any) -> str | None:
    """`{"reason": "security", "message": "..."}` → `retired (security): ...`."""
    if not isinstance(value, Mapping):
        return None
    reason = as_text(value.get("reason")) or "other"
    message = as_text(value.get("message"))
    return f"retired ({reason})" + (f": {message}" if message else "")


def _dependencies(value: Any) -> tuple[Dependency, ...]:
    """`requirements`: `{name: {"requirement": "~> 1.0", "optional": bool, "app": ...}}`."""
    if not isinstance(value, Mapping):
        return ()
    deps: list[Dependency] = []
    for dep, spec in value.items():
        if not isinstance(dep, str) or not isinstance(spec, Mapping):
            continue
        deps.append(
            Dependency(
                dep,
                as_text(spec.get("requirement")) or "",
                kind="optional" if spec.get("optional") is True else "runtime",
            )
        )
    return tuple(deps)


def _owners(value: Any) -> tuple[Maintainer, ...]:
    if not isinstance(value, list):
        return ()
    found: dict[str, Maintainer] = {}
    for owner in value:
        if isinstance(owner, Mapping) and as_text(owner.get("username")):
            login = str(owner["username"]).strip()
            found.setdefault(login.lower(), Maintainer(login, as_text(owner.get("email")), "owner"))
    return tuple(found.values())
