"""
Conda adapter: package metadata from the anaconda.org API.

API: https://api.anaconda.org/docs (no auth for public channels). One request:
`GET /package/{channel}/{name}` gives `versions`, `latest_version`, `releases` (each version with
the basenames of all its platform builds), `files` (one object per build: `version`,
`upload_time`, `labels`, `ndownloads`, `attrs.subdir`, `attrs.depends`), `license`, `summary`,
`home`, `dev_url`, `doc_url`, `source_git_url`, `owner`.

Names are `name` (channel `conda-forge`, the default) or `channel/name`. Versions are conda
`VersionOrder` (`domain.versions`, scheme `conda`); the builds of every platform collapse to one
release per version. A release's date is the earliest upload of its builds, and it is yanked when
none of its builds carries the `main` label (conda-forge moves broken builds to `broken`): both
only when `files` covers every build the version lists (a yanked version is never the latest), since a partial file list cannot say
when a version first appeared or whether some build is still installable. Dependencies are the
`depends` of one build of the target version: `noarch` first, else `linux-64`, else the first
platform listed, the most recent upload of it (`extra["dependencies_platform"]` names it).

anaconda.org counts downloads per file since upload, with no weekly window: their sum is
`extra["downloads"]` (`downloads_window: "total (all builds)"`), given only when the file list is
complete. The channel owner is not a maintainer of the package (conda-forge's maintainers are
listed in the feedstock's recipe, which this API does not return), so `maintainers` stays empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import InvalidInput, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_count, as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, is_valid, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import get_json

DEFAULT_BASE_URL: Final = "https://api.anaconda.org"
DEFAULT_CHANNEL: Final = "conda-forge"
REGISTRY_SOURCE: Final = "api.anaconda.org"
AVAILABLE_IN_ERRORS: Final = 10
INSTALLABLE_LABEL: Final = "main"
PLATFORM_PREFERENCE: Final = ("noarch", "linux-64")

_ECOSYSTEM: Final = Ecosystem.CONDA


def split_channel(name: str) -> tuple[str, str]:
    """`channel/name` → (channel, name); a bare name is on `conda-forge`. Raises `InvalidInput`
    for more than one `/` or an empty part."""
    parts = name.strip().split("/")
    if len(parts) == 1:
        return DEFAULT_CHANNEL, parts[0]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise InvalidInput("package", f"{name!r} is not a conda name (`name` or `channel/name`)")


class CondaAdapter:
    """`RegistryAdapter` for anaconda.org channels (or a mirror of its API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.CONDA
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        channel, package = split_channel(name)
        body = await get_json(
            self._client,
            f"{self._base_url}/package/{quote(channel, safe='')}/{quote(package, safe='')}",
            ecosystem=self.ecosystem,
            name=name,
            source=REGISTRY_SOURCE,
        )
        return parse_package(body, channel=channel, version=version)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """anaconda.org has no weekly figure (the all-time total is in `extra`): None."""
        return None


def parse_package(
    body: Mapping[str, Any], *, channel: str = DEFAULT_CHANNEL, version: str | None = None
) -> PackageInfo:
    """
    `PackageInfo` from `GET /package/{channel}/{name}`. The name is reported as `name` on
    conda-forge and `channel/name` elsewhere. Raises `RegistryResponseInvalid` when the body has
    no name or no versions, `VersionNotFound` when `version` is not released.
    """
    name = as_text(body.get("name"))
    listed = [str(v).strip() for v in body.get("versions") or () if isinstance(v, str)]
    builds: dict[str, set[str]] = {v: set() for v in listed}
    for rel in body.get("releases") or ():
        if isinstance(rel, Mapping) and as_text(rel.get("version")):
            dists = builds.setdefault(str(rel["version"]).strip(), set())
            dists.update(d for d in rel.get("distributions") or () if isinstance(d, str))
    if not name or not builds:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "anaconda.org package body has no name or versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    files: dict[str, list[Mapping[str, Any]]] = {}
    for item in body.get("files") or ():
        if isinstance(item, Mapping) and as_text(item.get("version")):
            files.setdefault(str(item["version"]).strip(), []).append(item)
    complete = {v: _covers(builds.get(v, set()), files.get(v, [])) for v in builds}

    releases = tuple(
        sorted(
            (_release(v, files.get(v, []), complete[v]) for v in builds),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    yanked = {r.version for r in releases if r.yanked}
    latest = as_text(body.get("latest_version"))
    if latest not in builds or latest in yanked:
        # The newest stable version with an installable build (never a `broken`-only one).
        usable = [v for v in builds if v not in yanked] or list(builds)
        stable = [v for v in usable if is_valid(_ECOSYSTEM, v) and not is_prerelease(_ECOSYSTEM, v)]
        latest = newest_first(_ECOSYSTEM, stable or usable)[0]
    target = latest if version is None else version.strip()
    if target not in builds:
        raise VersionNotFound(
            _ECOSYSTEM,
            name,
            target,
            available=newest_first(_ECOSYSTEM, list(builds))[:AVAILABLE_IN_ERRORS],
        )
    extra: dict[str, str] = {"channel": channel}
    platforms = [p for p in body.get("conda_platforms") or () if isinstance(p, str)]
    if platforms:
        extra["platforms"] = " ".join(platforms)
    deps: tuple[Dependency, ...] = ()
    deps_version: str | None = None
    chosen = _build_for_dependencies(files.get(target, []))
    if chosen is not None:
        deps = _dependencies(as_object(chosen.get("attrs")).get("depends"))
        deps_version = target
        extra["dependencies_platform"] = str(as_object(chosen.get("attrs")).get("subdir") or "")
    else:
        extra["dependencies_unavailable"] = (
            "anaconda.org sent no build of this version (its file list is incomplete)"
        )
    if all(complete.values()):
        total = sum(
            as_count(f.get("ndownloads")) or 0
            for version_files in files.values()
            for f in version_files
        )
        extra["downloads"] = str(total)
        extra["downloads_window"] = "total (all builds)"
    else:
        extra["downloads_unavailable"] = (
            "anaconda.org's file list does not cover every build, so no total can be given"
        )
    home = _url(body.get("home"))
    repository = None
    for candidate in (body.get("dev_url"), body.get("source_git_url"), body.get("home")):
        url = _url(candidate)
        repository = normalise_repository_url(url, forges_only=True) if url else None
        if repository:
            break
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name if channel == DEFAULT_CHANNEL else f"{channel}/{name}",
        latest_version=latest,
        description=as_text(body.get("summary")) or "",
        license=as_text(body.get("license")),
        homepage=home or _url(body.get("doc_url")),
        repository=repository,
        releases=releases,
        dependencies=deps,
        dependencies_version=deps_version,
        extra=extra,
    )


def _covers(distributions: set[str], files: list[Mapping[str, Any]]) -> bool:
    """True when `files` holds every build the version lists (and at least one)."""
    have = {str(f.get("basename")) for f in files if isinstance(f.get("basename"), str)}
    return bool(have) and distributions <= have


def _release(version: str, files: list[Mapping[str, Any]], complete: bool) -> Release:
    if not complete:
        return Release(version=version, prerelease=is_prerelease(_ECOSYSTEM, version))
    times = [t for t in (as_datetime(f.get("upload_time")) for f in files) if t is not None]
    labels = {label for f in files for label in f.get("labels") or () if isinstance(label, str)}
    yanked = INSTALLABLE_LABEL not in labels
    return Release(
        version=version,
        published_at=min(times) if times else None,
        prerelease=is_prerelease(_ECOSYSTEM, version),
        yanked=yanked,
        yanked_reason=f"no build under the `main` label (labels: {', '.join(sorted(labels))})"
        if yanked
        else None,
    )


def _build_for_dependencies(files: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The build whose `depends` stand for the version: noarch, else linux-64, else any; the
    latest upload among them."""
    if not files:
        return None
    by_subdir: dict[str, list[Mapping[str, Any]]] = {}
    for f in files:
        by_subdir.setdefault(str(as_object(f.get("attrs")).get("subdir") or ""), []).append(f)
    pick = next((by_subdir[p] for p in PLATFORM_PREFERENCE if p in by_subdir), files)

    def uploaded(f: Mapping[str, Any]) -> datetime:
        return as_datetime(f.get("upload_time")) or datetime.min.replace(tzinfo=UTC)

    return max(pick, key=uploaded)


def _dependencies(value: Any) -> tuple[Dependency, ...]:
    """`["atomicwrites >=1.0", "python >=2.7,<2.8.0a0", "six"]` → dependencies (match specs:
    the name, then the version constraint; a build string after it is dropped)."""
    if not isinstance(value, list):
        return ()
    deps: dict[str, Dependency] = {}
    for spec in value:
        if not isinstance(spec, str) or not spec.strip():
            continue
        parts = spec.split()
        deps.setdefault(parts[0], Dependency(parts[0], parts[1] if len(parts) > 1 else ""))
    return tuple(deps.values())


def _url(value: Any) -> str | None:
    text = as_text(value)
    return text if text and text.lower() not in ("none", "null") and "://" in text else None
