"""
CocoaPods adapter: pod metadata from the CocoaPods CDN (the trunk Specs repository served as files).

CDN layout (https://blog.cocoapods.org/CocoaPods-1.7.2/, "CDN support"; the `cdn.cocoapods.org`
source CocoaPods 1.8+ uses by default). A pod's shard is the first three hex digits of the MD5 of
its exact name, `a`, `b`, `c`:

| request | gives |
|---|---|
| `GET /all_pods_versions_{a}_{b}_{c}.txt` | one line per pod of the shard: `Name/1.0.0/1.0.1/...` (every published version) |
| `GET /Specs/{a}/{b}/{c}/{Name}/{version}/{Name}.podspec.json` | that version's podspec: summary, licence, authors, homepage, source, dependencies (also per subspec), `deprecated`, `deprecated_in_favor_of` |
| `GET /all_pods.txt` | every pod name, one a line (the name index; `pkgintel ingest names`) |

The shard and the podspec are two dependent requests (the podspec path needs the version the shard
lists); a requested version lets both run at once. The CDN has no publish dates and no download
counts (CocoaPods' stats service was retired): dates are None, the weekly figure is null with
`downloads_unavailable` saying why. Pod names are case-sensitive here because the shard is the MD5
of the exact spelling. A podspec that cannot be read leaves the pod reported from its shard with
`podspec_unavailable` (no licence, people or dependencies are guessed).

Deprecation is a podspec attribute: `deprecated: true` or `deprecated_in_favor_of: "Other"`
(https://guides.cocoapods.org/syntax/podspec.html#deprecated); the latest version's podspec
decides whether the pod is deprecated, and the successor is kept as `deprecated_successor`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx
import orjson

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json, get_text
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://cdn.cocoapods.org"
REGISTRY_SOURCE: Final = "cdn.cocoapods.org"
PODSPEC_SOURCE: Final = "cdn.cocoapods.org/Specs"
AVAILABLE_IN_ERRORS: Final = 10
NO_DOWNLOADS: Final = (
    "the CocoaPods CDN publishes no download counts (CocoaPods stats were retired)"
)

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.COCOAPODS
_SHARD_LINE = re.compile(r"^[^/]+(?:/[0-9A-Za-z][0-9A-Za-z.+_-]*)+$")
"""`Name/version/...`: a name may hold blanks (`ID.me WebVerify`), versions may not."""


def shard(name: str) -> tuple[str, str, str]:
    """The three hex digits of the MD5 of `name` that place the pod on the CDN."""
    digest = hashlib.md5(name.encode("utf-8"), usedforsecurity=False).hexdigest()
    return digest[0], digest[1], digest[2]


class CocoaPodsAdapter:
    """`RegistryAdapter` for the CocoaPods CDN (or a mirror of it at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.COCOAPODS
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    def shard_url(self, name: str) -> str:
        a, b, c = shard(name)
        return f"{self._base_url}/all_pods_versions_{a}_{b}_{c}.txt"

    def podspec_url(self, name: str, version: str) -> str:
        a, b, c = shard(name)
        pod, ver = quote(name, safe=""), quote(version, safe="")
        return f"{self._base_url}/Specs/{a}/{b}/{c}/{pod}/{ver}/{pod}.podspec.json"

    async def _podspec(self, name: str, version: str) -> JSONObject | None:
        return await get_json(
            self._client,
            self.podspec_url(name, version),
            ecosystem=self.ecosystem,
            name=name,
            source=PODSPEC_SOURCE,
            not_found="none",
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        name = name.strip()
        spec_task = asyncio.ensure_future(self._podspec(name, version.strip())) if version else None
        try:
            text = await get_text(
                self._client,
                self.shard_url(name),
                ecosystem=self.ecosystem,
                name=name,
                source=self.registry_source,
            )
            versions = parse_shard(text, name)
        except BaseException:
            abandon(spec_task)
            raise
        target = version.strip() if version else latest_version(versions)
        if target not in versions:
            abandon(spec_task)
            available = newest_first(_ECOSYSTEM, versions)[:AVAILABLE_IN_ERRORS]
            raise VersionNotFound(_ECOSYSTEM, name, target, available=available)
        spec: JSONObject | None = None
        spec_error: str | None = None
        try:
            spec = await (spec_task or self._podspec(name, target))
        except RegistryError as exc:
            logger.info("cocoapods %s: podspec unavailable (%s)", name, exc.reason)
            spec_error = exc.reason
        return parse_pod(name, versions, spec, target=target, spec_error=spec_error)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: the CDN has no download counts."""
        return None


def parse_shard(text: str, name: str) -> list[str]:
    """
    The versions of `name` listed in an `all_pods_versions_*.txt` shard, in the shard's order.

    Raises `RegistryResponseInvalid` when a line is not `Name/version/...` (an HTML page, JSON),
    `PackageNotFound` when the shard has no line for `name`.
    """
    found: list[str] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if not _SHARD_LINE.match(line):
            raise RegistryResponseInvalid(
                _ECOSYSTEM,
                "cdn.cocoapods.org sent a shard that is not `Name/version/...` lines",
                reason="invalid_shape",
                source=REGISTRY_SOURCE,
            )
        pod, *versions = line.split("/")
        if pod == name:
            found = versions
    if found is None:
        raise PackageNotFound(_ECOSYSTEM, name)
    if not found:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"cdn.cocoapods.org lists no versions of {name!r}",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    return found


def latest_version(versions: list[str]) -> str:
    """The highest non-pre-release version by `Pod::Version` order (the highest of all when every
    version is a pre-release), as `pod install` picks for an unconstrained `pod 'Name'`."""
    stable = [v for v in versions if not is_prerelease(_ECOSYSTEM, v)]
    return newest_first(_ECOSYSTEM, stable or versions)[0]


def parse_pod(
    name: str,
    versions: list[str],
    spec: Mapping[str, Any] | None,
    *,
    target: str,
    spec_error: str | None = None,
) -> PackageInfo:
    """
    `PackageInfo` from the shard's versions and the podspec of `target` (the latest when no version
    was asked for). A missing podspec (None) gives a report with no licence, people or
    dependencies and `extra["podspec_unavailable"]`.
    """
    releases = tuple(
        sorted(
            (Release(v, prerelease=is_prerelease(_ECOSYSTEM, v)) for v in dict.fromkeys(versions)),
            key=lambda r: sort_key(_ECOSYSTEM, r.version),
        )
    )
    latest = latest_version(versions)
    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    sources: tuple[SourceStatus, ...] = ()
    if spec is None or as_text(spec.get("version")) != target:
        reason = spec_error or ("no podspec" if spec is None else "podspec of another version")
        extra["podspec_unavailable"] = f"the podspec of {target} could not be read ({reason})"
        extra["dependencies_unavailable"] = extra["podspec_unavailable"]
        sources = (SourceStatus(PODSPEC_SOURCE, "registry", SourceState.UNAVAILABLE, None, reason),)
        return PackageInfo(
            ecosystem=_ECOSYSTEM,
            name=name,
            latest_version=latest,
            releases=releases,
            dependencies_version=target,
            extra=extra,
            sources=sources,
        )
    display = as_text(spec.get("name")) or name
    deprecated, message, successor = _deprecation(spec) if target == latest else (False, None, None)
    if successor:
        extra["deprecated_successor"] = successor
    platforms = as_object(spec.get("platforms"))
    for platform, minimum in platforms.items():
        if isinstance(minimum, str) and minimum.strip():
            extra[f"platform.{platform}"] = minimum.strip()
    swift = spec.get("swift_versions") or spec.get("swift_version")
    if isinstance(swift, str) and swift.strip():
        extra["swift_versions"] = swift.strip()
    elif isinstance(swift, list):
        extra["swift_versions"] = ", ".join(str(s) for s in swift if isinstance(s, str | int))
    extra.update(subspec_structure(display, spec))
    source = as_object(spec.get("source"))
    repo_url = as_text(source.get("git"))
    homepage = as_text(spec.get("homepage"))
    repository = normalise_repository_url(repo_url) if repo_url else None
    if repository is None and homepage:
        repository = normalise_repository_url(homepage, forges_only=True)
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=display,
        latest_version=latest,
        description=as_text(spec.get("summary")) or as_text(spec.get("description")) or "",
        license=_license(spec.get("license")),
        homepage=homepage,
        repository=repository,
        releases=releases,
        maintainers=_authors(spec.get("authors") or spec.get("author")),
        dependencies=_dependencies(display, spec),
        dependencies_version=target,
        deprecated=deprecated,
        deprecated_message=message,
        extra=extra,
    )


def _deprecation(spec: Mapping[str, Any]) -> tuple[bool, str | None, str | None]:
    successor = as_text(spec.get("deprecated_in_favor_of"))
    if successor:
        return True, f"deprecated in favour of {successor}", successor
    if spec.get("deprecated") is True:
        return True, "deprecated by its owners", None
    return False, None, None


def _license(value: Any) -> str | None:
    """`"MIT"` or `{"type": "MIT", "file": "LICENSE"}` → the type as written."""
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, Mapping):
        return as_text(value.get("type"))
    return None


def _authors(value: Any) -> tuple[Maintainer, ...]:
    """`authors` is a name, a list of names, or `{name: email}`."""
    found: dict[str, Maintainer] = {}
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        for item in value:
            if isinstance(item, str) and item.strip():
                found.setdefault(item.strip().lower(), Maintainer(item.strip(), None, "author"))
    elif isinstance(value, Mapping):
        for who, email in value.items():
            if isinstance(who, str) and who.strip():
                mail = email.strip() or None if isinstance(email, str) else None
                found.setdefault(who.strip().lower(), Maintainer(who.strip(), mail, "author"))
    return tuple(found.values())


PLATFORMS: Final = ("ios", "osx", "tvos", "watchos", "visionos")
"""Podspec platform keys whose `dependencies` apply on that platform only (consumer attributes)."""


def _dependencies(name: str, spec: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """
    `dependencies: {pod: [requirement, ...]}` of the pod and of each subspec, nested ones too (kind
    `extra:<subspec path>`, `extra:Core/Base`); a platform's own `dependencies` (`"ios":
    {"dependencies": ...}`) carry the platform as `marker`. A dependency on a subspec of the same
    pod is not a dependency of another pod: it is kept in `subspec_structure`. Requirements of one
    dependency are joined with `, ` as CocoaPods combines them.
    """
    deps: dict[tuple[str, str, str | None], Dependency] = {}

    def add(value: Any, kind: str, marker: str | None) -> None:
        if not isinstance(value, Mapping):
            return
        for dep, reqs in value.items():
            if not isinstance(dep, str) or dep.split("/", 1)[0] == name:
                continue
            parts = (
                [r.strip() for r in reqs if isinstance(r, str)] if isinstance(reqs, list) else []
            )
            deps.setdefault(
                (dep, kind, marker),
                Dependency(dep, ", ".join(p for p in parts if p), kind, marker),
            )

    for path, node in _specs(spec):
        kind = f"extra:{path}" if path else "runtime"
        add(node.get("dependencies"), kind, None)
        for platform in PLATFORMS:
            add(as_object(node.get(platform)).get("dependencies"), kind, platform)
    return tuple(deps.values())


def _specs(spec: Mapping[str, Any], path: str = "") -> list[tuple[str, Mapping[str, Any]]]:
    """The root (path `""`) and every subspec, depth first, with its path below the root."""
    out: list[tuple[str, Mapping[str, Any]]] = [(path, spec)]
    for sub in spec.get("subspecs") or ():
        sub_name = as_text(sub.get("name")) if isinstance(sub, Mapping) else None
        if isinstance(sub, Mapping) and sub_name:
            out.extend(_specs(sub, f"{path}/{sub_name}" if path else sub_name))
    return out


def subspec_structure(name: str, spec: Mapping[str, Any]) -> dict[str, str]:
    """
    What installing a part of the pod brings in, for `/api/tree`: `extra["subspecs"]` (every
    subspec path, comma-separated), `extra["default_subspecs"]` (the root's `default_subspecs`,
    comma-separated, or `none`; absent when the podspec names none — then every subspec is the
    default) and `extra["subspec_requires"]` (JSON `{path: [paths of the same pod it requires]}`,
    `""` for the root). Empty when the pod has no subspecs.
    """
    specs = _specs(spec)
    if len(specs) == 1:
        return {}
    extra = {"subspecs": ", ".join(path for path, _ in specs[1:])}
    default = spec.get("default_subspecs", spec.get("default_subspec"))
    if isinstance(default, str) and default.strip():
        default = [default]
    if isinstance(default, list) and default:
        names = [d.strip() for d in default if isinstance(d, str) and d.strip()]
        extra["default_subspecs"] = "none" if names in (["none"], [":none"]) else ", ".join(names)
    requires: dict[str, list[str]] = {}
    for path, node in specs:
        wanted: list[str] = []
        maps = [node.get("dependencies")]
        maps.extend(as_object(node.get(p)).get("dependencies") for p in PLATFORMS)
        for value in maps:
            if isinstance(value, Mapping):
                wanted.extend(
                    dep.split("/", 1)[1]
                    for dep in value
                    if isinstance(dep, str) and dep.split("/", 1)[0] == name and "/" in dep
                )
        if wanted:
            requires[path] = list(dict.fromkeys(wanted))
    if requires:
        extra["subspec_requires"] = orjson.dumps(requires).decode()
    return extra
