"""
RubyGems adapter: gem metadata, versions and owners from the rubygems.org API.

API: https://guides.rubygems.org/rubygems-org-api/ — no auth for reads; rate limited per IP.

| request (all concurrent) | gives |
|---|---|
| `GET /api/v1/gems/{gem}.json` | latest version, summary, licences, links, runtime dependencies of the latest, total downloads and the latest version's downloads |
| `GET /api/v1/versions/{gem}.json` | every indexed version × platform with `created_at`, `prerelease`, licences, downloads |
| `GET /api/v1/gems/{gem}/owners.json` | accounts that may push (404/failure → the gemspec `authors` stand in) |
| `GET /api/v2/rubygems/{gem}/versions/{v}.json` | only when a version is asked for: its dependencies |

Yanked versions: rubygems.org leaves yanked versions out of every per-gem API — `api/v1/versions`
(maintainers' answer in https://github.com/rubygems/rubygems.org/issues/2552) and the compact index
`info/{gem}` alike (built from `indexed = true` versions, `app/models/gem_info.rb`); only the
global `/versions` file marks them (`-1.2.3`), and that file is tens of MB. So this adapter never
reports a version as yanked; a requested version that is yanked (or never existed) is
`VersionNotFound`, and the list we serve holds installable versions only.

Downloads: rubygems.org gives an all-time total and a per-version total, no weekly figure, so
`downloads_source` is None (the weekly figure is null); `extra["downloads"]` is the all-time total
with `downloads_window: "total"`, and `extra["downloads.version"]` the count of the version reported.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryError, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_count, as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import get_json, get_json_array
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://rubygems.org"
REGISTRY_SOURCE: Final = "rubygems.org"
AVAILABLE_IN_ERRORS: Final = 10
DOWNLOADS_WINDOW: Final = "total"
"""rubygems.org counts downloads since the gem was first pushed; no shorter window is published."""

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.RUBYGEMS


class RubyGemsAdapter:
    """`RegistryAdapter` for rubygems.org (or a mirror of its API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.RUBYGEMS
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    def _url(self, path: str) -> str:
        return f"{self._base_url}{path}"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`. Owners failing is not fatal (authors stand in)."""
        gem = quote(name.strip(), safe="")
        common: dict[str, Any] = {
            "ecosystem": self.ecosystem,
            "name": name,
            "source": self.registry_source,
        }
        gem_task = asyncio.ensure_future(
            get_json(self._client, self._url(f"/api/v1/gems/{gem}.json"), **common)
        )
        versions_task = asyncio.ensure_future(
            get_json_array(self._client, self._url(f"/api/v1/versions/{gem}.json"), **common)
        )
        owners_task = asyncio.ensure_future(
            get_json_array(
                self._client,
                self._url(f"/api/v1/gems/{gem}/owners.json"),
                not_found="none",
                **common,
            )
        )
        version_task = (
            asyncio.ensure_future(
                get_json(
                    self._client,
                    self._url(f"/api/v2/rubygems/{gem}/versions/{quote(version, safe='')}.json"),
                    not_found="none",
                    **common,
                )
            )
            if version is not None
            else None
        )
        tasks = [t for t in (gem_task, versions_task, owners_task, version_task) if t is not None]
        try:
            gem_body = await gem_task
            versions_body = await versions_task
        except BaseException:
            for task in tasks:
                abandon(task)
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        owners: list[Any] | None
        try:
            owners = await owners_task
        except RegistryError as exc:
            logger.info("rubygems %s: owners unavailable (%s); using authors", name, exc.reason)
            owners = None
        version_body: Mapping[str, Any] | None = None
        if version_task is not None:
            try:
                version_body = await version_task
            except RegistryError as exc:
                logger.info("rubygems %s@%s: version document unavailable (%s)", name, version, exc)
        return parse_gem(
            gem_body, versions_body, owners=owners, version=version, version_body=version_body
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """rubygems.org publishes no weekly figure: always None (totals are in `extra`)."""
        return None


def parse_gem(
    gem: Mapping[str, Any],
    versions: Sequence[Any],
    *,
    owners: Sequence[Any] | None = None,
    version: str | None = None,
    version_body: Mapping[str, Any] | None = None,
) -> PackageInfo:
    """
    Turn `api/v1/gems/{gem}.json` + `api/v1/versions/{gem}.json` (+ owners, + the requested
    version's `api/v2` document) into `PackageInfo`.

    Platform builds of one version (`1.13.6`, `1.13.6-x86_64-linux`) are one release, published
    at its earliest build. Dependencies are the runtime ones of `version` (latest when None); when
    the requested version's document is missing or is about another gem they are left empty and
    `extra["dependencies_unavailable"]` says why. Raises `RegistryResponseInvalid` when the gem
    document has no name or version, and `VersionNotFound` when `version` is not listed.
    """
    name = as_text(gem.get("name"))
    latest = as_text(gem.get("version"))
    if not name or not latest:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "rubygems gem document has no name or version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    releases = _releases(name, versions)
    if not any(rel.version == latest for rel in releases):
        # The gem document and the version list come from different caches; keep the latest.
        releases = tuple(
            sorted(
                (*releases, Release(latest, as_datetime(gem.get("version_created_at")))),
                key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
            )
        )
    target = latest if version is None else version.strip()
    extra: dict[str, str] = {}
    if target not in {rel.version for rel in releases}:
        available = newest_first(_ECOSYSTEM, [rel.version for rel in releases])
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])

    deps_doc: Mapping[str, Any] | None = gem if target == latest else None
    if target != latest:
        if (
            version_body is not None
            and as_text(version_body.get("name")) == name
            and as_text(version_body.get("number") or version_body.get("version")) == target
        ):
            deps_doc = version_body
        if deps_doc is None:
            why = (
                "rubygems.org answered with a document for another gem or version"
                if version_body is not None
                else "rubygems.org has no version document for it"
            )
            logger.info("rubygems %s@%s: dependencies unavailable: %s", name, target, why)
            extra["dependencies_unavailable"] = why

    total = as_count(gem.get("downloads"))
    if total is not None:
        extra["downloads"] = str(total)
        extra["downloads_window"] = DOWNLOADS_WINDOW
        extra["downloads.total"] = str(total)
    version_downloads = (
        as_count(gem.get("version_downloads"))
        if target == latest
        else _version_downloads(versions, target)
    )
    if version_downloads is not None:
        extra["downloads.version"] = str(version_downloads)
    # The asked version's own required_ruby_version (the version list states it per version).
    ruby = (as_text(gem.get("ruby_version")) if target == latest else None) or _ruby_version_of(
        versions, target
    )
    if ruby:
        extra["requires_ruby"] = ruby

    metadata = as_object(gem.get("metadata"))
    # The gem's own declaration that pushing it needs MFA (`rubygems_mfa_required`, a string).
    mfa = as_text(metadata.get("rubygems_mfa_required"))
    extra["mfa_required"] = "true" if mfa == "true" else "false"
    homepage = as_text(gem.get("homepage_uri")) or as_text(metadata.get("homepage_uri"))
    source_code = as_text(gem.get("source_code_uri")) or as_text(metadata.get("source_code_uri"))
    repository = (normalise_repository_url(source_code) if source_code else None) or (
        normalise_repository_url(homepage, forges_only=True) if homepage else None
    )
    maintainers = _owners(owners)
    if maintainers:
        extra["maintainers_source"] = "owners"
    else:
        maintainers = _authors(gem.get("authors"))
        if maintainers:
            extra["maintainers_source"] = "authors"
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(gem.get("info")) or "",
        license=_license(gem.get("licenses")),
        homepage=homepage,
        repository=repository,
        releases=releases,
        maintainers=maintainers,
        dependencies=_dependencies(deps_doc) if deps_doc is not None else (),
        dependencies_version=target,
        extra=extra,
    )


def _releases(name: str, versions: Sequence[Any]) -> tuple[Release, ...]:
    stamps: dict[str, list[str]] = {}
    flagged: dict[str, bool] = {}
    for item in versions:
        number = as_text(item.get("number")) if isinstance(item, Mapping) else None
        if number is None:
            logger.info("rubygems %s: skipped malformed version entry %r", name, item)
            continue
        created = item.get("created_at")
        stamps.setdefault(number, []).extend([created] if isinstance(created, str) else [])
        if isinstance(item.get("prerelease"), bool):
            flagged[number] = item["prerelease"]
    releases = [
        Release(
            version=number,
            published_at=_earliest(found),
            prerelease=flagged[number] if number in flagged else is_prerelease(_ECOSYSTEM, number),
        )
        for number, found in stamps.items()
    ]
    releases.sort(key=lambda rel: sort_key(_ECOSYSTEM, rel.version))
    return tuple(releases)


def _earliest(stamps: list[str]) -> datetime | None:
    """The earliest of a version's platform builds. rubygems.org writes one fixed-width UTC form
    (`2022-05-08T14:34:51.113Z`), which sorts as text; any other mix is parsed first."""
    if not stamps:
        return None
    if len({len(s) for s in stamps}) == 1 and all(s.endswith("Z") for s in stamps):
        return as_datetime(min(stamps))
    parsed = [when for when in map(as_datetime, stamps) if when is not None]
    return min(parsed) if parsed else None


def _version_downloads(versions: Sequence[Any], target: str) -> int | None:
    counts = [
        as_count(item.get("downloads_count"))
        for item in versions
        if isinstance(item, Mapping) and as_text(item.get("number")) == target
    ]
    known = [c for c in counts if c is not None]
    return sum(known) if known else None


def _ruby_version_of(versions: Sequence[Any], version: str) -> str | None:
    """`ruby_version` of the plain-ruby build of `version` in the version list, or None."""
    for item in versions:
        if (
            isinstance(item, Mapping)
            and as_text(item.get("number")) == version
            and item.get("platform") in (None, "ruby")
        ):
            return as_text(item.get("ruby_version"))
    return None


def _dependencies(doc: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """Runtime dependencies (`dependencies.runtime`); development ones are not installed."""
    table = doc.get("dependencies")
    runtime = table.get("runtime") if isinstance(table, Mapping) else None
    if not isinstance(runtime, list):
        return ()
    deps: list[Dependency] = []
    for item in runtime:
        if isinstance(item, Mapping) and as_text(item.get("name")):
            deps.append(
                Dependency(
                    name=str(item["name"]).strip(),
                    requirement=as_text(item.get("requirements")) or "",
                    kind="runtime",
                )
            )
    return tuple(deps)


def _owners(owners: Sequence[Any] | None) -> tuple[Maintainer, ...]:
    if not owners:
        return ()
    found: dict[str, Maintainer] = {}
    for owner in owners:
        if not isinstance(owner, Mapping):
            continue
        handle = as_text(owner.get("handle")) or as_text(owner.get("email"))
        if handle:
            found.setdefault(
                handle.lower(), Maintainer(handle, as_text(owner.get("email")), role="owner")
            )
    return tuple(found.values())


def _authors(value: Any) -> tuple[Maintainer, ...]:
    """The gemspec `authors` string (comma-separated), as declared authors."""
    if not isinstance(value, str):
        return ()
    found: dict[str, Maintainer] = {}
    for part in value.split(","):
        person = part.strip()
        if person:
            found.setdefault(person.lower(), Maintainer(person, role="author"))
    return tuple(found.values())


def _license(value: Any) -> str | None:
    """The gemspec `licenses` list; several entries are alternatives (Ruby's own `Ruby OR BSD-2-Clause`)."""
    if isinstance(value, str):
        return value.strip() or None
    if not isinstance(value, list):
        return None
    names = [item.strip() for item in value if isinstance(item, str) and item.strip()]
    return " OR ".join(dict.fromkeys(names)) or None
