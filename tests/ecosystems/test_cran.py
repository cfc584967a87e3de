"""CRAN adapter: Package Manager documents, licences to SPDX, archived packages, cranlogs."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, VersionNotFound
from pkgintel.domain.packages import Dependency
from pkgintel.ecosystems.cran import (
    CranAdapter,
    parse_archive_listing,
    parse_cran_page_package,
    parse_package,
    spdx_from_r,
)
from pkgintel.scoring.licenses import classify_license
from tests.ecosystems._routes import routes_transport
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

CRAN = ("registry-fixtures", "cran")
PPM = "/__api__/repos/2/packages"

ARCHIVED_PAGE = """<!DOCTYPE html><html><head><title>CRAN: Package oldpkg</title></head><body>
<div class="container"><h2>oldpkg</h2>
<p>Package ‘oldpkg’ was removed from the CRAN repository.</p>
<p>Formerly available versions can be obtained from the <a href="https://CRAN.R-project.org/src/contrib/Archive/oldpkg"><span class="CRAN">archive</span></a>.</p>
<p>Archived on 2023-10-16 as issues were not corrected in time.</p>
</div></body></html>"""


def ppm(name: str) -> Any:
    return read_shared_json(*CRAN, f"packagemanager.posit.co___api___repos_2_packages_{name}.json")


@pytest.mark.parametrize(
    ("spec", "spdx"),
    [
        ("GPL-2 | GPL-3", "GPL-2.0-only OR GPL-3.0-only"),
        ("MIT + file LICENSE", "MIT"),
        ("BSD_3_clause + file LICENSE", "BSD-3-Clause"),
        ("GPL (>= 2)", "GPL-2.0-or-later"),
        ("GPL (>= 3)", "GPL-3.0-or-later"),
        ("LGPL (>= 2.1)", "LGPL-2.1-or-later"),
        ("GPL-3 + file LICENSE", "GPL-3.0-only AND LicenseRef-R-file-LICENSE"),
        ("Apache License 2.0", "Apache-2.0"),
        ("CC0", "CC0-1.0"),
        ("file LICENSE", "LicenseRef-R-file-LICENSE"),
        ("GPL", "GPL"),  # no version: not guessed
        ("Unlimited", "Unlimited"),
        ("GPL-2 | Unlimited", "GPL-2 | Unlimited"),  # one part unmapped: kept as written
        ("", None),
    ],
)
def test_r_licences_map_to_spdx(spec: str, spdx: str | None) -> None:
    assert spdx_from_r(spec) == spdx


def test_mapped_licences_classify() -> None:
    assert classify_license(spdx_from_r("GPL-2 | GPL-3")).license_risk == "strong_copyleft"
    assert classify_license(spdx_from_r("MIT + file LICENSE")).license_risk == "permissive"
    assert classify_license(spdx_from_r("file LICENSE")).license_risk == "unknown"


@requires_shared
def test_recorded_readxl() -> None:
    info = parse_package(ppm("readxl"))
    assert (info.name, info.latest_version, info.license) == ("readxl", "1.4.5", "MIT")
    assert len(info.releases) == 13
    assert info.releases[-1].published_at == datetime(2025, 3, 7, 17, 10, 2, tzinfo=UTC)
    assert info.description == "Read Excel Files"
    assert info.repository == "https://github.com/tidyverse/readxl"
    assert info.homepage == "https://readxl.tidyverse.org"
    assert [(m.name, m.email) for m in info.maintainers] == [("Jennifer Bryan", "jenny@posit.co")]
    assert info.extra["requires_r"] == ">= 3.6"
    assert Dependency("tibble", ">= 2.0.1") in info.dependencies
    assert Dependency("testthat", ">= 3.1.6", kind="optional") in info.dependencies
    assert "R" not in {d.name for d in info.dependencies}
    assert info.extra["registry_advisories"].split() == [
        "RSEC-2023-2",
        "RSEC-2023-1",
        "RSEC-2023-0",
    ]
    old = parse_package(ppm("readxl"), version="1.3.1")
    assert old.dependencies_version is None and old.extra["dependencies_unavailable"]


@requires_shared
def test_recorded_aqp_versions_in_r_order_and_restricted_gpl() -> None:
    info = parse_package(ppm("aqp"))
    versions = [r.version for r in info.releases]
    assert versions[-6:] == ["2.0.4", "2.1.0", "2.2", "2.2-1", "2.3", "2.3.1"]
    assert info.license == "GPL-3.0-or-later"
    abd = parse_package(ppm("abd"))
    assert abd.license == "GPL-2.0-only" and abd.latest_version == "0.2-8"


@requires_shared
def test_recorded_pack_from_the_cran_page_archive_and_last_month() -> None:
    info = parse_cran_page_package(
        "pack",
        read_shared_bytes(*CRAN, "cran.r-project.org_web_packages_pack_index.html").decode(),
        archive=read_shared_bytes(
            *CRAN, "cran.r-project.org_src_contrib_Archive_pack.html"
        ).decode(),
        monthly=read_shared_json(*CRAN, "cranlogs.r-pkg.org_downloads_total_last-month_pack.json"),
    )
    assert [r.version for r in info.releases] == ["0.1", "0.1-1"]
    assert info.releases[0].published_at == datetime(2008, 8, 17, 10, 31, tzinfo=UTC)
    assert info.license == "GPL-3.0-only"
    assert info.maintainers[0].name == "Josh Ulrich"
    assert info.extra["downloads"] == "612"
    assert info.extra["downloads_window"] == "last month (2023-02-24 to 2023-03-25)"
    assert not info.deprecated


def test_archived_on_is_the_deprecation() -> None:
    listing = '<tr><td><a href="oldpkg_1.0.tar.gz">oldpkg_1.0.tar.gz</a></td><td align="right">2020-01-02 03:04  </td></tr>'
    assert parse_archive_listing(listing, "oldpkg") == [
        ("1.0", datetime(2020, 1, 2, 3, 4, tzinfo=UTC))
    ]
    info = parse_cran_page_package("oldpkg", ARCHIVED_PAGE, archive=listing)
    assert info.deprecated and info.latest_version == "1.0"
    assert info.deprecated_message == (
        "removed from CRAN: Archived on 2023-10-16 as issues were not corrected in time."
    )
    assert info.extra["archived_on"] == "2023-10-16"
    with pytest.raises(PackageNotFound):
        parse_cran_page_package("oldpkg", ARCHIVED_PAGE, archive="")


def test_bad_body_and_unknown_version() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_package({"name": "x"})
    with pytest.raises(VersionNotFound):
        parse_package({"name": "x", "version": "1.0"}, version="2.0")


async def test_fallback_to_cran_when_package_manager_does_not_know_it() -> None:
    seen: list[str] = []
    routes = {
        "/cran/web/packages/oldpkg/index.html": (200, ARCHIVED_PAGE),
        "/cran/src/contrib/Archive/oldpkg/": (
            200,
            '<tr><td><a href="oldpkg_0.9-1.tar.gz">oldpkg_0.9-1.tar.gz</a></td><td>2019-05-06 07:08</td></tr>',
        ),
        "/logs/downloads/total/last-week/oldpkg": (
            200,
            [{"start": "2026-11-14", "end": "2026-11-20", "downloads": 3, "package": "oldpkg"}],
        ),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = CranAdapter(
            client,
            base_url="https://m/ppm",
            cran_url="https://m/cran",
            downloads_url="https://m/logs",
        )
        info = await adapter.fetch_package("oldpkg")
        assert info.deprecated and info.latest_version == "0.9-1"
        assert "downloads" not in info.extra  # the weekly figure exists: the monthly one is unused
        assert await adapter.fetch_weekly_downloads("oldpkg") == 3
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("nothing")
        assert await adapter.fetch_weekly_downloads("nothing") is None
    assert "/ppm/packages/oldpkg" in seen
