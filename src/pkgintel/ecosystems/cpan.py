"""
CPAN adapter: distribution metadata from the MetaCPAN API (https://github.com/metacpan/metacpan-api/blob/master/docs/API-docs.md).

A CPAN package is a *distribution* (`Plack`, `libwww-perl`); people usually name a *module*
(`Plack::Request`, `LWP::UserAgent`). `Module::Name` is read as the distribution `Module-Name`
first (the CPAN convention); when MetaCPAN has no such distribution and the name is a module
spelling, `GET /v1/module/{Module::Name}` says which distribution ships it.

| request | gives |
|---|---|
| `GET /v1/release/{dist}` | the latest release: version, date, `author` (PAUSE id), `metadata.author`, `license` (CPAN::Meta names), `resources`, `abstract`, `deprecated`, `dependency` (module, phase, relationship, version) |
| `GET /v1/release/_search?fields=version,date&q=distribution:{dist}&size=5000` | every release's version and date (run concurrently with the first) |
| `GET /v1/release/_search?q=distribution:{dist} AND version:"{v}"&size=1` | the release document of a requested older version (its dependencies) |
| `GET /v1/module/{Module::Name}` | the distribution of a module (only when the name did not resolve as a distribution, or when that distribution's latest release does not ship the module) |

Versions are kept as MetaCPAN spells them (decimal `1.0048` or dotted `v1.21.5`) and ordered by
Perl's `version.pm` rules (`domain/versions/cpan.py`); `_` marks a developer release.
The release search is not asked for `status`, so releases deleted to BackPAN are listed like the
others. MetaCPAN has no download counts: the weekly figure is null with `downloads_unavailable`.

Licences are CPAN::Meta::Spec names (`perl_5`, `gpl_2`, ...); each is mapped to the SPDX
expression Software::License gives it (https://github.com/Perl-Toolchain-Gang/Software-License),
the registry's own spelling kept as `license_registry`. Dependencies: runtime `requires` are
`runtime`, runtime `recommends`/`suggests` are `optional`, configure/build/test `requires` are
`dev`; `develop` prerequisites and the `perl` pseudo-module are left out (`requires_perl` keeps
the minimum perl). `extra` keeps the release's `main_module` and its `provides` (the modules it
ships, space-separated; read by CPAN trees, `services/trees/cpan.py`, not shown in reports).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryError,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_datetime, as_object, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.versions import is_prerelease, newest_first, sort_key, versions_equal
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.transport.fetch import JSONObject, get_json
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://fastapi.metacpan.org"
REGISTRY_SOURCE: Final = "fastapi.metacpan.org"
AVAILABLE_IN_ERRORS: Final = 10
NO_DOWNLOADS: Final = "MetaCPAN publishes no download counts"

LICENSES: Final[Mapping[str, str]] = {
    "agpl_3": "AGPL-3.0-only",
    "apache_1_1": "Apache-1.1",
    "apache_2_0": "Apache-2.0",
    "artistic_1": "Artistic-1.0",
    "artistic_2": "Artistic-2.0",
    "bsd": "BSD-3-Clause",
    "freebsd": "BSD-2-Clause",
    "gfdl_1_2": "GFDL-1.2-or-later",
    "gfdl_1_3": "GFDL-1.3-or-later",
    "gpl_1": "GPL-1.0-only",
    "gpl_2": "GPL-2.0-only",
    "gpl_3": "GPL-3.0-only",
    "lgpl_2_1": "LGPL-2.1-only",
    "lgpl_3_0": "LGPL-3.0-only",
    "mit": "MIT",
    "mozilla_1_0": "MPL-1.0",
    "mozilla_1_1": "MPL-1.1",
    "openssl": "OpenSSL",
    "perl_5": "Artistic-1.0-Perl OR GPL-1.0-or-later",
    "qpl_1_0": "QPL-1.0",
    "sun": "SISSL",
    "zlib": "Zlib",
}
"""CPAN::Meta::Spec licence names → SPDX (as Software::License's `spdx_expression`). `open_source`,
`restricted`, `unrestricted`, `unknown` and `ssleay` have no SPDX identifier: licence unknown."""

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.CPAN
_PERSON = re.compile(r"^\s*(?P<name>[^<]*?)\s*(?:<(?P<email>[^>]*)>)?\s*$")
_MODULE: Final = re.compile(r"[A-Za-z_]\w*(?:::\w+)*")
_LUCENE_SPECIAL = re.compile(r'([+!(){}\[\]^"~*?:\\/&|])')
"""Lucene query-syntax characters escaped in a distribution name (`-` inside a term is literal)."""


def distribution_name(name: str) -> str:
    """`Module::Name` → `Module-Name` (the distribution a module name conventionally maps to)."""
    return name.strip().replace("::", "-")


def _lucene(value: str) -> str:
    return _LUCENE_SPECIAL.sub(r"\\\1", value)


class CpanAdapter:
    """`RegistryAdapter` for CPAN through MetaCPAN (or a mirror of its API at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.CPAN
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    def release_url(self, dist: str) -> str:
        return f"{self._base_url}/v1/release/{quote(dist, safe='')}"

    def versions_url(self, dist: str) -> str:
        # The query is written out (not `params=`) so that it reads as MetaCPAN documents it.
        return (
            f"{self._base_url}/v1/release/_search?fields=version,date"
            f"&q=distribution:{quote(_lucene(dist), safe='')}&size=5000"
        )

    def version_url(self, dist: str, version: str) -> str:
        query = f'distribution:{_lucene(dist)} AND version:"{version.replace(chr(34), "")}"'
        return f"{self._base_url}/v1/release/_search?q={quote(query, safe=':')}&size=1"

    def module_url(self, module: str) -> str:
        return f"{self._base_url}/v1/module/{quote(module, safe=':')}"

    async def _get(self, url: str, name: str) -> JSONObject:
        return await get_json(
            self._client, url, ecosystem=self.ecosystem, name=name, source=self.registry_source
        )

    async def _resolve(self, name: str) -> tuple[str, JSONObject, JSONObject]:
        """
        (distribution, latest release document, release search) for `name`. A `Module::Name`
        spelling whose same-named distribution does not ship that module (its latest release's
        `provides` lists others) is looked up in the module index too, and read as the
        distribution that ships it when that is another one.
        """
        dist = distribution_name(name)
        try:
            release, search = await self._both(dist, name)
        except PackageNotFound:
            module = name.strip().replace("-", "::")
            if not _MODULE.fullmatch(module):
                raise
            shipped = await self._module_distribution(module, name)
            if shipped is None or shipped == dist:
                raise PackageNotFound(_ECOSYSTEM, name) from None
            return shipped, *await self._both(shipped, name)
        module = name.strip()
        if "::" in module and _MODULE.fullmatch(module) and ships(release, module) is False:
            shipped = await self._module_distribution(module, name)
            if shipped is not None and shipped != dist:
                return shipped, *await self._both(shipped, name)
        return dist, release, search

    async def _module_distribution(self, module: str, name: str) -> str | None:
        """The distribution MetaCPAN's module index says ships `module` (None when unknown)."""
        doc = await get_json(
            self._client,
            self.module_url(module),
            ecosystem=self.ecosystem,
            name=name,
            source=self.registry_source,
            not_found="none",
        )
        return as_text(doc.get("distribution")) if doc is not None else None

    async def _both(self, dist: str, name: str) -> tuple[JSONObject, JSONObject]:
        release_task = asyncio.ensure_future(self._get(self.release_url(dist), name))
        search_task = asyncio.ensure_future(self._get(self.versions_url(dist), name))
        try:
            release = await release_task
            search = await search_task
        except BaseException:
            abandon(release_task, search_task)
            raise
        return release, search

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        dist, latest_doc, search = await self._resolve(name)
        listed = parse_versions(search)
        latest = as_text(latest_doc.get("version"))
        target_doc: Mapping[str, Any] | None = latest_doc
        release_error: str | None = None
        if version is not None and not (latest and versions_equal(_ECOSYSTEM, version, latest)):
            known = [v for v, _ in listed]
            match = next((v for v in known if versions_equal(_ECOSYSTEM, v, version.strip())), None)
            if match is None:
                available = newest_first(_ECOSYSTEM, known)[:AVAILABLE_IN_ERRORS]
                raise VersionNotFound(_ECOSYSTEM, dist, version.strip(), available=available)
            target_doc = None
            try:
                found = await self._get(self.version_url(dist, match), name)
                target_doc = _first_hit_source(found)
            except PackageNotFound:
                release_error = "no release document"
            except RegistryError as exc:
                logger.info(
                    "cpan %s %s: release document unavailable (%s)", dist, match, exc.reason
                )
                release_error = exc.reason
            if target_doc is None:
                release_error = release_error or "no release document"
            return parse_release(
                latest_doc,
                listed,
                target=target_doc,
                target_version=match,
                release_error=release_error,
            )
        return parse_release(latest_doc, listed)

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Always None: MetaCPAN has no download counts."""
        return None


def ships(doc: Mapping[str, Any], module: str) -> bool | None:
    """Whether the release document `doc` ships `module` (its `main_module` or listed in
    `provides`); None when the document lists no `provides`."""
    if as_text(doc.get("main_module")) == module:
        return True
    provides = doc.get("provides")
    if not isinstance(provides, list) or not provides:
        return None
    return module in provides


def _first_hit_source(body: Mapping[str, Any]) -> Mapping[str, Any] | None:
    hits = as_object(body.get("hits")).get("hits")
    if isinstance(hits, list) and hits and isinstance(hits[0], Mapping):
        source = hits[0].get("_source")
        return source if isinstance(source, Mapping) else None
    return None


def parse_versions(body: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """
    `(version, date)` of every hit of a release search (`fields` hits carry `fields`, full hits
    `_source`). Raises `RegistryResponseInvalid` when the body is not a search answer.
    """
    hits = as_object(body.get("hits")).get("hits")
    if not isinstance(hits, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "MetaCPAN release search answer has no hits list",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    out: dict[str, str | None] = {}
    for hit in hits:
        if not isinstance(hit, Mapping):
            continue
        doc = as_object(hit.get("fields")) or as_object(hit.get("_source"))
        version = _scalar(doc.get("version"))
        if version:
            out.setdefault(version, _scalar(doc.get("date")))
    return list(out.items())


def parse_release(
    latest_doc: Mapping[str, Any],
    listed: list[tuple[str, str | None]],
    *,
    target: Mapping[str, Any] | None = None,
    target_version: str | None = None,
    release_error: str | None = None,
) -> PackageInfo:
    """
    `PackageInfo` from the latest release document, the list of every release, and the document
    of the requested release (`target`, the latest when `target_version` is None).

    Raises `RegistryResponseInvalid` when the release document has no distribution or version.
    """
    dist = as_text(latest_doc.get("distribution"))
    latest = as_text(latest_doc.get("version"))
    if not dist or not latest:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "MetaCPAN release document has no distribution or version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    dates = {v: as_datetime(d) for v, d in listed}
    dates.setdefault(latest, as_datetime(latest_doc.get("date")))
    releases = tuple(
        sorted(
            (
                Release(v, published_at=when, prerelease=is_prerelease(_ECOSYSTEM, v))
                for v, when in dates.items()
            ),
            key=lambda r: sort_key(_ECOSYSTEM, r.version),
        )
    )
    extra: dict[str, str] = {"downloads_unavailable": NO_DOWNLOADS}
    main_module = as_text(latest_doc.get("main_module"))
    if main_module:
        extra["main_module"] = main_module
        extra["install_name"] = main_module
    maturity = as_text(latest_doc.get("maturity"))
    if maturity:
        extra["maturity"] = maturity
    deps_doc = latest_doc if target_version is None else target
    deps: tuple[Dependency, ...] = ()
    if deps_doc is not None:
        deps, perl = _dependencies(deps_doc.get("dependency"))
        if perl:
            extra["requires_perl"] = perl
        provides = _strings(deps_doc.get("provides"))
        if provides:
            extra["provides"] = " ".join(provides)
    else:
        extra["dependencies_unavailable"] = (
            f"MetaCPAN release document of {target_version} unavailable ({release_error})"
        )
    licences = [s for s in _strings(latest_doc.get("license")) if s]
    spdx = [LICENSES.get(s) for s in licences]
    license_expr: str | None = None
    if licences:
        extra["license_registry"] = " ".join(licences)
        if all(spdx):
            parts = [f"({s})" if " OR " in str(s) and len(spdx) > 1 else str(s) for s in spdx]
            license_expr = " AND ".join(dict.fromkeys(parts))
    resources = as_object(latest_doc.get("resources"))
    repo = as_object(resources.get("repository"))
    repo_url = as_text(repo.get("web")) or as_text(repo.get("url"))
    deprecated = latest_doc.get("deprecated") is True
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=dist,
        latest_version=latest,
        description=as_text(latest_doc.get("abstract")) or "",
        license=license_expr,
        homepage=as_text(resources.get("homepage")),
        repository=normalise_repository_url(repo_url) if repo_url else None,
        releases=releases,
        maintainers=_maintainers(latest_doc),
        dependencies=deps,
        dependencies_version=target_version or latest,
        deprecated=deprecated,
        deprecated_message="marked deprecated by its author (x_deprecated)" if deprecated else None,
        keywords=tuple(_strings(as_object(latest_doc.get("metadata")).get("keywords"))),
        extra=extra,
    )


def _dependencies(value: Any) -> tuple[tuple[Dependency, ...], str | None]:
    if not isinstance(value, list):
        return (), None
    deps: dict[tuple[str, str], Dependency] = {}
    perl: str | None = None
    for item in value:
        if not isinstance(item, Mapping):
            continue
        module = as_text(item.get("module"))
        phase = as_text(item.get("phase")) or "runtime"
        relationship = as_text(item.get("relationship")) or "requires"
        requirement = _scalar(item.get("version")) or ""
        if not module or phase == "develop":
            continue
        if module == "perl":
            if phase == "runtime" and relationship == "requires":
                perl = requirement or None
            continue
        if phase == "runtime":
            kind = "runtime" if relationship == "requires" else "optional"
        elif relationship == "requires":
            kind = "dev"
        else:
            continue
        deps.setdefault((module, kind), Dependency(module, requirement, kind))
    return tuple(deps.values()), perl


def _maintainers(doc: Mapping[str, Any]) -> tuple[Maintainer, ...]:
    """The uploader's PAUSE id, then the people `metadata.author` names (`Name <email>`)."""
    found: dict[str, Maintainer] = {}
    uploader = as_text(doc.get("author"))
    if uploader:
        found[uploader.lower()] = Maintainer(uploader, None, "uploader")
    for person in _strings(as_object(doc.get("metadata")).get("author")):
        m = _PERSON.match(person)
        if not m or not m["name"]:
            continue
        email = (m["email"] or "").strip() or None
        found.setdefault(m["name"].lower(), Maintainer(m["name"], email, "author"))
    return tuple(found.values())


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value.strip()]
    if isinstance(value, list):
        return [v.strip() for v in value if isinstance(v, str) and v.strip()]
    return []


def _scalar(value: Any) -> str | None:
    """A string or number field (`fields` answers may wrap it in a one-item list)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return str(value)
    return as_text(value)
