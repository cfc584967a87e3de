"""
Upstreams of the quality signals: download windows (npm downloads API, pypistats) and dependents
(deps.dev). Fetch apart from parse; the parsers are tested on the recorded bodies in
`../shared/data/registry-fixtures/downloads/` (and a hand-written deps.dev body in its documented
shape, since no recorded one exists).

- npm: `GET {PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL}/downloads/point/last-month/{name}` →
  `{"downloads", "start", "end", "package"}` (https://github.com/npm/registry/blob/main/docs/download-counts.md);
  the week comes from `.../point/last-week/{name}` (the same call the npm adapter makes).
- PyPI: `GET {PKGINTEL_UPSTREAM_PYPISTATS_URL}/api/packages/{name}/recent` →
  `{"data": {"last_day", "last_week", "last_month"}}` (https://pypistats.org/api/).
- deps.dev: `GET {PKGINTEL_UPSTREAM_DEPSDEV_URL}/v3alpha/systems/{system}/packages/{name}/versions/{version}:dependents`
  → `{"dependentCount", "directDependentCount", "indirectDependentCount"}`
  (https://docs.deps.dev/api/v3alpha/). Systems: npm, pypi, cargo, maven, nuget, go, rubygems.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

import httpx

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.json_fields import as_count
from pkgintel.domain.packages import Ecosystem
from pkgintel.transport.fetch import get_json

NPM_DOWNLOADS_SOURCE: Final = "api.npmjs.org"
PYPISTATS_SOURCE: Final = "pypistats.org"
DEPSDEV_SOURCE: Final = "api.deps.dev"
DEPSDEV_SYSTEMS: Final = {
    Ecosystem.NPM: "npm",
    Ecosystem.PYPI: "pypi",
    Ecosystem.CARGO: "cargo",
    Ecosystem.MAVEN: "maven",
    Ecosystem.NUGET: "nuget",
    Ecosystem.GO: "go",
    Ecosystem.RUBYGEMS: "rubygems",
}


@dataclass(frozen=True, slots=True)
class DownloadWindows:
    last_week: int | None
    last_month: int | None
    source: str


@dataclass(frozen=True, slots=True)
class Dependents:
    total: int | None
    direct: int | None
    indirect: int | None
    version: str


def parse_npm_point(body: Any) -> int | None:
    """`downloads` of an npm `/downloads/point/...` body; None for its `{"error": ...}` body."""
    if isinstance(body, dict) and (n := as_count(body.get("downloads"))) is not None:
        return n
    if isinstance(body, dict) and "error" in body:
        return None
    raise RegistryResponseInvalid(
        "npm",
        "npm downloads body has no count",
        reason="invalid_shape",
        source=NPM_DOWNLOADS_SOURCE,
    )


def parse_pypistats_recent(body: Any) -> DownloadWindows:
    """`last_week` and `last_month` of a pypistats `recent` body."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        raise RegistryResponseInvalid(
            "pypi", "pypistats body has no data", reason="invalid_shape", source=PYPISTATS_SOURCE
        )
    return DownloadWindows(
        as_count(data.get("last_week")), as_count(data.get("last_month")), PYPISTATS_SOURCE
    )


def parse_dependents(body: Any, version: str) -> Dependents:
    """The counts of a deps.dev `:dependents` body (absent counts are None, never 0)."""
    if not isinstance(body, dict):
        raise RegistryResponseInvalid(
            "depsdev",
            "deps.dev dependents body is not an object",
            reason="invalid_shape",
            source=DEPSDEV_SOURCE,
        )
    return Dependents(
        as_count(body.get("dependentCount")),
        as_count(body.get("directDependentCount")),
        as_count(body.get("indirectDependentCount")),
        version,
    )


_PEP503: Final = re.compile(r"[-_.]+")


class QualitySources:
    """Fetches download windows and dependents; raises the registries' errors (`RegistryUnavailable`, ...)."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        *,
        npm_downloads_url: str = "https://api.npmjs.org",
        pypistats_url: str = "https://pypistats.org",
        depsdev_url: str = "https://api.deps.dev",
    ) -> None:
        self._client = client
        self._npm = npm_downloads_url.rstrip("/")
        self._pypistats = pypistats_url.rstrip("/")
        self._depsdev = depsdev_url.rstrip("/")

    def has_download_windows(self, ecosystem: Ecosystem) -> bool:
        return ecosystem in (Ecosystem.NPM, Ecosystem.PYPI)

    async def fetch_download_windows(
        self, ecosystem: Ecosystem, name: str, weekly: int | None
    ) -> DownloadWindows | None:
        """Last week and last month; None when the source does not know the package.
        `weekly` is the week figure already fetched for npm (the same API's last-week point)."""
        if ecosystem is Ecosystem.NPM:
            body = await get_json(
                self._client,
                f"{self._npm}/downloads/point/last-month/{quote(name, safe='@/')}",
                ecosystem=ecosystem,
                name=name,
                source=NPM_DOWNLOADS_SOURCE,
                not_found="none",
            )
            month = parse_npm_point(body) if body is not None else None
            return None if month is None else DownloadWindows(weekly, month, NPM_DOWNLOADS_SOURCE)
        if ecosystem is Ecosystem.PYPI:
            project = _PEP503.sub("-", name).lower()
            body = await get_json(
                self._client,
                f"{self._pypistats}/api/packages/{quote(project)}/recent",
                ecosystem=ecosystem,
                name=name,
                source=PYPISTATS_SOURCE,
                not_found="none",
            )
            return None if body is None else parse_pypistats_recent(body)
        return None

    async def fetch_dependents(
        self, ecosystem: Ecosystem, name: str, version: str
    ) -> Dependents | None:
        """deps.dev dependents of `name@version`; None when deps.dev does not know it."""
        system = DEPSDEV_SYSTEMS[ecosystem]
        url = (
            f"{self._depsdev}/v3alpha/systems/{system}/packages/{quote(name, safe='')}"
            f"/versions/{quote(version, safe='')}:dependents"
        )
        body = await get_json(
            self._client,
            url,
            ecosystem=ecosystem,
            name=name,
            source=DEPSDEV_SOURCE,
            not_found="none",
        )
        return None if body is None else parse_dependents(body, version)
