"""
CRAN adapter: R packages from Posit Package Manager's API, CRAN's own pages and cranlogs.

| request | gives |
|---|---|
| `GET {ppm}/packages/{name}` (Posit Package Manager, CRAN repository: `…/__api__/repos/2`) | current version with `date_publication`, `archived` (every earlier version with its date and licence), `license`, `title`, `maintainer`, `url`, `bug_reports`, the DESCRIPTION fields `depends`/`imports`/`linking_to`/`suggests`, `vulns` per version (R Consortium advisories) |
| `GET {cran}/web/packages/{name}/index.html` | the CRAN page: `Package ‘x’ was removed from the CRAN repository.` and `Archived on <date> as <reason>.` when the package is archived (the deprecation), else its Version/Published/License/Maintainer table |
| `GET {cran}/src/contrib/Archive/{name}/` | the archive listing (`x_<version>.tar.gz` with its date), read only when Package Manager does not know the package |
| `GET {cranlogs}/downloads/total/last-week/{name}` | `[{"start", "end", "downloads", "package"}]`: the weekly figure |
| `GET {cranlogs}/downloads/total/last-month/{name}` | the 30-day figure, used only when the weekly one is not available (`downloads_window` names the dates) |

The Package Manager document, the CRAN page and both cranlogs counts are requested concurrently
(the last-month one is dropped when the weekly one answers).
When Package Manager has no such package (404) but CRAN has a page (a package removed from CRAN,
or one the mirror has not caught up with), the report is built from the page and the archive
listing. Only when both say 404 is the package unknown.

Versions are R `package_version`s (`domain.versions`, scheme `cran`). Licences are mapped from
R's license specifications (`GPL-2 | GPL-3`, `GPL (>= 2)`, `MIT + file LICENSE`; "Writing R
Extensions" §1.1.2 and R's `share/licenses/license.db`) to SPDX by `spdx_from_r`; a
specification with a part we cannot map unambiguously is kept as written. `R (>= x)` in Depends is
`extra["requires_r"]`, not a dependency. Dependencies are known for the current version only.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, ClassVar, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    VersionNotFound,
)
from pkgintel.domain.json_fields import as_datetime, as_text
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer, PackageInfo, Release
from pkgintel.domain.signals.provenance import SourceStatus
from pkgintel.domain.versions import is_valid, newest_first, sort_key
from pkgintel.ecosystems._html import read_page
from pkgintel.ecosystems._urls import normalise_repository_url
from pkgintel.ecosystems.secondary_source import optional_source
from pkgintel.transport.fetch import JSONArray, JSONObject, get_json, get_json_array, get_text
from pkgintel.transport.memo import SharedFetches
from pkgintel.transport.side_tasks import abandon

DEFAULT_PPM_URL: Final = "https://packagemanager.posit.co/__api__/repos/2"
DEFAULT_CRAN_URL: Final = "https://cran.r-project.org"
DEFAULT_CRANLOGS_URL: Final = "https://cranlogs.r-pkg.org"
REGISTRY_SOURCE: Final = "packagemanager.posit.co"
PAGE_SOURCE: Final = "cran.r-project.org"
ARCHIVE_SOURCE: Final = "cran.r-project.org archive"
DOWNLOADS_SOURCE: Final = "cranlogs.r-pkg.org"
AVAILABLE_IN_ERRORS: Final = 10

_ECOSYSTEM: Final = Ecosystem.CRAN
_REMOVED = re.compile(r"was removed from the CRAN repository", re.IGNORECASE)
_ARCHIVED_ON = re.compile(r"^Archived on (\d{4}-\d{2}-\d{2})(.*)$")
_DEP_ITEM = re.compile(r"^([A-Za-z][A-Za-z0-9.]*)\s*(?:\(\s*([^()]*?)\s*\))?$")
_URL = re.compile(r"https?://[^\s,;<>]+")

# R licence short specifications → SPDX ids (R's share/licenses/license.db; "Writing R
# Extensions" §1.1.2). Version restrictions are handled by `_RESTRICTED`.
R_LICENSES: Final[Mapping[str, str]] = {
    "GPL-2": "GPL-2.0-only",
    "GPL-3": "GPL-3.0-only",
    "LGPL-2": "LGPL-2.0-only",
    "LGPL-2.1": "LGPL-2.1-only",
    "LGPL-3": "LGPL-3.0-only",
    "AGPL-3": "AGPL-3.0-only",
    "Artistic-2.0": "Artistic-2.0",
    "BSD_2_clause": "BSD-2-Clause",
    "BSD_3_clause": "BSD-3-Clause",
    "MIT": "MIT",
    "Apache License 2.0": "Apache-2.0",
    "Apache License (== 2.0)": "Apache-2.0",
    "Apache License (== 2)": "Apache-2.0",
    "MPL-2.0": "MPL-2.0",
    "MPL-1.1": "MPL-1.1",
    "EUPL-1.1": "EUPL-1.1",
    "EUPL-1.2": "EUPL-1.2",
    "CC0": "CC0-1.0",
    "CC BY 4.0": "CC-BY-4.0",
    "CC BY-SA 4.0": "CC-BY-SA-4.0",
    "CC BY-NC 4.0": "CC-BY-NC-4.0",
    "CC BY-NC-SA 4.0": "CC-BY-NC-SA-4.0",
    "BSL-1.0": "BSL-1.0",
    "CPL-1.0": "CPL-1.0",
}
"""R licence short names with one SPDX meaning. `GPL`, `LGPL` or `AGPL` without a version, and
`Unlimited`, have none and are not guessed."""

_RESTRICTED: Final = {
    # `<family> (>= v)` → `<family>-<v>-or-later` for the versions SPDX has.
    ("GPL", "2"): "GPL-2.0-or-later",
    ("GPL", "2.0"): "GPL-2.0-or-later",
    ("GPL", "3"): "GPL-3.0-or-later",
    ("GPL", "3.0"): "GPL-3.0-or-later",
    ("LGPL", "2"): "LGPL-2.0-or-later",
    ("LGPL", "2.0"): "LGPL-2.0-or-later",
    ("LGPL", "2.1"): "LGPL-2.1-or-later",
    ("LGPL", "3"): "LGPL-3.0-or-later",
    ("LGPL", "3.0"): "LGPL-3.0-or-later",
    ("AGPL", "3"): "AGPL-3.0-or-later",
    ("AGPL", "3.0"): "AGPL-3.0-or-later",
}
_TEMPLATE_LICENSES: Final = frozenset({"MIT", "BSD-2-Clause", "BSD-3-Clause"})
"""Licences whose `+ file LICENSE` is CRAN's required copyright-holder template, not extra terms."""


def spdx_from_r(spec: str | None) -> str | None:
    """
    An SPDX expression for an R `License:` field, or the field as written when a part cannot be
    mapped (then the licence classifier reports it unknown rather than guessing).

    `GPL-2 | GPL-3` → `GPL-2.0-only OR GPL-3.0-only`; `GPL (>= 2)` → `GPL-2.0-or-later`;
    `MIT + file LICENSE` → `MIT` (the file is the copyright template CRAN requires);
    `GPL-3 + file LICENSE` → `GPL-3.0-only AND LicenseRef-R-file-LICENSE` (extra terms in a file).
    """
    raw = (spec or "").strip()
    if not raw:
        return None
    out: list[str] = []
    for alternative in raw.split("|"):
        part = alternative.strip()
        extra_file = False
        m = re.match(r"^(.*?)\s*\+\s*file\s+LICEN[SC]E$", part)
        if m:
            part, extra_file = m[1].strip(), True
        if re.fullmatch(r"file\s+LICEN[SC]E", part):
            out.append("LicenseRef-R-file-LICENSE")
            continue
        spdx = R_LICENSES.get(part)
        if spdx is None:
            r = re.fullmatch(r"(A?L?GPL)\s*\(\s*>=\s*([0-9.]+)\s*\)", part)
            spdx = _RESTRICTED.get((r[1], r[2])) if r else None
        if spdx is None:
            return raw
        if extra_file and spdx not in _TEMPLATE_LICENSES:
            spdx = f"{spdx} AND LicenseRef-R-file-LICENSE"
            spdx = f"({spdx})" if "|" in raw else spdx
        out.append(spdx)
    return " OR ".join(dict.fromkeys(out)) or None


class CranAdapter:
    """`RegistryAdapter` for CRAN (Posit Package Manager API, CRAN pages, cranlogs)."""

    ecosystem: ClassVar[Ecosystem] = Ecosystem.CRAN
    registry_source: ClassVar[str] = REGISTRY_SOURCE
    downloads_source: ClassVar[str | None] = DOWNLOADS_SOURCE

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        base_url: str = DEFAULT_PPM_URL,
        cran_url: str = DEFAULT_CRAN_URL,
        downloads_url: str = DEFAULT_CRANLOGS_URL,
    ) -> None:
        self._client = client
        self._ppm = base_url.rstrip("/")
        self._cran = cran_url.rstrip("/")
        self._logs = downloads_url.rstrip("/")
        self._weekly = SharedFetches[JSONArray | None]()

    def _last(self, name: str, window: str) -> asyncio.Future[JSONArray | None]:
        url = f"{self._logs}/downloads/total/{window}/{quote(name.strip(), safe='')}"

        async def start() -> JSONArray | None:
            return await get_json_array(
                self._client,
                url,
                ecosystem=self.ecosystem,
                name=name,
                source=DOWNLOADS_SOURCE,
                not_found="none",
            )

        if window != "last-week":
            return asyncio.ensure_future(start())
        return asyncio.ensure_future(self._weekly.get(name.strip(), start))

    async def fetch_package(self, name: str, *, version: str | None = None) -> PackageInfo:
        """See `RegistryAdapter.fetch_package`."""
        pkg = quote(name.strip(), safe="")
        common: dict[str, Any] = {"ecosystem": self.ecosystem, "name": name}
        ppm_task = asyncio.ensure_future(
            get_json(
                self._client,
                f"{self._ppm}/packages/{pkg}",
                source=REGISTRY_SOURCE,
                not_found="none",
                **common,
            )
        )
        page_task = asyncio.ensure_future(
            optional_source(
                lambda: get_text(
                    self._client,
                    f"{self._cran}/web/packages/{pkg}/index.html",
                    source=PAGE_SOURCE,
                    not_found="none",
                    **common,
                ),
                source=PAGE_SOURCE,
                kind="registry",
            )
        )
        weekly_task = asyncio.ensure_future(
            optional_source(lambda: self._last(name, "last-week"), source="", kind="downloads")
        )
        # Asked for at once rather than after a missing weekly count: a cold report costs the
        # slowest upstream, not a chain of them (one small extra cranlogs request).
        monthly_task = asyncio.ensure_future(
            optional_source(lambda: self._last(name, "last-month"), source="", kind="downloads")
        )
        try:
            body = await ppm_task
        except BaseException:
            abandon(page_task, weekly_task, monthly_task)
            raise
        page, page_status = await page_task
        weekly, _ = await weekly_task
        monthly: JSONArray | None = None
        if _window_count(weekly) is None:
            monthly, _ = await monthly_task
        else:
            abandon(monthly_task)
        if body is None:
            if page is None:
                raise PackageNotFound(self.ecosystem, name)
            listing, archive_status = await optional_source(
                lambda: get_text(
                    self._client,
                    f"{self._cran}/src/contrib/Archive/{pkg}/",
                    source=ARCHIVE_SOURCE,
                    not_found="none",
                    **common,
                ),
                source=ARCHIVE_SOURCE,
                kind="registry",
            )
            return parse_cran_page_package(
                name,
                page,
                archive=listing,
                version=version,
                monthly=monthly,
                sources=(page_status, archive_status),
            )
        return parse_package(
            body, page=page, version=version, monthly=monthly, sources=(page_status,)
        )

    async def fetch_weekly_downloads(self, name: str) -> int | None:
        """cranlogs' last-week total (shared with `fetch_package`); None when cranlogs has none."""
        return _window_count(await self._last(name, "last-week"))


def _window_count(body: Sequence[object] | None) -> int | None:
    """`downloads` of cranlogs' one-element answer, or None."""
    if not body or not isinstance(body[0], Mapping):
        return None
    count = body[0].get("downloads")
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None


def _monthly_facts(monthly: Sequence[object] | None, extra: dict[str, str]) -> None:
    count = _window_count(monthly)
    if count is None or monthly is None or not isinstance(monthly[0], Mapping):
        extra["downloads_unavailable"] = "cranlogs gave neither a last-week nor a last-month count"
        return
    start, end = monthly[0].get("start"), monthly[0].get("end")
    extra["downloads"] = str(count)
    extra["downloads_window"] = (
        f"last month ({start} to {end})"
        if isinstance(start, str) and isinstance(end, str)
        else "last month"
    )


def parse_package(
    body: Mapping[str, Any],
    *,
    page: str | None = None,
    version: str | None = None,
    monthly: Sequence[object] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    `PackageInfo` from a Package Manager package document (+ the CRAN page for the archival
    notice, + cranlogs' last-month answer when the weekly one was missing).

    Raises `RegistryResponseInvalid` when the body has no name or version, `VersionNotFound` when
    `version` is not released.
    """
    name = as_text(body.get("name"))
    current = as_text(body.get("version"))
    if not name or not current:
        raise RegistryResponseInvalid(
            _ECOSYSTEM,
            "Package Manager package body has no name or version",
            reason="invalid_shape",
            source=REGISTRY_SOURCE,
        )
    dates: dict[str, datetime | None] = {current: as_datetime(body.get("date_publication"))}
    advisories: list[str] = [
        str(v["id"]) for v in body.get("vulns") or () if isinstance(v, Mapping) and v.get("id")
    ]
    for item in body.get("archived") or ():
        if isinstance(item, Mapping) and as_text(item.get("version")):
            dates.setdefault(
                str(item["version"]).strip(), as_datetime(item.get("date_publication"))
            )
            advisories += [
                str(v["id"])
                for v in item.get("vulns") or ()
                if isinstance(v, Mapping) and v.get("id")
            ]
    target = current if version is None else version.strip()
    if target not in dates:
        raise VersionNotFound(
            _ECOSYSTEM,
            name,
            target,
            available=newest_first(_ECOSYSTEM, list(dates))[:AVAILABLE_IN_ERRORS],
        )
    extra: dict[str, str] = {}
    deps: tuple[Dependency, ...] = ()
    deps_version: str | None = None
    if target == current:
        deps, requires_r = _dependencies(body)
        deps_version = current
        if requires_r:
            extra["requires_r"] = requires_r
    else:
        extra["dependencies_unavailable"] = (
            "Package Manager lists dependencies of the current version only"
        )
    if advisories:
        extra["registry_advisories"] = " ".join(dict.fromkeys(advisories))
    if monthly is not None:
        _monthly_facts(monthly, extra)
    deprecated, message = _archival(page, extra)
    homepage, repository = _links(body.get("url"), body.get("bug_reports"))
    maintainers = _people(body.get("maintainer"))
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name,
        latest_version=current,
        description=as_text(body.get("title")) or as_text(body.get("description")) or "",
        license=spdx_from_r(as_text(body.get("license"))),
        homepage=homepage,
        repository=repository,
        releases=_releases(dates),
        maintainers=maintainers,
        dependencies=deps,
        dependencies_version=deps_version,
        deprecated=deprecated,
        deprecated_message=message,
        extra=extra,
        sources=sources,
    )


def parse_cran_page_package(
    name: str,
    page: str,
    *,
    archive: str | None = None,
    version: str | None = None,
    monthly: Sequence[object] | None = None,
    sources: tuple[SourceStatus, ...] = (),
) -> PackageInfo:
    """
    `PackageInfo` from the CRAN page and the archive listing, for a package Package Manager does
    not know (typically one removed from CRAN). Raises `PackageNotFound` when neither names a
    version, `VersionNotFound` when `version` is not among them.
    """
    facts = read_page(page)
    props = facts.properties
    dates: dict[str, datetime | None] = dict(parse_archive_listing(archive or "", name.strip()))
    current = props.get("Version")
    latest: str | None = None
    if current is not None and is_valid(_ECOSYSTEM, current.text):
        latest = current.text
        published = props.get("Published")
        dates[latest] = _day(published.text) if published is not None else None
    if not dates:
        raise PackageNotFound(_ECOSYSTEM, name)
    latest = latest or newest_first(_ECOSYSTEM, list(dates))[0]
    target = latest if version is None else version.strip()
    if target not in dates:
        raise VersionNotFound(
            _ECOSYSTEM,
            name,
            target,
            available=newest_first(_ECOSYSTEM, list(dates))[:AVAILABLE_IN_ERRORS],
        )
    extra: dict[str, str] = {}
    deprecated, message = _archival(page, extra)
    deps: tuple[Dependency, ...] = ()
    deps_version: str | None = None
    if target == latest and current is not None:
        fields = {
            key.lower(): props[label].text
            for key, label in (
                ("depends", "Depends"),
                ("imports", "Imports"),
                ("linking_to", "LinkingTo"),
                ("suggests", "Suggests"),
            )
            if label in props
        }
        deps, requires_r = _dependencies(fields)
        deps_version = target
        if requires_r:
            extra["requires_r"] = requires_r
    else:
        extra["dependencies_unavailable"] = "CRAN lists dependencies of its current version only"
    if monthly is not None:
        _monthly_facts(monthly, extra)
    lic = props.get("License")
    url = props.get("URL")
    bugs = props.get("BugReports")
    homepage, repository = _links(url.text if url else None, bugs.text if bugs else None)
    maint = props.get("Maintainer")
    title = re.search(r"<h2>(.*?)</h2>", page, re.DOTALL)
    description = ""
    if title:
        description = re.sub(r"<[^>]+>", "", title[1]).split(":", 1)[-1].strip()
    return PackageInfo(
        ecosystem=_ECOSYSTEM,
        name=name.strip(),
        latest_version=latest,
        description=description,
        license=spdx_from_r(lic.text if lic else None),
        homepage=homepage,
        repository=repository,
        releases=_releases(dates),
        maintainers=_people(maint.text if maint else None),
        dependencies=deps,
        dependencies_version=deps_version,
        deprecated=deprecated,
        deprecated_message=message,
        extra=extra,
        sources=sources,
    )


def parse_archive_listing(listing: str, name: str) -> list[tuple[str, datetime | None]]:
    """`(version, last-modified time)` of each `<name>_<version>.tar.gz` in an archive index page."""
    out: list[tuple[str, datetime | None]] = []
    pattern = re.compile(
        r'href="' + re.escape(name) + r'_([^"/]+)\.tar\.gz"(?:.*?(\d{4}-\d{2}-\d{2} \d{2}:\d{2}))?',
    )
    for line in listing.splitlines():
        m = pattern.search(line)
        if m and is_valid(_ECOSYSTEM, m[1]):
            when = datetime.strptime(m[2], "%Y-%m-%d %H:%M").replace(tzinfo=UTC) if m[2] else None
            out.append((m[1], when))
    return out


def _archival(page: str | None, extra: dict[str, str]) -> tuple[bool, str | None]:
    """(deprecated, message) from the CRAN page: archived packages are deprecated."""
    if page is None:
        extra["deprecation_unavailable"] = "the CRAN package page did not answer"
        return False, None
    if not _REMOVED.search(page):
        return False, None
    for para in read_page(page).paragraphs:
        m = _ARCHIVED_ON.match(para)
        if m:
            extra["archived_on"] = m[1]
            return True, f"removed from CRAN: {para}"
    return True, "removed from the CRAN repository"


def _releases(dates: Mapping[str, datetime | None]) -> tuple[Release, ...]:
    return tuple(
        sorted(
            (Release(version=v, published_at=when) for v, when in dates.items()),
            key=lambda rel: sort_key(_ECOSYSTEM, rel.version),
        )
    )


def _dependencies(fields: Mapping[str, Any]) -> tuple[tuple[Dependency, ...], str | None]:
    """DESCRIPTION dependency fields → dependencies, and the `R (>= x)` requirement apart."""
    deps: dict[str, Dependency] = {}
    requires_r: str | None = None
    for key, kind in (
        ("depends", "runtime"),
        ("imports", "runtime"),
        ("linking_to", "runtime"),
        ("suggests", "optional"),
    ):
        value = fields.get(key)
        if not isinstance(value, str):
            continue
        for item in value.split(","):
            m = _DEP_ITEM.match(" ".join(item.split()))
            if not m:
                continue
            requirement = " ".join((m[2] or "").split())
            if m[1] == "R":
                requires_r = requirement or None
                continue
            deps.setdefault(m[1], Dependency(m[1], requirement, kind=kind))
    return tuple(deps.values()), requires_r


def _links(url: Any, bug_reports: Any) -> tuple[str | None, str | None]:
    """(home page, repository) from the `URL` and `BugReports` fields."""
    urls = _URL.findall(url) if isinstance(url, str) else []
    bugs = _URL.findall(bug_reports) if isinstance(bug_reports, str) else []
    repository = next(
        (r for r in (normalise_repository_url(u, forges_only=True) for u in urls + bugs) if r),
        None,
    )
    homepage = next(
        (u for u in urls if normalise_repository_url(u, forges_only=True) is None),
        urls[0] if urls else None,
    )
    return homepage, repository


def _people(value: Any) -> tuple[Maintainer, ...]:
    """`Jennifer Bryan <jenny@posit.co>` → the one maintainer CRAN records."""
    text = as_text(value)
    if not text:
        return ()
    m = re.match(r"^(.*?)\s*<([^<>]+)>\s*$", text)
    if m and m[1].strip():
        email = m[2].strip().replace(" at ", "@")
        return (Maintainer(m[1].strip(), email, "maintainer"),)
    return (Maintainer(text, None, "maintainer"),)


def _day(value: str) -> datetime | None:
    try:
        return datetime.strptime(value.strip(), "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return None


__all__ = [
    "CranAdapter",
    "JSONObject",
    "parse_archive_listing",
    "parse_cran_page_package",
    "parse_package",
    "spdx_from_r",
]
