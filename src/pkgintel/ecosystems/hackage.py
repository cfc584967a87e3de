"""
Hackage adapter: package metadata from hackage.haskell.org (hackage-server).

API: https://hackage.haskell.org/api (no auth for reads). Four requests, run concurrently:

| request | gives |
|---|---|
| `GET /package/{name}.json` | every version with its status: `normal`, `unpreferred` or `deprecated` (authoritative; 404 = no such package) |
| `GET /package/{name}` (latest) or `/package/{name}-{version}` (HTML) | synopsis, licence, maintainer field, home page, source repositories, upload time and uploader of that version, dependencies, downloads (`N total (M in the last 30 days)`) |
| `GET /package/{name}/deprecated.json` | `{"is-deprecated": bool, "in-favour-of": [names]}` (package deprecation with its replacements) |
| `GET /package/{name}/{name}.cabal` (highest version) or `/package/{name}-{version}/{name}.cabal` | the version's package description (latest revision): dependencies by component (`domain/trees/cabal.py`); asked again by version when the highest version is not the latest (deprecated) |

Versions are PVP (`domain.versions`, scheme `hackage`). The latest is the highest version whose
status is not `deprecated` (cabal-install's solver prefers those; a deprecated version is still
installable when asked for, so it is `Release.deprecated`, not yanked). The page and the
deprecation document are optional: when one fails, the report keeps the versions, that source is
named `unavailable` in `_meta.sources`, and nothing it would have said is guessed (no licence, no
deprecation verdict — `extra["deprecation_unavailable"]` says so). Upload times come from the
page, so only the version the page describes has a date. Dependencies come from the `.cabal` file
(the library's for Linux/x86_64, GHC 9.8.4, default flags, as `runtime`; other branches
`conditional`, executables' `executable`); without it, from the page, whose list merges every
component and branch (`extra["dependencies_scope"]`). Hackage has no weekly download figure:
the 30-day count is `extra["downloads"]` with `downloads_window: "last 30 days"`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.trees.cabal import (
    GHC_VERSION,
    TARGET_ARCH,
    TARGET_OS,
    declared_version,
    library_dependencies,
    split_top_level,
)
from pkgintel.domain.versions import is_valid, newest_first, sort_key
from pkgintel.ecosystems._html import Cell, clean_text, read_page
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import JSONObject, get_json, get_text
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://hackage.haskell.org"
REGISTRY_SOURCE: Final = "hackage.haskell.org"
PAGE_SOURCE: Final = "hackage.haskell.org package page"
DEPRECATION_SOURCE: Final = "hackage.haskell.org deprecation"
CABAL_SOURCE: Final = "hackage.haskell.org .cabal file"
AVAILABLE_IN_ERRORS: Final = 10
STATUSES: Final = frozenset({"normal", "unpreferred", "deprecated"})

_ECOSYSTEM: Final = Ecosystem.HACKAGE
_DOWNLOADS = re.compile(r"^\s*([\d,]+)\s+total\s*\(\s*([\d,]+)\s+in the last (\d+) days\s*\)")
_UPLOADED = re.compile(r"^by\s+(\S+)\s+at\s+(\S+)")
_SYNOPSIS = re.compile(r"<h1>.*?<small>(.*?)</small>", re.DOTALL | re.IGNORECASE)
_DEP_ITEM = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)\s*(?:\((.*)\))?$")

CABAL_LICENSES: Final[Mapping[str, str]] = {
    # Cabal's legacy `license:` names (before cabal-version 2.2 made the field SPDX) → SPDX.
    "BSD3": "BSD-3-Clause",
    "BSD2": "BSD-2-Clause",
    "BSD4": "BSD-4-Clause",
    "MIT": "MIT",
    "ISC": "ISC",
    "GPL-2": "GPL-2.0-only",
    "GPL-3": "GPL-3.0-only",
    "LGPL-2.1": "LGPL-2.1-only",
    "LGPL-3": "LGPL-3.0-only",
    "AGPL-3": "AGPL-3.0-only",
    "Apache-2": "Apache-2.0",
    "Apache-2.0": "Apache-2.0",
    "MPL-2.0": "MPL-2.0",
}
"""Unambiguous legacy Cabal licence names (https://cabal.readthedocs.io/en/stable/cabal-package-description-file.html#pkg-field-license)
→ SPDX ids; anything else (SPDX already, or `GPL` with no version, `OtherLicense`) is kept as written."""


class HackageAdapter:
    """`RegistryAdapter` for Hackage (or a mirror of hackage-server at `base_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.HACKAGE
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(self, client: httpx.AsyncClient, *, base_url: str = DEFAULT_BASE_URL) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")

    def _url(self, tail: str) -> str:
        return f"{self._base_url}/package/{tail}"

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        pkg = quote(name.strip(), safe="")
        page_path = pkg if version is None else f"{pkg}-{quote(version.strip(), safe='')}"
        common: dict[str, Any] = {"ecosystem": self.ecosystem, "name": name}
        versions_task = asyncio.ensure_future(
            get_json(self._client, self._url(f"{pkg}.json"), source=REGISTRY_SOURCE, **common)
        )
        page_task = asyncio.ensure_future(
            optional_source(
                lambda: get_text(
                    self._client,
                    self._url(page_path),
                    source=PAGE_SOURCE,
                    not_found="none",
                    **common,
                ),
                source=PAGE_SOURCE,
                kind="registry",
            )
        )
        deprecation_task = asyncio.ensure_future(
            optional_source(
                lambda: get_json(
                    self._client,
                    self._url(f"{pkg}/deprecated.json"),
                    source=DEPRECATION_SOURCE,
                    not_found="none",
                    **common,
                ),
                source=DEPRECATION_SOURCE,
                kind="registry",
            )
        )
        # Without a version, `/package/{name}/{name}.cabal` is the highest version's file, which
        # is the latest unless that version is deprecated: asked at once, checked below.
        cabal_task = asyncio.ensure_future(
            self._cabal(name, version.strip() if version is not None else None)
        )
        try:
            body = await versions_task
        except BaseException:
            abandon(page_task, deprecation_task, cabal_task)
            raise
        cabal, cabal_status = await cabal_task
        if version is None and cabal is not None:
            try:
                latest = latest_version(parse_versions(body))
            except BaseException:
                abandon(page_task, deprecation_task)
                raise
            if declared_version(cabal) != latest:
                cabal, cabal_status = await self._cabal(name, latest)
        page, page_status = await page_task
        deprecation, deprecation_status = await deprecation_task
        return parse_package(
            name,
            body,
            page=page,
            deprecation=deprecation,
            version=version,
            cabal=cabal,
            sources=(page_status, deprecation_status, cabal_status),
        )

    async def _cabal(self, name: str, version: str | None) -> tuple[str | None, SourceStatus]:
        """A version's `.cabal` file (its latest revision; the highest version's without one),
        an optional source."""
        pkg = quote(name.strip(), safe="")
        folder = pkg if version is None else f"{pkg}-{quote(version, safe='')}"
        return await optional_source(
            lambda: get_text(
                self._client,
                self._url(f"{folder}/{pkg}.cabal"),
                source=CABAL_SOURCE,
                not_found="none",
                ecosystem=self.ecosystem,
                name=name,
            ),
            source=CABAL_SOURCE,
            kind="registry",
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """Hackage publishes no weekly figure (the page's 30-day count is in `extra`): None."""
        return None


def parse_versions(body: Mapping[str, Any]) -> dict[str, str]:
    """`{version: status}` from `/package/{name}.json`; raises `RegistryResponseInvalid` when the
    body is not such a map."""
    found = {
        str(v).strip(): s
        for v, s in body.items()
        if isinstance(s, str) and s in STATUSES and is_valid(_ECOSYSTEM, str(v))
    }
    if not found:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "hackage.haskell.org sent no version → status map",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    return found


def latest_version(statuses: Mapping[str, str]) -> str:
    """The highest version that is not deprecated (the highest of all when every one is)."""
    preferred = [v for v, s in statuses.items() if s != "deprecated"]
    return newest_first(_ECOSYSTEM, preferred or list(statuses))[0]


def parse_package(
    name: str,
    body: Mapping[str, Any],
    *,
    page: str | None = None,
    deprecation: JSONObject | None = None,
    version: str | None = None,
    cabal: str | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    `PackageInfo` from the version map, the HTML page of the target version (or None) and the
    deprecation document (or None). With the version's `.cabal` text, the dependencies are read
    from it by component (`domain.trees.cabal.library_dependencies`: `runtime` for what the library
    builds with on Linux/x86_64/GHC with default flags, `conditional` and `executable` for the
    rest) and `extra["dependencies_source"]` says so; without it they are the page's summary,
    which merges every component and every `if` branch (`extra["dependencies_scope"]`). Raises `RegistryResponseInvalid` on a body that is no version
    map, `VersionNotFound` when `version` is not released.
    """
    statuses = parse_versions(body)
    latest = latest_version(statuses)
    target = latest if version is None else version.strip()
    if target not in statuses:
        raise VersionNotFound(
            _ECOSYSTEM,
            name,
            target,
            available=newest_first(_ECOSYSTEM, list(statuses))[:AVAILABLE_IN_ERRORS],
        )
    facts = parse_page(page, name=name.strip()) if page is not None else None
    if facts is not None and facts.version not in (None, target):
        facts = None  # a page about another version says nothing about this one
    extra: dict[str, str] = {}
    uploaded = facts.uploaded_at if facts is not None else None
    releases = tuple(
        sorted(
            (
                Release(
                    version=v,
                    published_at=uploaded if v == target else None,
                    deprecated="deprecated on Hackage by its maintainers"
                    if s == "deprecated"
                    else None,
                )
                for v, s in statuses.items()
            ),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    deprecated = False
    message: str | None = None
    if deprecation is None:
        extra["deprecation_unavailable"] = "the Hackage deprecation document did not answer"
    elif deprecation.get("is-deprecated") is True:
        deprecated = True
        favoured = deprecation.get("in-favour-of")
        successors = [
            s.strip()
            for s in (favoured if isinstance(favoured, list) else ())
            if isinstance(s, str) and s.strip()
        ]
        message = "deprecated on Hackage" + (
            f" in favour of {', '.join(successors)}" if successors else ""
        )
        if successors:
            extra["deprecated_successor"] = successors[0]
    by_component = library_dependencies(cabal, own=name.strip()) if cabal is not None else None
    if by_component is not None:
        extra["dependencies_source"] = (
            f"the .cabal file: library on {TARGET_OS}/{TARGET_ARCH}, GHC {GHC_VERSION}, "
            "default flags"
        )
    if facts is None:
        if by_component is None:
            extra["dependencies_unavailable"] = "the Hackage package page did not answer"
        extra["downloads_unavailable"] = "the Hackage package page did not answer"
        return PackageInfo(
            ecosystem=_ECOSYSTEM,
            name=name.strip(),
            latest_version=latest,
            releases=releases,
            dependencies=by_component or (),
            dependencies_version=target if by_component is not None else None,
            deprecated=deprecated,
            deprecated_message=message,
            extra=extra,
            sources=sources,
        )
    dependencies = facts.dependencies
    if by_component is not None:
        dependencies = by_component
    else:
        extra["dependencies_scope"] = (
            "all components: the package page merges the library's, sub-libraries' and "
            "executables' build-depends and every conditional branch"
        )
    if facts.downloads_30d is not None:
        extra["downloads"] = str(facts.downloads_30d)
        extra["downloads_window"] = "last 30 days"
    if facts.downloads_total is not None:
        extra["downloads.total"] = str(facts.downloads_total)
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name.strip(),
        latest_version=latest,
        description=facts.synopsis or "",
        license=facts.license,
        homepage=facts.homepage,
        repository=facts.repository,
        releases=releases,
        maintainers=facts.maintainers,
        dependencies=dependencies,
        dependencies_version=target,
        deprecated=deprecated,
        deprecated_message=message,
        extra=extra,
        sources=sources,
    )


class PageFacts:
    """What one Hackage package page says about the version it shows."""

    __slots__ = (
        "dependencies",
        "downloads_30d",
        "downloads_total",
        "homepage",
        "license",
        "maintainers",
        "repository",
        "synopsis",
        "uploaded_at",
        "version",
    )

    def __init__(self) -> None:
        self.version: str | None = None
        self.synopsis: str | None = None
        self.license: str | None = None
        self.homepage: str | None = None
        self.repository: str | None = None
        self.maintainers: tuple[Maintainer, ...] = ()
        self.dependencies: tuple[Dependency, ...] = ()
        self.uploaded_at: datetime | None = None
        self.downloads_total: int | None = None
        self.downloads_30d: int | None = None


def parse_page(markup: str, *, name: str) -> PageFacts:
    """Facts of a Hackage package page (`/package/{name}` or `/package/{name}-{version}`)."""
    page = read_page(markup)
    props = page.properties
    facts = PageFacts()
    versions = next((c for label, c in props.items() if label.startswith("Versions")), None)
    if versions is not None:
        facts.version = _current_version(versions)
    m = _SYNOPSIS.search(markup)
    if m:
        facts.synopsis = clean_text(re.sub(r"<[^>]+>", "", m[1])) or None
    lic = props.get("License")
    if lic is not None and lic.text:
        facts.license = CABAL_LICENSES.get(lic.text, lic.text)
    home = props.get("Home page")
    home_url = next((u for u in home.links if u.startswith("http")), None) if home else None
    repo_cell = props.get("Source repo")
    candidates = [*(repo_cell.links if repo_cell else []), *([home_url] if home_url else [])]
    facts.repository = next(
        (r for r in (normalise_repository_url(u, forges_only=True) for u in candidates) if r),
        None,
    )
    facts.homepage = home_url
    people: dict[str, Maintainer] = {}
    maint = props.get("Maintainer")
    if maint is not None:
        for person in _people(maint.text):
            people.setdefault(person.name.lower(), person)
    uploaded = props.get("Uploaded")
    if uploaded is not None:
        up = _UPLOADED.match(uploaded.text)
        if up:
            facts.uploaded_at = as_datetime(up[2])
            if not people:  # the uploader stands in only when the maintainer field names nobody
                people[up[1].lower()] = Maintainer(up[1], None, "uploader")
    facts.maintainers = tuple(people.values())
    deps = props.get("Dependencies")
    if deps is not None:
        facts.dependencies = _dependencies(deps, own=name)
    downloads = props.get("Downloads")
    if downloads is not None:
        dl = _DOWNLOADS.match(downloads.text)
        if dl and dl[3] == "30":
            facts.downloads_total = int(dl[1].replace(",", ""))
            facts.downloads_30d = int(dl[2].replace(",", ""))
    return facts


def _current_version(cell: Cell) -> str | None:
    """The version the page shows: the one listed in the Versions row without a link."""
    linked = set(cell.link_texts)
    for item in cell.text.split(","):
        token = item.strip().split(" ")[0]
        if token and token not in linked and is_valid(_ECOSYSTEM, token):
            return token
    return None


def _people(text: str) -> list[Maintainer]:
    """`Ann <ann@x.org>, bob@y.org` → maintainers (the name, else the address)."""
    out: list[Maintainer] = []
    for part in split_top_level(text):
        part = part.strip()
        if not part:
            continue
        m = re.match(r"^(.*?)\s*<([^<>]+)>\s*$", part)
        if m:
            who, email = m[1].strip(), m[2].strip()
            out.append(Maintainer(who or email, email, "maintainer"))
        else:
            email = part if "@" in part and " " not in part else None
            out.append(Maintainer(part, email, "maintainer"))
    return out


def _dependencies(cell: Cell, *, own: str) -> tuple[Dependency, ...]:
    """`base (>=4.7 && <5), bytestring, ... [details]` → dependencies (the package's own library,
    listed when its executables use it, is left out)."""
    text = re.sub(r"\[\s*details\s*\]\s*$", "", cell.text).strip()
    deps: dict[str, Dependency] = {}
    for item in split_top_level(text, opening="({", closing=")}"):
        m = _DEP_ITEM.match(item.strip())
        if not m or m[1] == own:
            continue
        deps.setdefault(m[1], Dependency(m[1], (m[2] or "").strip()))
    return tuple(deps.values())
