"""
NuGet adapter: the V3 registration resource, the flat-container nuspec and the search service.

API: https://learn.microsoft.com/nuget/api/registration-base-url-resource — the registration index
`/v3/registration5-gz-semver2/{id}/index.json` (the SemVer 2.0.0 hive, gzip-served; httpx decodes
it) holds pages of `catalogEntry` leaves, inline for small packages and behind each page's `@id`
for large ones (all pages are fetched concurrently). A leaf has `version`, `published`, `listed`,
`licenseExpression`, `projectUrl`, `dependencyGroups`, `deprecation` (reasons, message,
`alternatePackage`) and `vulnerabilities` (advisory URL and severity as nuget.org publishes them).
Unlisted versions stay installable when pinned but are hidden from search and resolution, so they
count as yanked. When the SemVer 2.0.0 hive has no entry the legacy `registration5-semver1` hive is
asked once more (mirrors that serve only the older hive); a miss there is `PackageNotFound`.

The nuspec (`/v3-flatcontainer/{id}/{version}/{id}.nuspec`,
https://learn.microsoft.com/nuget/api/package-base-address-resource) gives the `<repository>` URL
the catalog leaf usually lacks: the reported version's when the index inlines every leaf, else the
highest version's (the last page's `upper`), fetched alongside the pages. The search service (`/query?q=packageid:{id}`,
https://learn.microsoft.com/nuget/api/search-query-service-resource) gives `totalDownloads` (all
time, so `downloads_window: "total"`) and the owners. Ids are case-insensitive; URLs use the lower
case id. Both extra sources are optional: when they fail the report says so in `_meta.sources`.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems._xml import child_text, parse_xml
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import JSONObject, get_json, get_text
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://api.nuget.org"
DEFAULT_SEARCH_URL: Final = "https://azuresearch-usnc.nuget.org"
REGISTRY_SOURCE: Final = "api.nuget.org"
NUSPEC_SOURCE: Final = "api.nuget.org nuspec"
SEARCH_SOURCE: Final = "azuresearch-usnc.nuget.org"
HIVES: Final = ("registration5-gz-semver2", "registration5-semver1")
DOWNLOADS_WINDOW: Final = "total"
AVAILABLE_IN_ERRORS: Final = 10

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.NUGET
_NUGET_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$")
_LICENSES_NUGET = re.compile(r"^https?://licenses\.nuget\.org/(?P<expr>[^?#]+)$")
_UNLISTED_YEAR: Final = 1900
"""nuget.org sets `published` to 1900-01-01 on unlisted versions."""


class NuGetAdapter:
    """`RegistryAdapter` for nuget.org V3 (or a V3 mirror at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.NUGET
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        search_url: str = DEFAULT_SEARCH_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._search_url = search_url.rstrip("/")

    def _rebase(self, url: str) -> str:
        """Page `@id`s name api.nuget.org; a mirror is asked at its own base URL instead."""
        if url.startswith(DEFAULT_BASE_URL) and self._base_url != DEFAULT_BASE_URL:
            return self._base_url + url[len(DEFAULT_BASE_URL) :]
        return url

    async def _index(self, lower: str, name: str) -> JSONObject:
        for hive in HIVES[:-1]:
            found = await get_json(
                self._client,
                f"{self._base_url}/v3/{hive}/{quote(lower)}/index.json",
                ecosystem=_ECOSYSTEM,
                name=name,
                source=REGISTRY_SOURCE,
                not_found="none",
            )
            if found is not None:
                return found
        return await get_json(
            self._client,
            f"{self._base_url}/v3/{HIVES[-1]}/{quote(lower)}/index.json",
            ecosystem=_ECOSYSTEM,
            name=name,
            source=REGISTRY_SOURCE,
        )

    async def _page(self, url: str, name: str) -> JSONObject:
        """A registration page; only URLs under the configured registry are followed, so an index
        cannot send us to another host."""
        target = self._rebase(url)
        if not target.startswith(self._base_url + "/"):
            raise RegistryResponseInvalid(
                _ECOSYSTEM,
                f"registration page outside {self._base_url}: {url}",
                reason="invalid_shape",
                source=REGISTRY_SOURCE,
            )
        return await get_json(
            self._client, target, ecosystem=_ECOSYSTEM, name=name, source=REGISTRY_SOURCE
        )

    async def _nuspec(self, lower: str, name: str, version: str) -> tuple[str | None, SourceStatus]:
        return await optional_source(
            lambda: get_text(
                self._client,
                f"{self._base_url}/v3-flatcontainer/{quote(lower)}/{quote(version.lower())}/"
                f"{quote(lower)}.nuspec",
                ecosystem=_ECOSYSTEM,
                name=name,
                source=NUSPEC_SOURCE,
                not_found="none",
            ),
            source=NUSPEC_SOURCE,
            kind="repository",
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`. Round one: index and search; round two: pages not
        inlined in the index, with the highest version's nuspec beside them (the reported
        version's nuspec when the index inlines everything)."""
        name = name.strip()
        if not _NUGET_ID.match(name):
            raise PackageNotFound(_ECOSYSTEM, name)
        lower = name.lower()
        search_call = optional_source(
            lambda: get_json(
                self._client,
                f"{self._search_url}/query?q=packageid:{quote(lower)}",
                ecosystem=_ECOSYSTEM,
                name=name,
                source=SEARCH_SOURCE,
                not_found="none",
            ),
            source=SEARCH_SOURCE,
            kind="downloads",
        )
        search_task = asyncio.ensure_future(search_call)
        nuspec_task: asyncio.Future[tuple[str | None, SourceStatus]] | None = None
        try:
            index = await self._index(lower, name)
            pages = registration_pages(index)
            missing = [p["@id"] for p in pages if not isinstance(p.get("items"), list)]
            upper = pages[-1].get("upper") if missing else None
            if isinstance(upper, str) and upper:
                # Paged registration: read the repository from the highest version's nuspec while
                # the pages load, rather than one more round trip after them.
                nuspec_task = asyncio.ensure_future(self._nuspec(lower, name, upper))
            fetched = await asyncio.gather(*(self._page(url, name) for url in missing))
        except BaseException:
            abandon(search_task)
            if nuspec_task is not None:
                abandon(nuspec_task)
            raise
        by_id = dict(zip(missing, fetched, strict=True))
        leaves = [
            leaf
            for page in pages
            for leaf in _page_items(
                page if isinstance(page.get("items"), list) else by_id[page["@id"]]
            )
        ]
        catalog = catalog_entries(leaves)
        try:
            target = _target_version(name, catalog, version)
        except BaseException:
            abandon(search_task)
            if nuspec_task is not None:
                abandon(nuspec_task)
            raise
        if nuspec_task is None:
            nuspec_task = asyncio.ensure_future(self._nuspec(lower, name, target))
        (nuspec_text, nuspec_status), (search, search_status) = await asyncio.gather(
            nuspec_task, search_task
        )
        nuspec = None
        if nuspec_text is not None:
            try:
                nuspec = parse_nuspec(nuspec_text)
            except RegistryResponseInvalid as exc:
                nuspec_status = SourceStatus(
                    NUSPEC_SOURCE, "repository", SourceState.UNAVAILABLE, None, exc.reason
                )
        return parse_registration(
            catalog,
            version=target,
            nuspec=nuspec,
            search=search,
            sources=(search_status, nuspec_status),
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """nuget.org publishes all-time totals only: always None (the total is in `extra`)."""
        return None


def registration_pages(index: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pages of a registration index; raises `RegistryResponseInvalid` when there are none."""
    items = index.get("items")
    if not isinstance(items, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "registration index has no pages",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    pages = [
        p
        for p in items
        if isinstance(p, dict)
        and (isinstance(p.get("items"), list) or isinstance(p.get("@id"), str))
    ]
    if len(pages) != len(items):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "registration page without items or @id",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    return pages


def _page_items(page: Mapping[str, Any]) -> list[Any]:
    items = page.get("items")
    return items if isinstance(items, list) else []


def catalog_entries(leaves: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
    """`{version: catalogEntry}` from registration leaves (malformed leaves skipped)."""
    out: dict[str, Mapping[str, Any]] = {}
    for leaf in leaves:
        entry = leaf.get("catalogEntry") if isinstance(leaf, Mapping) else None
        if isinstance(entry, Mapping) and isinstance(entry.get("version"), str):
            out[entry["version"]] = entry
    return out


def _target_version(
    name: str, catalog: Mapping[str, Mapping[str, Any]], version: str | None
) -> str:
    if not catalog:
        raise PackageNotFound(_ECOSYSTEM, name)
    if version is None:
        return _latest(catalog)
    wanted = version.strip().lower()
    for v in catalog:
        if v.lower() == wanted:
            return v
    available = newest_first(_ECOSYSTEM, list(catalog))
    raise VersionNotFound(_ECOSYSTEM, name, version, available=available[:AVAILABLE_IN_ERRORS])


def _latest(catalog: Mapping[str, Mapping[str, Any]]) -> str:
    """Newest listed stable version, else newest listed, else newest (nuget.org's own choice)."""
    ordered = sorted(catalog, key=lambda v: sort_key(_ECOSYSTEM, v))
    listed = [v for v in ordered if catalog[v].get("listed") is not False]
    stable = [v for v in listed if not is_prerelease(_ECOSYSTEM, v)]
    return (stable or listed or ordered)[-1]


def parse_registration(
    catalog: Mapping[str, Mapping[str, Any]],
    *,
    version: str | None = None,
    nuspec: Mapping[str, str] | None = None,
    search: Mapping[str, Any] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    Turn the catalog entries of a registration (all pages) into `PackageInfo`.

    `version` selects the dependencies (latest when None); `nuspec` (from `parse_nuspec`) adds the
    repository, `search` (a `/query` body) total downloads and owners. Raises `PackageNotFound` for
    an empty registration and `VersionNotFound` for an unknown `version`.
    """
    if not catalog:
        raise PackageNotFound(_ECOSYSTEM, "")
    latest = _latest(catalog)
    any_entry = catalog[latest]
    name = str(any_entry.get("id") or "")
    if not name:
        raise RegistryResponseInvalid(
            _ECOSYSTEM, "catalog entry without id", reason="invalid_shape", source=REGISTRY_SOURCE
        )
    target = _target_version(name, catalog, version)
    entry = catalog[target]
    releases = tuple(
        sorted(
            (_release(v, e) for v, e in catalog.items()),
            key=lambda r: sort_key(_ECOSYSTEM, r.version),
        )
    )
    extra: dict[str, str] = {}
    deprecation = _deprecation(catalog[latest].get("deprecation"))
    successor = _successor(catalog[latest].get("deprecation"))
    if successor:
        extra["deprecated_successor"] = successor
    advisories = _advisories(catalog[latest].get("vulnerabilities"))
    if advisories:
        extra["registry_advisories"] = " ".join(advisories)
    hit = _search_hit(search, name)
    maintainers: tuple[Maintainer, ...] = ()
    if hit is not None:
        total = hit.get("totalDownloads")
        if isinstance(total, int) and not isinstance(total, bool) and total >= 0:
            extra["downloads"] = str(total)
            extra["downloads_window"] = DOWNLOADS_WINDOW
        owners = hit.get("owners")
        if isinstance(owners, list):
            maintainers = tuple(
                Maintainer(name=o.strip(), role="owner")
                for o in owners
                if isinstance(o, str) and o.strip()
            )
    if not maintainers:
        authors = as_text(entry.get("authors"))
        if authors:
            maintainers = tuple(
                Maintainer(name=a.strip(), role="author") for a in authors.split(",") if a.strip()
            )
    repository = None
    if nuspec is not None and nuspec.get("repository"):
        repository = normalise_repository_url(nuspec["repository"])
    project = as_text(entry.get("projectUrl"))
    if repository is None and project:
        repository = normalise_repository_url(project, forges_only=True)
    groups = _group_frameworks(entry.get("dependencyGroups"))
    if groups:
        extra["dependency_groups"] = ", ".join(groups)
    tags = entry.get("tags")
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(entry.get("description")) or as_text(entry.get("summary")) or "",
        license=_license(entry),
        homepage=project,
        repository=repository,
        releases=releases,
        maintainers=maintainers,
        dependencies=_dependencies(entry.get("dependencyGroups")),
        dependencies_version=target,
        deprecated=deprecation is not None,
        deprecated_message=deprecation,
        keywords=tuple(t for t in tags if isinstance(t, str) and t)
        if isinstance(tags, list)
        else (),
        extra=extra,
        sources=sources,
    )


def parse_nuspec(text: str) -> dict[str, str]:
    """`{"id", "version", "repository", "license", "projectUrl"}` (those present) from a nuspec."""
    root = parse_xml(text, ecosystem=_ECOSYSTEM, source=NUSPEC_SOURCE)
    meta = root.find("metadata")
    if root.tag != "package" or meta is None:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "nuspec without package/metadata",
            reason="invalid_shape",
            source=NUSPEC_SOURCE,
        )
    out: dict[str, str] = {}
    for key in ("id", "version", "projectUrl", "license"):
        value = child_text(meta, key)
        if value:
            out[key] = value
    repo = meta.find("repository")
    if repo is not None and repo.get("url"):
        out["repository"] = str(repo.get("url"))
    return out


def _release(version: str, entry: Mapping[str, Any]) -> Release:
    unlisted = entry.get("listed") is False
    published = as_datetime(entry.get("published"))
    if published is not None and published.year <= _UNLISTED_YEAR:
        published = None
    deprecation = _deprecation(entry.get("deprecation"))
    return Release(
        version=version,
        published_at=published,
        yanked=unlisted,
        yanked_reason="unlisted on nuget.org" if unlisted else None,
        prerelease=is_prerelease(_ECOSYSTEM, version),
        deprecated=deprecation or ("unlisted" if unlisted else None),
    )


def _deprecation(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    message = as_text(value.get("message"))
    reasons = [r for r in value.get("reasons") or [] if isinstance(r, str)]
    text = message or (f"Deprecated ({', '.join(reasons)})" if reasons else "Deprecated")
    successor = _successor(value)
    if successor and successor not in text:
        return f"{text.rstrip('.')}. Use {successor} instead."
    return text


def _successor(value: Any) -> str | None:
    if not isinstance(value, Mapping):
        return None
    alt = value.get("alternatePackage")
    return as_text(alt.get("id")) if isinstance(alt, Mapping) else None


def _advisories(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    return [
        str(v["advisoryUrl"])
        for v in value
        if isinstance(v, Mapping) and isinstance(v.get("advisoryUrl"), str)
    ]


def _license(entry: Mapping[str, Any]) -> str | None:
    expression = as_text(entry.get("licenseExpression"))
    if expression:
        return expression
    url = as_text(entry.get("licenseUrl"))
    if url and (m := _LICENSES_NUGET.match(url)):
        return m["expr"]
    return None


def _dependencies(groups: Any) -> tuple[Dependency, ...]:
    """Dependencies over all target frameworks, one per (id, range), frameworks as the marker."""
    if not isinstance(groups, list):
        return ()
    found: dict[tuple[str, str], list[str]] = {}
    for group in groups:
        if not isinstance(group, Mapping):
            continue
        framework = as_text(group.get("targetFramework")) or "any"
        for dep in group.get("dependencies") or []:
            if isinstance(dep, Mapping) and isinstance(dep.get("id"), str):
                key = (dep["id"], str(dep.get("range") or ""))
                frameworks = found.setdefault(key, [])
                if framework not in frameworks:
                    frameworks.append(framework)
    return tuple(
        Dependency(name=dep_id, requirement=range_, kind="runtime", marker=", ".join(fws))
        for (dep_id, range_), fws in found.items()
    )


def _group_frameworks(groups: Any) -> list[str]:
    """The target framework of every dependency group, empty groups included (`any` for the
    framework-agnostic one): an empty group means "no dependencies on that framework", which the
    dependency list alone cannot say."""
    if not isinstance(groups, list):
        return []
    found: list[str] = []
    for group in groups:
        if isinstance(group, Mapping):
            framework = as_text(group.get("targetFramework")) or "any"
            if framework not in found:
                found.append(framework)
    return found


def _search_hit(search: Mapping[str, Any] | None, name: str) -> Mapping[str, Any] | None:
    if search is None or not isinstance(search.get("data"), list):
        return None
    for hit in search["data"]:
        if isinstance(hit, Mapping) and str(hit.get("id", "")).lower() == name.lower():
            return hit
    return None


__all__ = ["NuGetAdapter", "parse_nuspec", "parse_registration", "registration_pages"]
