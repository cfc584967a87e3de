"""
Composer adapter: package metadata from Packagist's Composer v2 repository, downloads and
maintainers from the packagist.org API.

APIs (https://packagist.org/apidoc):

| request (concurrent) | host setting | gives |
|---|---|---|
| `GET /p2/{vendor}/{package}.json` | `PACKAGIST_REPO` (repo.packagist.org) | every tagged release, minified (`"minified": "composer/2.0"`) |
| `GET /p2/{vendor}/{package}~dev.json` | `PACKAGIST_REPO` | dev branches; fetched only when a `dev-…`/`…-dev` version is asked for |
| `GET /packages/{vendor}/{package}.json` | `PACKAGIST` (packagist.org) | downloads (`total`, `monthly`, `daily`), maintainers, `abandoned` |

The minified format lists versions newest first; each entry holds only the keys that differ from
the entry before it, and `"__unset"` removes a key (composer's `MetadataMinifier::expand`).
Composer names are lower case (`vendor/name`); we send them lower-cased.

Abandoned packages (`"abandoned": true` or the replacement's name) are reported as deprecated,
with the replacement in the message and `extra["deprecated_successor"]`. Packagist gives no weekly
downloads, so the weekly figure is null; `extra["downloads"]` is its `monthly` figure
(`downloads_window: "monthly"`), with `downloads.total` and `downloads.daily` beside it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final
from urllib.parse import quote, unquote

import httpx

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import composer_normalize, is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_REPO_URL: Final = "https://repo.packagist.org"
DEFAULT_API_URL: Final = "https://packagist.org"
REGISTRY_SOURCE: Final = "repo.packagist.org"
DOWNLOADS_SOURCE: Final = "packagist.org"
AVAILABLE_IN_ERRORS: Final = 10
UNSET: Final = "__unset"
DOWNLOADS_WINDOW: Final = "monthly"
"""packagist.org's `downloads.monthly` (the last 30 days); `total` and `daily` stay in `extra`."""

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.COMPOSER


def is_dev_version(version: str) -> bool:
    """A branch version (`dev-main`, `2.x-dev`), served from the `~dev` file."""
    v = version.strip().lower()
    return v.startswith("dev-") or v.endswith("-dev") or v.endswith(".x-dev")


class ComposerAdapter:
    """`RegistryAdapter` for Packagist (`base_url` = repo.packagist.org, `api_url` = packagist.org)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.COMPOSER
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_REPO_URL,
        downloads_url: str = DEFAULT_API_URL,
    ) -> None:
        self._client = client
        self._repo_url = base_url.rstrip("/")
        self._api_url = downloads_url.rstrip("/")
        self._stats = SharedFetches[JSONObject | None]()

    @staticmethod
    def _path(name: str) -> str:
        vendor, _, package = unquote(name).strip().lower().partition("/")
        return f"{quote(vendor, safe='')}/{quote(package, safe='')}"

    def _stats_doc(self, name: str) -> asyncio.Future[JSONObject | None]:
        async def start() -> JSONObject | None:
            return await get_json(
                self._client,
                f"{self._api_url}/packages/{self._path(name)}.json",
                ecosystem=self.ecosystem,
                name=name,
                source=DOWNLOADS_SOURCE,
                not_found="none",
            )

        return asyncio.ensure_future(self._stats.get(self._path(name), start))

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`; packagist.org failing only drops downloads/maintainers."""
        name = unquote(name).strip()
        if name.count("/") != 1:
            raise PackageNotFound(self.ecosystem, name)
        common: dict[str, Any] = {
            "ecosystem": self.ecosystem,
            "name": name,
            "source": self.registry_source,
        }
        base = f"{self._repo_url}/p2/{self._path(name)}"
        tagged_task = asyncio.ensure_future(get_json(self._client, f"{base}.json", **common))
        dev_task = (
            asyncio.ensure_future(
                get_json(self._client, f"{base}~dev.json", not_found="none", **common)
            )
            if version is not None and is_dev_version(version)
            else None
        )
        stats_task = self._stats_doc(name)
        try:
            tagged = await tagged_task
            dev = await dev_task if dev_task is not None else None
        except BaseException:
            abandon(dev_task, stats_task)
            raise
        stats: JSONObject | None
        try:
            stats = await stats_task
        except RegistryError as exc:
            logger.info("composer %s: packagist.org unavailable (%s)", name, exc.reason)
            stats = None
        return parse_p2(tagged, dev=dev, stats=stats, name=name, version=version)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """
        Packagist gives daily, monthly and total counts, never weekly: None. The packagist.org
        request is still made here (shared with `fetch_package`), so a failing API marks the
        downloads source unavailable.
        """
        name = unquote(name).strip()
        if name.count("/") != 1:
            return None
        await self._stats_doc(name)
        return None


def expand_minified(entries: Sequence[Any]) -> list[dict[str, Any]]:
    """Expand a `composer/2.0` minified version list: each entry inherits the previous one's keys."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        current = dict(current)
        for key, value in entry.items():
            if value == UNSET:
                current.pop(key, None)
            else:
                current[key] = value
        out.append(current)
    return out


def _versions_of(body: Mapping[str, Any] | None, name: str) -> list[dict[str, Any]]:
    if body is None:
        return []
    packages = body.get("packages")
    if not isinstance(packages, Mapping):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "packagist p2 body has no `packages` object",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    entries = next(
        (v for k, v in packages.items() if isinstance(k, str) and k.lower() == name.lower()), None
    )
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"packagist p2 entry for {name!r} is not a list",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    if body.get("minified") == "composer/2.0":
        return expand_minified(entries)
    return [dict(e) for e in entries if isinstance(e, Mapping)]


def parse_p2(
    tagged: Mapping[str, Any],
    *,
    name: str,
    dev: Mapping[str, Any] | None = None,
    stats: Mapping[str, Any] | None = None,
    version: str | None = None,
) -> PackageInfo:
    """
    Turn the p2 document(s) (+ the packagist.org package document) into `PackageInfo`.

    Releases are the tagged versions (dev branches only resolve a requested `dev-…` version).
    The latest is the highest stable release by Composer's ordering (the highest of any kind
    when none is stable). Dependencies are the `require` entries: packages (`vendor/name`) of kind
    `runtime`, platform requirements (`php`, `ext-*`, `lib-*`, ...) of kind `platform`; the PHP
    constraint also goes to `extra["requires_php"]`. Raises
    `PackageNotFound` when the document lists no version of `name`, `VersionNotFound` for a
    version not published, `RegistryResponseInvalid` for a body of the wrong shape.
    """
    if stats is not None and isinstance(stats.get("package"), Mapping):
        stats = stats["package"]  # `packages/{v}/{p}.json` wraps the document in `package`
    entries = [e for e in _versions_of(tagged, name) if as_text(e.get("version"))]
    if not entries:
        raise PackageNotFound(_ECOSYSTEM, name)
    display = as_text(entries[0].get("name")) or name.lower()
    by_version = {str(e["version"]).strip(): e for e in entries}
    releases = tuple(
        sorted(
            (
                Release(
                    version=v,
                    published_at=as_datetime(e.get("time")),
                    prerelease=is_prerelease(_ECOSYSTEM, v),
                    deprecated=_abandoned_message(e.get("abandoned")),
                )
                for v, e in by_version.items()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    stable = [rel for rel in releases if not rel.prerelease and composer_normalize(rel.version)]
    latest = (stable or list(releases))[-1].version

    target = latest if version is None else _resolve(version, by_version, _versions_of(dev, name))
    if target is None:
        available = newest_first(_ECOSYSTEM, [rel.version for rel in releases])
        raise VersionNotFound(
            _ECOSYSTEM, display, str(version), available=available[:AVAILABLE_IN_ERRORS]
        )
    manifest = by_version.get(target) or next(
        e for e in _versions_of(dev, name) if str(e.get("version")).strip() == target
    )
    head = by_version[latest]
    extra: dict[str, str] = {}
    require = as_object(manifest.get("require"))
    php = require.get("php")
    if isinstance(php, str) and php.strip():
        extra["requires_php"] = php.strip()

    abandoned = (stats or {}).get("abandoned", head.get("abandoned"))
    message = _abandoned_message(abandoned)
    if isinstance(abandoned, str) and abandoned.strip():
        extra["deprecated_successor"] = abandoned.strip()

    maintainers = _maintainers(stats)
    if maintainers:
        extra["maintainers_source"] = "packagist.org maintainers"
    else:
        maintainers = _authors(head.get("authors"))
        if maintainers:
            extra["maintainers_source"] = "composer.json authors"
    downloads = (stats or {}).get("downloads")
    if isinstance(downloads, Mapping):
        for window in ("total", "monthly", "daily"):
            count = downloads.get(window)
            if isinstance(count, int) and not isinstance(count, bool) and count >= 0:
                extra[f"downloads.{window}"] = str(count)
        if "downloads.monthly" in extra:
            extra["downloads"] = extra["downloads.monthly"]
            extra["downloads_window"] = DOWNLOADS_WINDOW

    source = as_object(head.get("source"))
    repository = (as_text((stats or {}).get("repository")) if stats else None) or as_text(
        source.get("url")
    )
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=display,
        latest_version=latest,
        description=as_text(head.get("description"))
        or as_text((stats or {}).get("description"))
        or "",
        license=_license(head.get("license")),
        homepage=as_text(head.get("homepage")),
        repository=normalise_repository_url(repository) if repository else None,
        releases=releases,
        maintainers=maintainers,
        dependencies=_dependencies(require),
        dependencies_version=target,
        deprecated=message is not None,
        deprecated_message=message,
        keywords=tuple(
            k.strip() for k in head.get("keywords") or () if isinstance(k, str) and k.strip()
        ),
        extra=extra,
    )


def _resolve(
    version: str, tagged: Mapping[str, Mapping[str, Any]], dev: Sequence[Mapping[str, Any]]
) -> str | None:
    """The listed version string `version` denotes: exact, then by normalised form (`v1.0` = `1.0.0`)."""
    wanted = version.strip()
    if wanted in tagged:
        return wanted
    for entry in dev:
        if str(entry.get("version")).strip() == wanted:
            return wanted
    normal = composer_normalize(wanted)
    if normal is None:
        return None
    for listed, entry in tagged.items():
        if (as_text(entry.get("version_normalized")) or composer_normalize(listed)) == normal:
            return listed
    return None


def _abandoned_message(value: Any) -> str | None:
    if value is True:
        return "abandoned: the maintainers no longer support this package"
    if isinstance(value, str) and value.strip():
        return f"abandoned: the maintainers suggest {value.strip()} instead"
    return None


def _dependencies(require: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """`require` entries: packages (`vendor/name`) are `runtime`; platform requirements (`php`,
    `ext-*`, `lib-*`, `composer-plugin-api`: no vendor) are kind `platform`, since Composer checks
    them against the running PHP rather than installing them."""
    deps: list[Dependency] = []
    for dep, constraint in require.items():
        if isinstance(dep, str) and dep.strip() and isinstance(constraint, str):
            kind = "runtime" if "/" in dep else "platform"
            deps.append(Dependency(name=dep, requirement=constraint.strip(), kind=kind))
    return tuple(deps)


def _maintainers(stats: Mapping[str, Any] | None) -> tuple[Maintainer, ...]:
    people = (stats or {}).get("maintainers")
    if not isinstance(people, list):
        return ()
    found: dict[str, Maintainer] = {}
    for person in people:
        if isinstance(person, Mapping) and as_text(person.get("name")):
            login = str(person["name"]).strip()
            found.setdefault(login.lower(), Maintainer(login, role="maintainer"))
    return tuple(found.values())


def _authors(value: Any) -> tuple[Maintainer, ...]:
    if not isinstance(value, list):
        return ()
    found: dict[str, Maintainer] = {}
    for person in value:
        if isinstance(person, Mapping) and as_text(person.get("name")):
            who = str(person["name"]).strip()
            found.setdefault(who.lower(), Maintainer(who, as_text(person.get("email")), "author"))
    return tuple(found.values())


def _license(value: Any) -> str | None:
    """composer.json `license`: a string, or an array meaning a choice (https://getcomposer.org/doc/04-schema.md#license)."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list):
        names = [v.strip() for v in value if isinstance(v, str) and v.strip()]
        return " OR ".join(dict.fromkeys(names)) or None
    return None
