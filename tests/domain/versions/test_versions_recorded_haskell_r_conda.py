"""
Version orderings of Hackage, CRAN and Conda checked on real recorded version lists: each list is
sorted the way the registry itself lists it (Hackage's package page, Posit Package Manager's
archive list), or the way the ecosystem's own rules agree (conda vs. pytest's PEP 440 releases).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import newest_first, sort_key
from pkgintel.ecosystems._html import read_page
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

pytestmark = requires_shared


@pytest.mark.parametrize(
    "page",
    [
        "hackage.haskell.org_package_aeson-0.2.0.0.html",
        "hackage.haskell.org_package_blockfrost-client.html",
    ],
)
def test_hackage_pages_list_versions_in_pvp_order(page: str) -> None:
    """Hackage's Versions row lists every version oldest first; PVP ordering agrees."""
    markup = read_shared_bytes("registry-fixtures", "hackage", page).decode()
    cell = next(c for k, c in read_page(markup).properties.items() if k.startswith("Versions"))
    listed = [v.strip() for v in cell.text.split("(")[0].split(",") if v.strip()]
    assert len(listed) >= 7
    assert newest_first(Ecosystem.HACKAGE, listed) == listed[::-1]


def test_hackage_version_maps_hold_what_pvp_orders() -> None:
    jose = read_shared_json("registry-fixtures", "hackage", "hackage.haskell.org_package_jose.json")
    ordered = sorted(jose, key=lambda v: sort_key(Ecosystem.HACKAGE, v))
    # `0.9 < 0.10 < 0.10.0.1 < 0.11`: components compare as integers and a prefix sorts first.
    assert ordered.index("0.9") < ordered.index("0.10") < ordered.index("0.10.0.1")
    assert ordered.index("0.10.0.1") < ordered.index("0.11")
    assert ordered[-1] == "0.11"


@pytest.mark.parametrize("name", ["readxl", "abd", "aqp"])
def test_package_manager_archive_lists_sort_like_r(name: str) -> None:
    """Package Manager lists archived versions newest first; R's package_version order agrees
    (`1.10 > 1.9.14`, `2.2-1 > 2.2`, `0.99-9.51 > 0.99-9.1`)."""
    body = read_shared_json(
        "registry-fixtures", "cran", f"packagemanager.posit.co___api___repos_2_packages_{name}.json"
    )
    listed = [body["version"], *(a["version"] for a in body["archived"])]
    assert newest_first(Ecosystem.CRAN, listed) == listed


def test_conda_orders_pytest_releases_as_pep440_does() -> None:
    body = read_shared_json(
        "registry-fixtures", "conda", "api.anaconda.org_package_conda-forge_pytest.json"
    )
    versions = body["versions"]
    assert len(versions) == 94
    assert sorted(versions, key=lambda v: sort_key(Ecosystem.CONDA, v)) == sorted(
        versions, key=Version
    )
    assert newest_first(Ecosystem.CONDA, versions)[0] == body["latest_version"]
