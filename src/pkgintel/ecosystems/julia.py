"""
Julia adapter: the General registry's TOML files, read from a raw-file host, plus JuliaHub's
package documents for what the registry does not hold (licence, description, owner, stars).

Registry format: https://pkgdocs.julialang.org/v1/registries/ (files of `JuliaRegistries/General`,
served by `raw.githubusercontent.com` or any mirror of the repository's files; no auth).

| request | gives |
|---|---|
| `GET {registry}/{L}/{Name}/Versions.toml` | every registered version (`git-tree-sha1`, `yanked = true`) — the authoritative answer |
| `GET {registry}/{L}/{Name}/Package.toml` | `name`, `uuid`, `repo` |
| `GET {registry}/{L}/{Name}/Deps.toml`, `Compat.toml` | dependencies (name → uuid) and their compat bounds, in sections keyed by version ranges |
| `GET {registry}/Registry.toml` | every package (uuid → name, path): consulted only when `Versions.toml` is missing, to tell "no such package" from "file not mirrored" |
| `GET {juliahub}/docs/General/{Name}/versions.json` | the versions JuliaHub documents (used when `Versions.toml` cannot be read) |
| `GET {juliahub}/docs/General/{Name}/{stable|version}/pkg.json` | `license`, `description`, `owner`, `url`, `stargazers_count`, direct `deps` with compat ranges |

`{L}/{Name}` is the registry's own path rule (the name's first letter upper-cased, then the name),
so every file request runs concurrently (a package whose folder predates the rule, such as
`homebrew` in `H/Homebrew`, is found through `Registry.toml` on the second try); names are case-sensitive and a trailing `.jl` is dropped
(`HTTP.jl` → `HTTP`). `Registry.toml` (about a megabyte) is parsed once and kept for an hour.

The registry records no publish dates and no download counts, so releases have no dates and
downloads are null with `extra["downloads_unavailable"]`. Yanked versions (`yanked = true`) stay
listed with `yanked=True`. The registry has no maintainer list: JuliaHub's `owner` (the
repository's owner, who can register versions) is the one maintainer shown, when recorded.
When `Versions.toml` cannot be read but `Registry.toml` lists the package, the versions JuliaHub
documents are used instead and `extra["versions_source"]` says so; the registry's own files are
then `unavailable` in `_meta.sources`. A package the registry marks deprecated (`Package.toml`
`[metadata.deprecated]` with `reason` and `alternative`, Pkg 1.11+) is deprecated here.
"""

from __future__ import annotations

import asyncio
import logging
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

import httpx

from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import get_json, get_json_array, get_text
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://raw.githubusercontent.com/JuliaRegistries/General/master"
DEFAULT_JULIAHUB_URL: Final = "https://juliahub.com"
REGISTRY_SOURCE: Final = "JuliaRegistries/General"
INDEX_SOURCE: Final = "JuliaRegistries/General Registry.toml"
JULIAHUB_SOURCE: Final = "juliahub.com"
JULIAHUB_VERSIONS_SOURCE: Final = "juliahub.com versions"
INDEX_TTL_S: Final = 3600.0
AVAILABLE_IN_ERRORS: Final = 10
NO_DOWNLOADS: Final = (
    "the General registry and JuliaHub's package documents give no download counts"
)
_FILES: Final = ("Versions.toml", "Package.toml", "Deps.toml", "Compat.toml")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BOUND = re.compile(r"^\d+(?:\.\d+){0,2}$")

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.JULIA


def package_name(name: str) -> str:
    """The registry name: blanks and a trailing `.jl` dropped (`HTTP.jl` → `HTTP`)."""
    return name.strip().removesuffix(".jl")


def registry_path(name: str) -> str:
    """`{L}/{Name}`: General's folder of a package (RegistryTools' rule)."""
    return f"{name[:1].upper()}/{name}"


@dataclass(frozen=True, slots=True)
class RegistryIndex:
    """`Registry.toml` read: name → (uuid, path)."""

    packages: Mapping[str, tuple[str, str]]


def parse_registry(text: str) -> RegistryIndex:
    """`Registry.toml` → `RegistryIndex`; raises `RegistryResponseInvalid` on a body that is not it."""
    data = _toml(text, INDEX_SOURCE)
    table = data.get("packages")
    if not isinstance(table, Mapping):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "Registry.toml has no [packages] table",
            reason="invalid_shape",
            source=INDEX_SOURCE,
        )
    found: dict[str, tuple[str, str]] = {}
    for uuid, entry in table.items():
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            path = entry.get("path")
            found[entry["name"]] = (str(uuid), path if isinstance(path, str) else "")
    return RegistryIndex(found)


class JuliaAdapter:
    """`RegistryAdapter` for the Julia General registry (files at `base_url`) and JuliaHub."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.JULIA
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        juliahub_url: str = DEFAULT_JULIAHUB_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._juliahub_url = juliahub_url.rstrip("/")
        self._index = MemoryLRU[str, RegistryIndex](1, ttl_s=INDEX_TTL_S)
        self._index_fetch = SharedFetches[RegistryIndex]()

    def _files(self, name: str, path: str) -> dict[str, asyncio.Future[str | None]]:
        """The four files of a package folder, requested concurrently."""
        return {f: asyncio.ensure_future(self._file(name, path, f)) for f in _FILES}

    async def _file(self, name: str, path: str, file: str) -> str | None:
        return await get_text(
            self._client,
            f"{self._base_url}/{path}/{file}",
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
            not_found="none",
        )

    async def registry_index(self) -> RegistryIndex:
        """`Registry.toml`, parsed once an hour (single-flight); raises like `get_text`."""
        held = self._index.get("index")
        if held is not None:
            return held

        async def start() -> RegistryIndex:
            text = await get_text(
                self._client,
                f"{self._base_url}/Registry.toml",
                ecosystem=self.ecosystem,
                name="Registry.toml",
                source=INDEX_SOURCE,
            )
            index = await asyncio.to_thread(parse_registry, text)
            self._index.set("index", index)
            return index

        return await self._index_fetch.get("index", start)

    async def _hub_versions(self, name: str) -> list[object] | None:
        return await get_json_array(
            self._client,
            f"{self._juliahub_url}/docs/General/{name}/versions.json",
            ecosystem=self.ecosystem,
            name=name,
            source=JULIAHUB_VERSIONS_SOURCE,
            not_found="none",
        )

    async def _hub_package(self, name: str, version: str | None) -> dict[str, object] | None:
        return await get_json(
            self._client,
            f"{self._juliahub_url}/docs/General/{name}/{version or 'stable'}/pkg.json",
            ecosystem=self.ecosystem,
            name=name,
            source=JULIAHUB_SOURCE,
            not_found="none",
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        pkg = package_name(name)
        if not _NAME.match(pkg):
            raise PackageNotFound(self.ecosystem.value, name)
        wanted = version.strip() if version is not None else None
        files = self._files(pkg, registry_path(pkg))
        hub_versions = asyncio.ensure_future(
            optional_source(
                lambda: self._hub_versions(pkg), source=JULIAHUB_VERSIONS_SOURCE, kind="registry"
            )
        )
        hub_package = asyncio.ensure_future(
            optional_source(
                lambda: self._hub_package(pkg, wanted), source=JULIAHUB_SOURCE, kind="registry"
            )
        )
        tasks: list[asyncio.Future[Any]] = [*files.values(), hub_versions, hub_package]
        try:
            versions_text = await files["Versions.toml"]
        except BaseException:
            for task in tasks:
                abandon(task)
            raise
        sources: list[SourceStatus] = []
        hub_list: list[object] | None = None
        index_uuid = None
        if versions_text is None:
            index_uuid, path = await self._listed(pkg, tasks)
            if path and path != registry_path(pkg):
                # A folder named before the current rule (`homebrew` lives in `H/Homebrew`).
                for task in files.values():
                    abandon(task)
                files = self._files(pkg, path)
                tasks = [*files.values(), hub_versions, hub_package]
                try:
                    versions_text = await files["Versions.toml"]
                except BaseException:
                    for task in tasks:
                        abandon(task)
                    raise
        if versions_text is None:
            hub_list, hub_status = await hub_versions
            sources.append(hub_status)
            if not hub_list:
                for task in tasks:
                    abandon(task)
                raise RegistryUnavailable(
                    self.ecosystem.value,
                    f"the General registry lists {pkg!r} but neither its Versions.toml nor "
                    "JuliaHub's version list could be read",
                    reason="versions_unavailable",
                    source=self.registry_source,
                )
            sources.append(
                SourceStatus(
                    f"{REGISTRY_SOURCE} Versions.toml",
                    "registry",
                    SourceState.UNAVAILABLE,
                    None,
                    "no Versions.toml at the registry host; versions from JuliaHub",
                )
            )
        else:
            abandon(hub_versions)
        texts: dict[str, str | None] = {}
        for file, task in files.items():
            if file == "Versions.toml":
                continue
            try:
                texts[file] = await task
            except (RegistryUnavailable, RegistryResponseInvalid) as exc:
                logger.info("julia %s: %s unavailable (%s)", pkg, file, exc.reason)
                texts[file] = None
        hub, hub_status = await hub_package
        sources.append(hub_status)
        return parse_package(
            pkg,
            versions_toml=versions_text,
            juliahub_versions=hub_list,
            package_toml=texts["Package.toml"],
            deps_toml=texts["Deps.toml"],
            compat_toml=texts["Compat.toml"],
            juliahub=hub,
            version=wanted,
            uuid=index_uuid,
            sources=tuple(sources),
        )

    async def _listed(self, pkg: str, tasks: list[asyncio.Future[Any]]) -> tuple[str, str]:
        """The (uuid, path) `Registry.toml` gives `pkg`; `PackageNotFound` when it is not listed
        (or the index is missing too); other failures of the index propagate."""
        try:
            index = await self.registry_index()
        except PackageNotFound:
            index = RegistryIndex({})
        except BaseException:
            for task in tasks:
                abandon(task)
            raise
        entry = index.packages.get(pkg)
        if entry is None:
            for task in tasks:
                abandon(task)
            raise PackageNotFound(self.ecosystem.value, pkg)
        return entry

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: neither the registry nor JuliaHub's documents count downloads."""
        return None


def parse_versions(text: str) -> dict[str, bool]:
    """`Versions.toml` → `{version: yanked}`; raises `RegistryResponseInvalid` on another body."""
    data = _toml(text, REGISTRY_SOURCE)
    out = {
        str(v).strip(): entry.get("yanked") is True
        for v, entry in data.items()
        if isinstance(entry, Mapping) and str(v).strip()
    }
    if not out:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "Versions.toml lists no versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    return out


def in_range(key: str, version: str) -> bool:
    """
    Whether `version` falls in a Deps/Compat section key: `*`, a bound (`0.5` = every 0.5.x) or
    `lo-hi` with inclusive bounds compared on their own number of parts (`0.3-0` is 0.3.0 up to
    every 0.x), as Pkg's `VersionRange` reads them.
    """
    if key.strip() == "*":
        return True
    parts = _parts(version)
    if parts is None:
        return False
    lo, _, hi = key.strip().partition("-")
    hi = hi or lo
    if not _BOUND.match(lo) or not _BOUND.match(hi):
        return False
    low = tuple(int(p) for p in lo.split("."))
    high = tuple(int(p) for p in hi.split("."))
    return parts[: len(low)] >= low and parts[: len(high)] <= high


def _parts(version: str) -> tuple[int, int, int] | None:
    m = re.match(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?", version.strip())
    return (int(m[1]), int(m[2] or 0), int(m[3] or 0)) if m else None


def _sections(text: str | None, version: str) -> dict[str, Any]:
    """The merged entries of every section of a Deps/Compat file whose range holds `version`."""
    if text is None:
        return {}
    merged: dict[str, Any] = {}
    for key, table in _toml(text, REGISTRY_SOURCE).items():
        if isinstance(table, Mapping) and in_range(str(key), version):
            merged.update(table)
    return merged


def _compat(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return ", ".join(str(v).strip() for v in value if isinstance(v, str))
    return ""


def parse_package(
    name: str,
    *,
    versions_toml: str | None,
    juliahub_versions: list[object] | None = None,
    package_toml: str | None = None,
    deps_toml: str | None = None,
    compat_toml: str | None = None,
    juliahub: Mapping[str, Any] | None = None,
    version: str | None = None,
    uuid: str | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    Build `PackageInfo` from the registry files (any but the version list may be None) and
    JuliaHub's documents. Versions come from `Versions.toml`, else from JuliaHub's list.

    Raises `RegistryResponseInvalid` when the version source is not the expected shape and
    `VersionNotFound` when `version` is not registered.
    """
    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    if versions_toml is not None:
        listed = parse_versions(versions_toml)
    else:
        listed = {
            str(v).strip(): False
            for v in juliahub_versions or ()
            if isinstance(v, str) and v.strip()
        }
        if not listed:
            raise RegistryResponseInvalid(
                _ECOSYSTEM,
                "JuliaHub lists no versions",
                reason="invalid_shape",
                source=JULIAHUB_VERSIONS_SOURCE,
            )
        extra["versions_source"] = "juliahub.com (Versions.toml unavailable; yanked flags unknown)"
    releases = tuple(
        sorted(
            (
                Release(
                    v,
                    yanked=yanked,
                    yanked_reason="yanked" if yanked else None,
                    prerelease=is_prerelease(_ECOSYSTEM, v),
                )
                for v, yanked in listed.items()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    candidates = [r.version for r in releases if not r.yanked and not r.prerelease]
    candidates = candidates or [r.version for r in releases if not r.yanked] or list(listed)
    latest = newest_first(_ECOSYSTEM, candidates)[0]
    target = latest if version is None else version
    if target not in listed:
        available = newest_first(_ECOSYSTEM, list(listed))
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])

    package = _toml(package_toml, REGISTRY_SOURCE) if package_toml is not None else {}
    hub = juliahub if juliahub is not None else {}
    hub_ok = as_text(hub.get("version")) == target
    uuid = as_text(package.get("uuid")) or uuid or as_text(hub.get("uuid"))
    if uuid:
        extra["uuid"] = uuid
    deps: list[Dependency] = []
    if deps_toml is not None:
        compat = _sections(compat_toml, target)
        for dep in sorted(_sections(deps_toml, target)):
            deps.append(Dependency(dep, _compat(compat.get(dep))))
        if compat.get("julia") is not None:
            extra["requires_julia"] = _compat(compat["julia"])
    elif hub_ok:
        for item in hub.get("deps") or ():
            if not isinstance(item, Mapping) or item.get("direct") is not True:
                continue
            dep_name = as_text(item.get("name"))
            ranges = [r for r in item.get("versions") or () if isinstance(r, str)]
            requirement = "" if ranges == ["*"] else ", ".join(ranges)
            if dep_name == "julia":
                extra["requires_julia"] = requirement
            elif dep_name:
                deps.append(Dependency(dep_name, requirement))
        extra["dependencies_source"] = "juliahub.com"
    else:
        extra["dependencies_unavailable"] = "neither Deps.toml nor JuliaHub's document was readable"

    repository = None
    for url in (as_text(package.get("repo")), as_text(hub.get("url"))):
        if url and repository is None:
            repository = normalise_repository_url(url)
    maintainers: tuple[Maintainer, ...] = ()
    owner = as_text(hub.get("owner"))
    if owner:
        maintainers = (Maintainer(owner, None, "repository owner"),)
        extra["maintainers_source"] = "juliahub.com owner"
    stars = hub.get("stargazers_count")
    if isinstance(stars, int) and not isinstance(stars, bool):
        extra["juliahub_stars"] = str(stars)
    pkgeval = hub.get("pkgeval")
    if isinstance(pkgeval, Mapping) and as_text(pkgeval.get("status")):
        extra["pkgeval"] = str(pkgeval["status"]).strip()
    deprecated = package.get("metadata")
    notice = deprecated.get("deprecated") if isinstance(deprecated, Mapping) else None
    message = None
    if isinstance(notice, Mapping):
        reason, alternative = as_text(notice.get("reason")), as_text(notice.get("alternative"))
        message = "deprecated in the General registry" + (f": {reason}" if reason else "")
        if alternative:
            message += f"; alternative: {alternative}"
            extra["deprecated_successor"] = alternative
    elif notice is True:
        message = "deprecated in the General registry"
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=as_text(package.get("name")) or name,
        latest_version=latest,
        description=as_text(hub.get("description")) or "",
        license=as_text(hub.get("license")),
        homepage=as_text(hub.get("homepage")),
        repository=repository,
        releases=releases,
        maintainers=maintainers,
        dependencies=tuple(deps),
        dependencies_version=target,
        deprecated=message is not None,
        deprecated_message=message,
        extra=extra,
        sources=sources,
    )


def _toml(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"{source} sent a file that is not TOML",
            reason="invalid_toml",
            source=source,
        ) from exc
