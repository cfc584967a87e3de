"""
Cargo adapter: crate metadata from the crates.io API, per-version dependencies from the sparse index.

API: https://crates.io/data-access (and the API's own routes) — `GET /api/v1/crates/{name}` gives
the crate (`max_stable_version`, `newest_version`, description, links, `recent_downloads` over 90
days, `badges`) and every version (`num`, `created_at`, `yanked`, `license`); `GET
/api/v1/crates/{name}/owners` the users and teams that may publish. crates.io asks for at most one
request a second from crawlers; one report makes three requests, all concurrent.

Sparse index: https://doc.rust-lang.org/cargo/reference/registry-index.html — one JSON line per
version (`vers`, `deps`, `yanked`) at `index.crates.io/{prefix}/{lowercased name}`, where the prefix
is `1`, `2`, `3/{c}` or `{ab}/{cd}` by name length. Dependencies come from here only: the API's
per-version `dependencies` route would cost a second round trip. When the index has no entry the
report says `dependencies_unavailable` rather than claiming none.

Downloads: crates.io counts over 90 days (`recent_downloads`), not a week, so `downloads_weekly` is
null and the figure is shown with `downloads_window: "90d"`. crates.io has no deprecation flag; the
legacy `maintenance` badge with status `deprecated` is read as one.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx
import orjson

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.json_fields import as_datetime, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.maintainers import Publication, PublisherHistory
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.versions import is_prerelease, is_valid, newest_first, sort_key
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import JSONObject, get_json, get_text
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_BASE_URL: Final = "https://crates.io"
DEFAULT_INDEX_URL: Final = "https://index.crates.io"
REGISTRY_SOURCE: Final = "crates.io"
INDEX_SOURCE: Final = "index.crates.io"
OWNERS_SOURCE: Final = "crates.io owners"
DOWNLOADS_WINDOW: Final = "90d"
AVAILABLE_IN_ERRORS: Final = 10

logger = logging.getLogger(__name__)

_ECOSYSTEM: Final = Ecosystem.CARGO
_CRATE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_DEP_KINDS: Final = {"normal": "runtime", "dev": "dev", "build": "build"}


def index_path(name: str) -> str:
    """The sparse-index path of a crate (`regex` → `re/ge/regex`, `syn` → `3/s/syn`)."""
    lower = name.lower()
    if len(lower) <= 2:
        return f"{len(lower)}/{lower}"
    if len(lower) == 3:
        return f"3/{lower[0]}/{lower}"
    return f"{lower[:2]}/{lower[2:4]}/{lower}"


class CargoAdapter:
    """`RegistryAdapter` for crates.io (API at `base_url`, sparse index at `index_url`)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.CARGO
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = None

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_BASE_URL,
        index_url: str = DEFAULT_INDEX_URL,
    ) -> None:
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._index_url = index_url.rstrip("/")
        self._flights = SharedFetches[JSONObject]()

    async def _index_file(self, name: str) -> tuple[str | None, SourceStatus]:
        return await optional_source(
            lambda: get_text(
                self._client,
                f"{self._index_url}/{index_path(name)}",
                ecosystem=_ECOSYSTEM,
                name=name,
                source=INDEX_SOURCE,
                not_found="none",
            ),
            source=INDEX_SOURCE,
            kind="dependencies",
        )

    publishers_source: ClassVar[str] = REGISTRY_SOURCE

    async def fetch_publishers(self, name: str) -> PublisherHistory:
        """Who published each version (`PublisherHistorySource`): `versions[].published_by`."""
        name = name.strip()
        if not _CRATE_NAME.match(name):
            raise PackageNotFound(_ECOSYSTEM, name)
        return parse_publishers(await self._crate(name))

    async def _crate(self, name: str) -> Mapping[str, Any]:
        """`GET /api/v1/crates/{name}`, one request shared by concurrent callers: a cold report
        asks for the package and its publisher history at once, and crates.io asks crawlers for
        at most one request a second."""
        url = f"{self._base_url}/api/v1/crates/{quote(name)}"
        return await self._flights.get(
            url,
            lambda: get_json(
                self._client, url, ecosystem=_ECOSYSTEM, name=name, source=REGISTRY_SOURCE
            ),
        )

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`: crate, owners and index entry fetched concurrently
        (the index once more, by the crate's own spelling, when `-`/`_` differ from the request)."""
        name = name.strip()
        if not _CRATE_NAME.match(name):
            # crates.io would answer 404 for it anyway; asking would only cost a request.
            raise PackageNotFound(_ECOSYSTEM, name)
        crate_call = self._crate(name)
        owners_call = optional_source(
            lambda: get_json(
                self._client,
                f"{self._base_url}/api/v1/crates/{quote(name)}/owners",
                ecosystem=_ECOSYSTEM,
                name=name,
                source=OWNERS_SOURCE,
                not_found="none",
            ),
            source=OWNERS_SOURCE,
            kind="maintainers",
        )
        crate_task = asyncio.ensure_future(crate_call)
        owners_task = asyncio.ensure_future(owners_call)
        index_task = asyncio.ensure_future(self._index_file(name))
        try:
            crate = await crate_task
            owners, owners_status = await owners_task
            index_text, index_status = await index_task
        except BaseException:
            # Neither side fetch may keep running unobserved (an `asyncio.gather` whose first
            # child failed leaves the others running and its error unretrieved).
            abandon(owners_task, index_task)
            raise
        crate_obj = crate.get("crate")
        canonical = crate_obj.get("name") if isinstance(crate_obj, dict) else None
        if index_text is None and isinstance(canonical, str) and canonical != name:
            # crates.io finds `serde-json` for `serde_json`; the index file has the real spelling.
            index_text, index_status = await self._index_file(canonical)
        index_lines = None
        if index_text is not None:
            try:
                index_lines = parse_index(index_text)
            except RegistryResponseInvalid as exc:
                index_status = SourceStatus(
                    INDEX_SOURCE, "dependencies", SourceState.UNAVAILABLE, None, exc.reason
                )
        return parse_crate(
            crate,
            version=version,
            owners=owners,
            index_lines=index_lines,
            sources=(owners_status, index_status),
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """crates.io counts downloads over 90 days, not a week: always None (see `extra`)."""
        return None


def parse_index(text: str) -> list[dict[str, Any]]:
    """The JSON lines of a sparse-index file; raises `RegistryResponseInvalid` on a non-JSON line."""
    lines: list[dict[str, Any]] = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise RegistryResponseInvalid(
                _ECOSYSTEM,
                "sparse index line is not JSON",
                reason="invalid_json",
                source=INDEX_SOURCE,
            ) from exc
        if isinstance(entry, dict) and isinstance(entry.get("vers"), str):
            lines.append(entry)
    return lines


def parse_crate(
    data: Mapping[str, Any],
    *,
    version: str | None = None,
    owners: Mapping[str, Any] | None = None,
    index_lines: Sequence[Mapping[str, Any]] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    Turn `GET /api/v1/crates/{name}` (plus optional owners and sparse-index lines) into `PackageInfo`.

    Raises `RegistryResponseInvalid` when the body has no `crate` object with a name or no version
    list, `PackageNotFound` when the crate has no versions, `VersionNotFound` when `version` is not
    published. Yanked flags come from the index when it has the version, else from the API.
    """
    crate = data.get("crate")
    raw_versions = data.get("versions")
    if not isinstance(crate, Mapping) or not isinstance(crate.get("name"), str):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "crates.io body has no crate object",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    name: str = crate["name"]
    if not isinstance(raw_versions, list):
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            f"crates.io body for {name!r} has no versions",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    by_index = {str(line["vers"]): line for line in index_lines or ()}
    entries: dict[str, Mapping[str, Any]] = {}
    for item in raw_versions:
        if isinstance(item, Mapping) and isinstance(item.get("num"), str):
            entries.setdefault(item["num"], item)
    if not entries:
        raise PackageNotFound(_ECOSYSTEM, name)

    releases = tuple(
        sorted(
            (_release(num, item, by_index.get(num)) for num, item in entries.items()),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )
    latest = _latest(crate, releases)
    target = latest if version is None else version.strip()
    if target not in entries:
        available = newest_first(_ECOSYSTEM, [rel.version for rel in releases])
        raise VersionNotFound(_ECOSYSTEM, name, target, available=available[:AVAILABLE_IN_ERRORS])

    extra: dict[str, str] = {}
    recent = crate.get("recent_downloads")
    if isinstance(recent, int) and not isinstance(recent, bool) and recent >= 0:
        extra["downloads"] = str(recent)
        extra["downloads_window"] = DOWNLOADS_WINDOW
    dependencies: tuple[Dependency, ...] = ()
    if target in by_index:
        dependencies = _dependencies(by_index[target].get("deps"))
    else:
        extra["dependencies_unavailable"] = (
            "the sparse index did not answer for this crate"
            if index_lines is None
            else f"the sparse index has no entry for {target}"
        )
    deprecation = _maintenance_deprecation(crate.get("badges"))
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=latest,
        description=as_text(crate.get("description")) or "",
        license=spdx_from_cargo(entries[latest].get("license")),
        homepage=as_text(crate.get("homepage")),
        repository=_repository(crate.get("repository")),
        releases=releases,
        maintainers=_owners(owners),
        dependencies=dependencies,
        dependencies_version=target,
        deprecated=deprecation is not None,
        deprecated_message=deprecation,
        keywords=_keywords(crate.get("keywords"), data.get("keywords")),
        extra=extra,
        sources=sources,
    )


def spdx_from_cargo(value: Any) -> str | None:
    """
    The crate's `license` as an SPDX expression: crates.io still serves the pre-2018 `/` separator
    (`MIT/Apache-2.0`), which Cargo documents as meaning OR.
    """
    text = as_text(value)
    if text is None:
        return None
    if "/" in text and " " not in text.strip():
        return " OR ".join(part.strip() for part in text.split("/") if part.strip())
    return text


def _release(num: str, item: Mapping[str, Any], line: Mapping[str, Any] | None) -> Release:
    yanked_value = line.get("yanked") if line is not None else item.get("yanked")
    yanked = yanked_value is True
    return Release(
        version=num,
        published_at=as_datetime(item.get("created_at")),
        yanked=yanked,
        prerelease=is_prerelease(_ECOSYSTEM, num),
        deprecated="yanked from crates.io" if yanked else None,
    )


def _latest(crate: Mapping[str, Any], releases: tuple[Release, ...]) -> str:
    """`max_stable_version`, else the newest stable unyanked version, else `max_version`/newest."""
    known = {rel.version for rel in releases}
    stable = crate.get("max_stable_version")
    if isinstance(stable, str) and stable in known:
        return stable
    candidates = [
        rel
        for rel in releases
        if not rel.yanked and not rel.prerelease and is_valid(_ECOSYSTEM, rel.version)
    ]
    if candidates:
        return candidates[-1].version
    for key in ("max_version", "newest_version"):
        value = crate.get(key)
        if isinstance(value, str) and value in known:
            return value
    return releases[-1].version


def _dependencies(value: Any) -> tuple[Dependency, ...]:
    if not isinstance(value, list):
        return ()
    deps: list[Dependency] = []
    for dep in value:
        if not isinstance(dep, Mapping) or not isinstance(dep.get("name"), str):
            continue
        # `package` is the real crate when the manifest renames the dependency.
        package = dep.get("package")
        real = package if isinstance(package, str) else str(dep["name"])
        kind = _DEP_KINDS.get(str(dep.get("kind") or "normal"), str(dep.get("kind")))
        if kind == "runtime" and dep.get("optional") is True:
            kind = "optional"
        target = dep.get("target")
        deps.append(
            Dependency(
                name=real,
                requirement=str(dep.get("req") or ""),
                kind=kind,
                marker=target if isinstance(target, str) and target else None,
            )
        )
    return tuple(deps)


def _owners(data: Mapping[str, Any] | None) -> tuple[Maintainer, ...]:
    if data is None or not isinstance(data.get("users"), list):
        return ()
    out: list[Maintainer] = []
    for user in data["users"]:
        if not isinstance(user, Mapping):
            continue
        login = as_text(user.get("login"))
        if login:
            role = "team" if user.get("kind") == "team" else "owner"
            out.append(Maintainer(name=login, email=None, role=role))
    return tuple(out)


def _maintenance_deprecation(badges: Any) -> str | None:
    if not isinstance(badges, list):
        return None
    for badge in badges:
        if isinstance(badge, Mapping) and badge.get("badge_type") == "maintenance":
            attrs = badge.get("attributes")
            if isinstance(attrs, Mapping) and attrs.get("status") == "deprecated":
                return "The crate's maintenance badge says deprecated."
    return None


def _keywords(*values: Any) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for value in values:
        if isinstance(value, list):
            for item in value:
                word = (
                    item
                    if isinstance(item, str)
                    else item.get("keyword")
                    if isinstance(item, Mapping)
                    else None
                )
                if isinstance(word, str) and word.strip():
                    seen.setdefault(word.strip(), None)
    return tuple(seen)


def _repository(value: Any) -> str | None:
    return normalise_repository_url(value) if isinstance(value, str) else None


def parse_publishers(crate: Mapping[str, Any]) -> PublisherHistory:
    """Per-version publishers of a `GET /api/v1/crates/{name}` body (pure): `published_by.login`
    (a GitHub login; absent on versions published before crates.io recorded it)."""
    pubs: list[Publication] = []
    versions = crate.get("versions")
    for item in versions if isinstance(versions, list) else ():
        if not isinstance(item, Mapping) or not as_text(item.get("num")):
            continue
        by = item.get("published_by")
        pubs.append(
            Publication(
                version=str(as_text(item.get("num"))),
                published_at=as_datetime(item.get("created_at")),
                publisher=as_text(by.get("login")) if isinstance(by, Mapping) else None,
            )
        )
    return PublisherHistory(source=REGISTRY_SOURCE, publications=tuple(pubs))
