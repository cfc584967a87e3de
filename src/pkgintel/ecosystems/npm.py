"""
npm adapter: package metadata from the npm registry, weekly downloads from the npm downloads API.

API: https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md — `GET /{name}` returns the full
packument (every version's manifest, `time`, `dist-tags`, `maintainers`); a scoped name is sent as
`@scope%2Fname`. No auth for public packages; no published rate limit, but bulk clients are throttled
(429). The abbreviated "corgi" form (`Accept: application/vnd.npm.install-v1+json`) lacks `time`,
licences and maintainers, so we ask for the full document. Large packages' packuments run to several
MB.

Search: `GET /-/v1/search?text=&size=` (at most 250 hits), the optional `SearchableRegistry`
capability (`ecosystems/optional.py`).

Downloads: https://github.com/npm/registry/blob/main/docs/download-counts.md —
`GET /downloads/point/last-week/{name}` (scoped names with a literal `/`); 404 for unknown packages.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote, unquote

import httpx

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_text
from pkgintel.domain.knowledge.compat import PublishedConstraints, Requirement, VersionConstraints
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.search import SearchHit
from pkgintel.domain.signals.maintainers import Publication, PublisherHistory
from pkgintel.domain.versions import is_prerelease, is_valid, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json, get_json_parsed
from pkgintel.transport.memo import SharedFetches

DEFAULT_BASE_URL: Final = "https://registry.npmjs.org"
DEFAULT_DOWNLOADS_URL: Final = "https://api.npmjs.org"
REGISTRY_SOURCE: Final = "registry.npmjs.org"
DOWNLOADS_SOURCE: Final = "api.npmjs.org"
SEARCH_SOURCE: Final = "registry.npmjs.org/-/v1/search"
AVAILABLE_IN_ERRORS: Final = 10
"""How many of the newest versions a `VersionNotFound` lists."""

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.NPM
_DEPENDENCY_KINDS: Final = (
    ("dependencies", "runtime"),
    ("optionalDependencies", "optional"),
    ("peerDependencies", "peer"),
)
_CONSTRAINT_FIELDS: Final = (
    "dependencies",
    "optionalDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "engines",
)
"""The manifest fields `version_constraints` reads (all it keeps of a packument)."""
_PERSON = re.compile(
    r"^\s*(?P<name>[^<(]*?)\s*(?:<(?P<email>[^>]*)>)?\s*(?:\((?P<url>[^)]*)\))?\s*$"
)


class NpmAdapter:
    """`RegistryAdapter` for registry.npmjs.org (or a mirror at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        downloads_url: str = DEFAULT_DOWNLOADS_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._downloads_url = downloads_url.rstrip("/")
        self._flights = SharedFetches[JSONObject]()

    def packument_url(self, name: str) -> str:
        """The packument URL; `@scope/name` and `%40scope%2Fname` both become `@scope%2Fname`."""
        return f"{self._base_url}/{quote(unquote(name), safe='@')}"

    def downloads_url(self, name: str) -> str:
        """The last-week point URL; scoped names keep their literal `/` as the API documents."""
        return f"{self._downloads_url}/downloads/point/last-week/{quote(unquote(name), safe='@/')}"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`; an unpublished package is `PackageNotFound`."""
        name = unquote(name)
        return parse_packument(await self._packument(name), version=version)

    async def _packument(self, name: str) -> Mapping[str, Any]:
        """The decoded packument, one GET shared by concurrent callers (a cold report asks for the
        package and its publisher history at the same moment). Raises like `get_json`."""
        url = self.packument_url(name)
        return await self._flights.get(
            url,
            lambda: get_json(
                self._client, url, ecosystem=self.ecosystem, name=name, source=self.registry_source
            ),
        )

    async def fetch_constraints(self, name: str) -> PublishedConstraints:
        """
        Every published version with what it declares (peer, runtime and optional dependencies,
        `peerDependenciesMeta` optional flags, `engines.node`), from one packument. Raises like
        `fetch_package`. The packument is decoded and indexed in a worker thread, off the event
        loop; each version's declarations are built on first use (`parse_constraints`).
        """
        name = unquote(name)
        return await get_json_parsed(
            self._client,
            self.packument_url(name),
            parse_constraints,
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
        )

    publishers_source: ClassVar[str] = REGISTRY_SOURCE

    async def fetch_publishers(self, name: str) -> PublisherHistory:
        """Who published each version (`PublisherHistorySource`), from the same packument GET as a
        concurrent `fetch_package`."""
        return parse_publishers(await self._packument(unquote(name)))

    search_source: ClassVar[str] = SEARCH_SOURCE

    async def search(self, query: str, limit: int) -> list[SearchHit]:
        """The registry's search (`/-/v1/search?text=&size=`); see `ecosystems/optional.py`."""
        data = await get_json(
            self._client,
            f"{self._base_url}/-/v1/search?text={quote(query)}&size={max(1, min(limit, 250))}",
            ecosystem=self.ecosystem,
            name=query,
            source=SEARCH_SOURCE,
        )
        return parse_search(data)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """See `RegistryAdapter.fetch_weekly_downloads`; a package npm does not count gives None."""
        name = unquote(name)
        data = await get_json(
            self._client,
            self.downloads_url(name),
            ecosystem=self.ecosystem,
            name=name,
            source=DOWNLOADS_SOURCE,
            not_found="none",
        )
        return None if data is None else parse_downloads(data)


def parse_search(data: Mapping[str, Any]) -> list[SearchHit]:
    """
    Hits of a `/-/v1/search` answer (`{"objects": [{"package": {name, version, description},
    "score": {"final"}, "downloads": {"monthly"}?}]}`), in the registry's order; malformed objects
    are skipped. Raises `RegistryResponseInvalid` when `objects` is missing.
    """
    objects = data.get("objects")
    if not isinstance(objects, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM.value,
            "npm search answer has no objects list",
            reason="invalid_shape",
            source=SEARCH_SOURCE,
        )
    out: list[SearchHit] = []
    for obj in objects:
        pkg = obj.get("package") if isinstance(obj, dict) else None
        if not isinstance(pkg, dict) or not isinstance(pkg.get("name"), str):
            continue
        score = _v if isinstance(_v := obj.get("score"), dict) else {}
        downloads = _v if isinstance(_v := obj.get("downloads"), dict) else {}
        final = score.get("final") if isinstance(score, dict) else None
        monthly = downloads.get("monthly") if isinstance(downloads, dict) else None
        out.append(
            SearchHit(
                pkg["name"],
                as_text(pkg.get("description")),
                as_text(pkg.get("version")),
                monthly if isinstance(monthly, int) else None,
                None,
                float(final) if isinstance(final, int | float) else 0.0,
                (SEARCH_SOURCE,),
            )
        )
    return out


def parse_downloads(data: Mapping[str, Any]) -> int | None:
    """
    The `downloads` count of a `/downloads/point/...` body.

    Returns None for the API's `{"error": "package ... not found"}` body; raises
    `RegistryResponseInvalid` when the body has neither a count nor an error.
    """
    downloads = data.get("downloads")
    if isinstance(downloads, int) and not isinstance(downloads, bool) and downloads >= 0:
        return downloads
    if "error" in data:
        return None
    raise RegistryResponseInvalid(
        _ECOSYSTEM,
        "npm downloads body has no count",
        reason="invalid_shape",
        source=DOWNLOADS_SOURCE,
    )


def parse_packument(data: Mapping[str, Any], *, version: str | None = None) -> PackageInfo:
    """
    Turn a full packument (`GET /{name}`) into `PackageInfo`.

    Dependencies, licence and `types` are those of `version` (a version or a dist-tag such as
    `next`; the `dist-tags.latest` version when None). Malformed versions, times and people are
    skipped and logged. Raises `PackageNotFound` when the package was unpublished (`time.unpublished`)
    or its `versions` is empty, `VersionNotFound` when `version` is not published, and
    `RegistryResponseInvalid` when the body has no name or no `versions` at all.
    """
    raw_versions = data.get("versions")
    name = _package_name(data, raw_versions)
    if not name:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "npm packument has neither a name nor versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    times = _v if isinstance(_v := data.get("time"), Mapping) else {}
    manifests = _manifests(name, raw_versions)
    if not manifests:
        if "unpublished" in times or isinstance(raw_versions, Mapping):
            why = "was unpublished" if "unpublished" in times else "has no published versions"
            logger.info("npm package %r %s", name, why)
            raise PackageNotFound(_ECOSYSTEM, name)
        # A name without `versions` is some other document (a version manifest, an error page).
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"npm body for {name!r} is not a packument (no versions)",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )

    releases = tuple(
        sorted(
            (_release(name, v, manifest, times.get(v)) for v, manifest in manifests.items()),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    dist_tags = _v if isinstance(_v := data.get("dist-tags"), Mapping) else {}
    latest = _latest_version(name, dist_tags, releases)
    target = latest if version is None else version
    tagged = dist_tags.get(target)
    if target not in manifests and isinstance(tagged, str) and tagged in manifests:
        target = tagged
    if target not in manifests:
        available = newest_first(_ECOSYSTEM, [rel.version for rel in releases])
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])
    manifest = manifests[target]
    latest_deprecation = _deprecation(manifests[latest].get("deprecated"))

    extra: dict[str, str] = {}
    types = manifest.get("types") or manifest.get("typings")
    if isinstance(types, str) and types.strip():
        extra["types"] = types.strip()
    elif (exported := _exported_types(manifest.get("exports"))) is not None:
        extra["types"] = exported
        extra["types_from"] = "exports"
    dist = _v if isinstance(_v := manifest.get("dist"), Mapping) else {}
    for key, field in (("unpacked_size", "unpackedSize"), ("file_count", "fileCount")):
        value = dist.get(field)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            extra[key] = str(value)
    engines = manifest.get("engines")
    if isinstance(engines, Mapping) and isinstance(engines.get("node"), str):
        extra["engines.node"] = engines["node"]

    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(data.get("description")) or as_text(manifest.get("description")) or "",
        license=_license(manifest) or _license(data),
        homepage=as_text(data.get("homepage")) or as_text(manifest.get("homepage")),
        repository=_repository(data.get("repository")) or _repository(manifest.get("repository")),
        releases=releases,
        maintainers=_maintainers(data.get("maintainers") or manifest.get("maintainers")),
        dependencies=_dependencies(name, target, manifest),
        dependencies_version=target,
        deprecated=latest_deprecation is not None,
        deprecated_message=latest_deprecation,
        keywords=_keywords(data.get("keywords") or manifest.get("keywords")),
        extra=extra,
    )


def _exported_types(exports: Any, depth: int = 0) -> str | None:
    """The first `types` condition of a manifest's `exports` map (a `.d.ts` path), else None."""
    if depth > 6 or not isinstance(exports, Mapping):
        return None
    found = exports.get("types")
    while isinstance(found, Mapping) and found:  # {"types": {"require": ..., "default": ...}}
        found = next(iter(found.values()))
    if isinstance(found, str) and found.strip():
        return found.strip()
    for value in exports.values():
        if (hit := _exported_types(value, depth + 1)) is not None:
            return hit
    return None


def _package_name(data: Mapping[str, Any], raw_versions: Any) -> str | None:
    for candidate in (data.get("name"), data.get("_id")):
        if isinstance(candidate, str) and candidate:
            return candidate
    if isinstance(raw_versions, Mapping):
        for manifest in raw_versions.values():
            if isinstance(manifest, Mapping) and isinstance(manifest.get("name"), str):
                return str(manifest["name"])
    return None


def _manifests(name: str, raw_versions: Any) -> dict[str, Mapping[str, Any]]:
    if raw_versions is None:
        return {}
    if not isinstance(raw_versions, Mapping):
        logger.warning("npm %s: `versions` is a %s, ignored", name, type(raw_versions).__name__)
        return {}
    manifests: dict[str, Mapping[str, Any]] = {}
    for version, manifest in raw_versions.items():
        if isinstance(version, str) and isinstance(manifest, Mapping):
            manifests[version] = manifest
        else:
            logger.warning("npm %s: skipped malformed version entry %r", name, version)
    return manifests


def _release(name: str, version: str, manifest: Mapping[str, Any], published: Any) -> Release:
    deprecation = _deprecation(manifest.get("deprecated"))
    return Release(
        version=version,
        published_at=_timestamp(name, version, published),
        # npm still installs deprecated versions: they carry `deprecated`, not `yanked`.
        yanked=False,
        prerelease=is_prerelease(_ECOSYSTEM, version),
        deprecated=deprecation,
    )


def _timestamp(name: str, version: str, value: Any) -> datetime | None:
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        logger.info("npm %s@%s: unreadable publish time %r", name, version, value)
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _latest_version(name: str, dist_tags: Mapping[str, Any], releases: tuple[Release, ...]) -> str:
    """`dist-tags.latest`, or (when missing or dangling) the newest stable, else newest, version."""
    latest = dist_tags.get("latest")
    if isinstance(latest, str) and any(rel.version == latest for rel in releases):
        return latest
    logger.info("npm %s: no usable dist-tags.latest, using the newest version", name)
    stable = [rel for rel in releases if not rel.prerelease and is_valid(_ECOSYSTEM, rel.version)]
    return (stable or list(releases))[-1].version


def _deprecation(value: Any) -> str | None:
    """npm marks a deprecated version with a message; an empty string means un-deprecated."""
    if isinstance(value, str):
        return value.strip() or None
    if value is True:
        return "deprecated"
    return None


def _license(document: Mapping[str, Any]) -> str | None:
    """`license` as an SPDX string, or the legacy `{"type": ...}` object / `licenses` array."""
    for key in ("license", "licenses"):
        value = document.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, Mapping):
            kind = as_text(value.get("type"))
            if kind:
                return kind
        if isinstance(value, list):
            kinds: list[str] = []
            for item in value:
                kind = as_text(item.get("type")) if isinstance(item, Mapping) else as_text(item)
                if kind and kind not in kinds:
                    kinds.append(kind)
            if kinds:
                return " OR ".join(kinds)
    return None


def _repository(value: Any) -> str | None:
    if isinstance(value, Mapping):
        value = value.get("url")
    return normalise_repository_url(value) if isinstance(value, str) else None


def _maintainers(value: Any) -> tuple[Maintainer, ...]:
    """People from `[{name, email}]` or `["Name <email> (url)"]`, de-duplicated by name."""
    if not isinstance(value, list):
        return ()
    found: dict[str, Maintainer] = {}
    for person in value:
        name: str | None = None
        email: str | None = None
        if isinstance(person, Mapping):
            name, email = as_text(person.get("name")), as_text(person.get("email"))
        elif isinstance(person, str) and (m := _PERSON.match(person)):
            name, email = m["name"] or None, as_text(m["email"])
        name = name or email
        if not name:
            logger.debug("npm: skipped maintainer entry %r", person)
            continue
        found.setdefault(name.lower(), Maintainer(name=name, email=email, role="maintainer"))
    return tuple(found.values())


def _dependencies(name: str, version: str, manifest: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """Runtime, optional and peer dependencies (npm also lists optional ones under `dependencies`)."""
    optional = manifest.get("optionalDependencies")
    optional_names = set(optional) if isinstance(optional, Mapping) else set()
    deps: list[Dependency] = []
    for key, kind in _DEPENDENCY_KINDS:
        table = manifest.get(key)
        if table is None:
            continue
        if not isinstance(table, Mapping):
            logger.info("npm %s@%s: `%s` is not an object, skipped", name, version, key)
            continue
        for dep_name, requirement in table.items():
            if kind == "runtime" and dep_name in optional_names:
                continue
            if not isinstance(dep_name, str) or not isinstance(requirement, str):
                logger.info("npm %s@%s: skipped %s entry %r", name, version, key, dep_name)
                continue
            deps.append(Dependency(name=dep_name, requirement=requirement.strip(), kind=kind))
    return tuple(deps)


def _keywords(value: Any) -> tuple[str, ...]:
    items: Iterable[Any]
    if isinstance(value, str):
        items = re.split(r"[,\s]+", value)
    elif isinstance(value, list):
        items = value
    else:
        return ()
    seen: dict[str, None] = {}
    for item in items:
        if isinstance(item, str) and item.strip():
            seen.setdefault(item.strip(), None)
    return tuple(seen)


def parse_constraints(data: Mapping[str, Any]) -> PublishedConstraints:
    """
    Declared constraints of every version of a full packument (pure). Versions are ordered by npm
    semver; malformed tables are skipped and logged (when a version is first read: `by_version` is
    a `LazyVersionConstraints`). Raises `PackageNotFound` for an unpublished
    package and `RegistryResponseInvalid` for a body that is not a packument.
    """
    raw_versions = data.get("versions")
    name = _package_name(data, raw_versions)
    manifests = _manifests(name or "?", raw_versions)
    if not name or not manifests:
        times = _v if isinstance(_v := data.get("time"), Mapping) else {}
        if name and ("unpublished" in times or isinstance(raw_versions, Mapping)):
            raise PackageNotFound(_ECOSYSTEM, name)
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "npm body is not a packument",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    declared = {
        version: {k: manifest[k] for k in _CONSTRAINT_FIELDS if k in manifest}
        for version, manifest in manifests.items()
        if is_valid(_ECOSYSTEM, version)
    }
    ordered = tuple(sorted(declared, key=lambda v: sort_key(_ECOSYSTEM, v)))
    return PublishedConstraints(
        name=name,
        versions=ordered,
        by_version=LazyVersionConstraints(name, declared),
        source=REGISTRY_SOURCE,
    )


class LazyVersionConstraints(Mapping[str, VersionConstraints]):
    """
    `{version: VersionConstraints}` of one packument, each built by `version_constraints` on first
    access and then kept. A compatibility check reads only the asked versions (suggestions read
    more), so the thousands of other versions of a large package (next, react) are never built.
    Holds only the fields `version_constraints` reads, not the whole manifests. Safe to read
    from several threads (a race builds the same value twice).
    """

    __slots__ = ("_built", "_lock", "_manifests", "_name")

    def __init__(self, name: str, manifests: dict[str, dict[str, Any]]) -> None:
        self._name = name
        self._manifests = manifests
        self._built: dict[str, VersionConstraints] = {}
        self._lock = threading.Lock()

    def __getitem__(self, version: str) -> VersionConstraints:
        built = self._built.get(version)
        if built is None:
            built = version_constraints(self._name, version, self._manifests[version])
            with self._lock:
                built = self._built.setdefault(version, built)
        return built

    def __iter__(self) -> Iterator[str]:
        return iter(self._manifests)

    def __len__(self) -> int:
        return len(self._manifests)

    def __contains__(self, version: object) -> bool:
        return version in self._manifests


def version_constraints(name: str, version: str, manifest: Mapping[str, Any]) -> VersionConstraints:
    """What one version manifest declares; `peerDependenciesMeta.<name>.optional` marks optional peers."""
    meta = manifest.get("peerDependenciesMeta")
    optional_peers = {
        peer
        for peer, flags in (meta.items() if isinstance(meta, Mapping) else ())
        if isinstance(flags, Mapping) and flags.get("optional") is True
    }
    reqs: list[Requirement] = []
    for dep in _dependencies(name, version, manifest):
        kind = dep.kind
        if kind == "peer" and dep.name in optional_peers:
            kind = "peer_optional"
        reqs.append(Requirement(name=dep.name, spec=dep.requirement, kind=kind))
    # An optional peer may be declared only in peerDependenciesMeta (any version accepted).
    declared = {r.name for r in reqs if r.kind.startswith("peer")}
    reqs.extend(
        Requirement(name=peer, spec="*", kind="peer_optional")
        for peer in sorted(optional_peers - declared)
    )
    engines = manifest.get("engines")
    node = engines.get("node") if isinstance(engines, Mapping) else None
    return VersionConstraints(
        version=version,
        requirements=tuple(reqs),
        engines={"node": node.strip()} if isinstance(node, str) and node.strip() else {},
        prerelease=is_prerelease(_ECOSYSTEM, version),
        yanked=False,
    )


def parse_publishers(data: Mapping[str, Any]) -> PublisherHistory:
    """
    Per-version publisher facts of a full packument (pure): `_npmUser.name` (who ran `npm publish`),
    the version's `maintainers` list (publish rights at that time), `dist.attestations` (a
    provenance attestation) and `_npmUser.trustedPublisher.id` (an OIDC trusted publisher). Raises
    `PackageNotFound` / `RegistryResponseInvalid` like `parse_constraints`.
    """
    raw_versions = data.get("versions")
    name = _package_name(data, raw_versions)
    manifests = _manifests(name or "?", raw_versions)
    raw_times = data.get("time")
    times: Mapping[str, Any] = raw_times if isinstance(raw_times, Mapping) else {}
    if not name or not manifests:
        if name and ("unpublished" in times or isinstance(raw_versions, Mapping)):
            raise PackageNotFound(_ECOSYSTEM, name)
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "npm body is not a packument",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    pubs: list[Publication] = []
    for version, manifest in manifests.items():
        user = manifest.get("_npmUser")
        publisher = None
        trusted = None
        if isinstance(user, Mapping):
            publisher = as_text(user.get("name"))
            tp = user.get("trustedPublisher")
            if isinstance(tp, Mapping):
                trusted = as_text(tp.get("id")) or "trusted publisher"
        elif isinstance(user, str) and (m := _PERSON.match(user)):
            publisher = m["name"] or None
        raw_maint = manifest.get("maintainers")
        maint = (
            tuple(mm.name for mm in _maintainers(raw_maint))
            if isinstance(raw_maint, list)
            else None
        )
        dist = manifest.get("dist")
        attested = None
        if isinstance(dist, Mapping):
            attested = isinstance(dist.get("attestations"), Mapping)
        pubs.append(
            Publication(
                version=version,
                published_at=_timestamp(name, version, times.get(version)),
                publisher=publisher,
                maintainers=maint,
                attested=attested,
                trusted_publisher=trusted,
            )
        )
    return PublisherHistory(source=REGISTRY_SOURCE, publications=tuple(pubs))
