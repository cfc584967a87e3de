"""
JSR adapter: package metadata from jsr.io's registry files and the api.jsr.io package API.

Registry protocol: https://jsr.io/docs/api (the `meta.json` files Deno reads; no auth, cached by a CDN).

| request | gives |
|---|---|
| `GET jsr.io/@{scope}/{name}/meta.json` | `latest`, every version with `createdAt` and `yanked` — the authoritative answer |
| `GET jsr.io/@{scope}/{name}/{version}_meta.json` | that version's `manifest` (files), `exports` and `moduleGraph2`/`moduleGraph1`, whose `jsr:`/`npm:` import specifiers are its dependencies |
| `GET api.jsr.io/scopes/{scope}/packages/{name}` | `description`, `githubRepository`, `score` (the JSR score, 0-100), `runtimeCompat`, `isArchived`, `license` when given |

Names are always `@scope/name` (lower-case letters, digits and `-`). With a version asked for, the
three requests run concurrently; without, the version document can only be asked for once
`meta.json` names the latest (two sequential requests). The version document and the package API
are secondary: when either fails, the report is still given, with that source `unavailable` in
`_meta.sources` and `extra["dependencies_unavailable"]` when the imports could not be read.

Yanked versions stay downloadable by exact version but are skipped by resolution: `yanked=True`.
An archived package (read-only, no new versions) is deprecated with that as its message. JSR's
registry files and package document carry no download counts, so downloads are null with
`extra["downloads_unavailable"]`; JSR lists no per-package maintainers either (scopes have members).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import InvalidInput, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import JSONObject, get_json
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://jsr.io"
DEFAULT_API_URL: Final = "https://api.jsr.io"
REGISTRY_SOURCE: Final = "jsr.io"
VERSION_SOURCE: Final = "jsr.io version metadata"
API_SOURCE: Final = "api.jsr.io"
AVAILABLE_IN_ERRORS: Final = 10
NO_DOWNLOADS: Final = "JSR's registry files and package API give no download counts"

_NAME = re.compile(r"^@([a-z0-9][a-z0-9-]*)/([a-z0-9][a-z0-9-]*)$")
_JSR_SPECIFIER = re.compile(r"^jsr:/?(@[a-z0-9][a-z0-9-]*/[a-z0-9][a-z0-9-]*)(?:@([^/]+))?")
_NPM_SPECIFIER = re.compile(r"^npm:/?((?:@[^/@\s]+/)?[^/@\s]+)(?:@([^/]+))?")

_ECOSYSTEM: Final = Ecosystem.JSR


def split_name(name: str) -> tuple[str, str]:
    """`("std", "path")` for `@std/path`; raises `InvalidInput` for anything that is not `@scope/name`."""
    m = _NAME.match(name.strip().removeprefix("jsr:"))
    if not m:
        raise InvalidInput("package", f"{name.strip()!r} is not a JSR name (`@scope/name`)")
    return m[1], m[2]


class JsrAdapter:
    """`RegistryAdapter` for jsr.io (or a mirror at `base_url`, with its API at `api_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.JSR
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_url: str = DEFAULT_API_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._api_url = api_url.rstrip("/")

    def _file(self, scope: str, name: str, file: str) -> str:
        return f"{self._base_url}/@{scope}/{name}/{file}"

    async def _version_meta(self, package: str, version: str) -> JSONObject | None:
        scope, name = split_name(package)
        return await get_json(
            self._client,
            self._file(scope, name, f"{quote(version.strip(), safe='')}_meta.json"),
            ecosystem=self.ecosystem,
            name=package,
            source=VERSION_SOURCE,
            not_found="none",
        )

    async def _api(self, package: str) -> JSONObject | None:
        scope, name = split_name(package)
        return await get_json(
            self._client,
            f"{self._api_url}/scopes/{scope}/packages/{name}",
            ecosystem=self.ecosystem,
            name=package,
            source=API_SOURCE,
            not_found="none",
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        scope, short = split_name(name)
        package = f"@{scope}/{short}"
        meta_task = asyncio.ensure_future(
            get_json(
                self._client,
                self._file(scope, short, "meta.json"),
                ecosystem=self.ecosystem,
                name=package,
                source=self.registry_source,
            )
        )
        api_task = asyncio.ensure_future(
            optional_source(lambda: self._api(package), source=API_SOURCE, kind="registry")
        )
        version_task = (
            asyncio.ensure_future(self._version_doc(package, version.strip()))
            if version is not None
            else None
        )
        try:
            meta = await meta_task
        except BaseException:
            abandon(api_task)
            if version_task is not None:
                abandon(version_task)
            raise
        if version_task is None:
            target = as_text(meta.get("latest")) or _highest(meta)
            version_task = asyncio.ensure_future(self._version_doc(package, target or ""))
        (version_doc, version_status), (api_doc, api_status) = await asyncio.gather(
            version_task, api_task
        )
        return parse_package(
            meta,
            version=version,
            version_meta=version_doc,
            api=api_doc,
            sources=(version_status, api_status),
        )

    async def _version_doc(
        self, package: str, version: str
    ) -> tuple[JSONObject | None, SourceStatus]:
        if not version:
            return None, SourceStatus(
                VERSION_SOURCE, "registry", SourceState.UNAVAILABLE, None, "no version to read"
            )
        return await optional_source(
            lambda: self._version_meta(package, version), source=VERSION_SOURCE, kind="registry"
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: JSR publishes no download counts in the documents read here."""
        return None


def _highest(meta: Mapping[str, Any]) -> str | None:
    listed = [v for v in as_object(meta.get("versions")) if isinstance(v, str)]
    stable = [v for v in listed if not is_prerelease(_ECOSYSTEM, v)]
    ordered = newest_first(_ECOSYSTEM, stable or listed)
    return ordered[0] if ordered else None


def parse_package(
    meta: Mapping[str, Any],
    *,
    version: str | None = None,
    version_meta: Mapping[str, Any] | None = None,
    api: Mapping[str, Any] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    Turn `meta.json` (+ the target version's `_meta.json` and the api.jsr.io package document,
    either may be None) into `PackageInfo`.

    Raises `RegistryResponseInvalid` when `meta.json` has no scope, name or versions object, and
    `VersionNotFound` when `version` is not published.
    """
    scope, short = as_text(meta.get("scope")), as_text(meta.get("name"))
    raw = meta.get("versions")
    if not scope or not short or not isinstance(raw, Mapping) or not raw:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "jsr.io meta.json has no scope, name or versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    name = f"@{scope}/{short}"
    releases = tuple(
        sorted(
            (
                Release(
                    version=v.strip(),
                    published_at=as_datetime(as_object(data).get("createdAt")),
                    yanked=as_object(data).get("yanked") is True,
                    yanked_reason="yanked" if as_object(data).get("yanked") is True else None,
                    prerelease=is_prerelease(_ECOSYSTEM, v.strip()),
                )
                for v, data in raw.items()
                if isinstance(v, str) and v.strip()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    listed = {rel.version for rel in releases}
    latest = as_text(meta.get("latest"))
    if latest not in listed:
        latest = _highest(meta) or releases[-1].version
    target = latest if version is None else version.strip()
    if target not in listed:
        available = newest_first(_ECOSYSTEM, list(listed))
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])

    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    deps: tuple[Dependency, ...] = ()
    graph = None
    if version_meta is not None:
        graph = version_meta.get("moduleGraph2") or version_meta.get("moduleGraph1")
    if isinstance(graph, Mapping):
        deps = dependencies(graph)
        exports = version_meta.get("exports") if version_meta is not None else None
        if isinstance(exports, Mapping):
            extra["exports_count"] = str(len(exports))
    else:
        extra["dependencies_unavailable"] = (
            "jsr.io version metadata unavailable"
            if version_meta is None
            else "jsr.io version metadata has no module graph"
        )

    doc = as_object(api)
    repository = None
    gh = as_object(doc.get("githubRepository"))
    if as_text(gh.get("owner")) and as_text(gh.get("name")):
        repository = f"https://github.com/{gh['owner'].strip()}/{gh['name'].strip()}"
    score = doc.get("score")
    if isinstance(score, int) and not isinstance(score, bool):
        extra["jsr_score"] = str(score)
    runtimes = [k for k, v in as_object(doc.get("runtimeCompat")).items() if v is True]
    if runtimes:
        extra["runtime_compat"] = ", ".join(sorted(runtimes))
    archived = doc.get("isArchived") is True
    if archived:
        extra["archived"] = "true"
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(doc.get("description")) or "",
        license=as_text(doc.get("license")),
        homepage=None,  # the registry documents name no home page
        repository=repository,
        releases=releases,
        dependencies=deps,
        dependencies_version=target,
        deprecated=archived,
        deprecated_message=(
            "archived on JSR: read-only, no new versions will be published" if archived else None
        ),
        extra=extra,
        sources=sources,
    )


def dependencies(graph: Mapping[str, Any]) -> tuple[Dependency, ...]:
    """
    The `jsr:` and `npm:` packages a version imports, from its module graph (`moduleGraph2` or
    `moduleGraph1`: `{module path: {"dependencies": [{"specifier": ...}]}}`). npm packages are
    named `npm:<name>`; the requirement is the range written in the specifier (`^1.0.0`), empty
    when none. Relative and URL imports are not packages and are skipped.
    """
    found: dict[str, Dependency] = {}
    for specifier in _specifiers(graph):
        if m := _JSR_SPECIFIER.match(specifier):
            dep = Dependency(m[1], m[2] or "")
        elif m := _NPM_SPECIFIER.match(specifier):
            dep = Dependency(f"npm:{m[1]}", m[2] or "")
        else:
            continue
        found.setdefault(dep.name, dep)
    return tuple(found.values())


def _specifiers(graph: Mapping[str, Any]) -> Iterator[str]:
    for module in graph.values():
        for dep in as_object(module).get("dependencies") or ():
            spec = dep.get("specifier") if isinstance(dep, Mapping) else None
            if isinstance(spec, str):
                yield spec.strip()


__all__ = ["JsrAdapter", "dependencies", "parse_package", "split_name"]
