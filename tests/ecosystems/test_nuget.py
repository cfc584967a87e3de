"""NuGet adapter: registration pages, unlisted and deprecated versions, nuspec and search, on the
recorded nuget.org bodies (Newtonsoft.Json inline, Serilog paged)."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest

from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.ecosystems.nuget import (
    NuGetAdapter,
    catalog_entries,
    parse_nuspec,
    parse_registration,
    registration_pages,
)
from tests.shared import SHARED_DATA, read_shared_bytes, read_shared_json, requires_shared

FIXTURES = "registry-fixtures/nuget"


def _inline(file: str) -> dict:
    pages = registration_pages(read_shared_json(FIXTURES, file))
    return catalog_entries([leaf for page in pages for leaf in page["items"]])


@requires_shared
def test_newtonsoft_registration_nuspec_and_search() -> None:
    info = parse_registration(
        _inline("api.nuget.org_v3_registration5-gz-semver2_newtonsoft.json_index.json"),
        nuspec=parse_nuspec(
            read_shared_bytes(
                FIXTURES,
                "api.nuget.org_v3-flatcontainer_newtonsoft.json_13.0.3_newtonsoft.json.nuspec.xml",
            ).decode()
        ),
        search=read_shared_json(
            FIXTURES, "azuresearch-usnc.nuget.org_query_q_packageid_newtonsoft.json"
        ),
    )
    assert (info.name, info.latest_version, info.license) == ("Newtonsoft.Json", "13.0.3", "MIT")
    assert info.repository == "https://github.com/JamesNK/Newtonsoft.Json"
    assert info.homepage == "https://www.newtonsoft.com/json"
    assert [m.name for m in info.maintainers] == ["dotnetfoundation", "jamesnk", "newtonsoft"]
    assert info.extra["downloads"] == "6532245026"
    assert info.extra["downloads_window"] == "total"


@requires_shared
def test_serilog_pages_newest_stable_is_latest() -> None:
    leaves = []
    folder = SHARED_DATA / FIXTURES
    index = read_shared_json(FIXTURES, "api.nuget.org_v3_registration5-semver1_serilog_index.json")
    by_url = {i["url"]: i for i in json.loads((folder / "INDEX.json").read_text())}
    for page in registration_pages(index):
        item = by_url[page["@id"]]
        raw = (folder / item["file"]).read_bytes()
        leaves += json.loads(gzip.decompress(raw) if item["gzipped"] else raw)["items"]
    info = parse_registration(catalog_entries(leaves))
    assert info.latest_version == "4.3.1"
    assert info.releases[-1].version == "4.3.2-dev-02419"
    assert info.releases[-1].prerelease is True
    assert len(info.releases) == sum(p["count"] for p in index["items"])
    assert info.license == "Apache-2.0"
    # One entry per dependency, the target frameworks that need it as the marker.
    assert len({d.name for d in info.dependencies}) == len(info.dependencies)


@requires_shared
def test_deprecated_with_alternate_and_unlisted_versions() -> None:
    info = parse_registration(
        _inline(
            "api.nuget.org_v3_registration5-gz-semver2_ogcapi.net.sqlserver_index.ecosyste-ms.json"
        )
    )
    assert info.deprecated is True
    assert info.extra["deprecated_successor"] == "NewPackage"
    unlisted = parse_registration(
        _inline("api.nuget.org_v3_registration5-gz-semver2_unlistedpackage_index.json")
    )
    assert all(r.yanked and r.yanked_reason == "unlisted on nuget.org" for r in unlisted.releases)


def _leaf(version: str, **extra: object) -> dict:
    return {
        "catalogEntry": {
            "id": "Tiny.Lib",
            "version": version,
            "published": "2025-01-01T00:00:00+00:00",
            **extra,
        }
    }


def test_unlisted_newer_version_is_not_latest_and_1900_dates_are_unknown() -> None:
    catalog = catalog_entries(
        [_leaf("1.0.0"), _leaf("2.0.0", listed=False, published="1900-01-01T00:00:00+00:00")]
    )
    info = parse_registration(catalog)
    assert info.latest_version == "1.0.0"
    assert info.release("2.0.0").published_at is None


def test_registry_published_vulnerabilities_are_kept_as_a_fact() -> None:
    catalog = catalog_entries(
        [
            _leaf(
                "1.0.0",
                vulnerabilities=[
                    {"advisoryUrl": "https://github.com/advisories/GHSA-xxxx", "severity": "2"}
                ],
            )
        ]
    )
    assert (
        parse_registration(catalog).extra["registry_advisories"]
        == "https://github.com/advisories/GHSA-xxxx"
    )


async def test_semver1_hive_is_asked_when_semver2_has_no_entry_and_pages_are_rebased() -> None:
    seen: list[str] = []
    page_url = "https://api.nuget.org/v3/registration5-semver1/tiny.lib/page/1.0.0/1.0.0.json"

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        path = request.url.path.removeprefix("/nuget")
        if path == "/v3/registration5-semver1/tiny.lib/index.json":
            return httpx.Response(200, json={"items": [{"@id": page_url, "count": 1}]})
        if path == "/v3/registration5-semver1/tiny.lib/page/1.0.0/1.0.0.json":
            return httpx.Response(200, json={"items": [_leaf("1.0.0")]})
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await NuGetAdapter(client, base_url="http://mirror.test/nuget").fetch_package(
            "Tiny.Lib"
        )
    assert info.latest_version == "1.0.0"
    assert "http://mirror.test/nuget/v3/registration5-gz-semver2/tiny.lib/index.json" in seen
    assert (
        "http://mirror.test/nuget/v3/registration5-semver1/tiny.lib/page/1.0.0/1.0.0.json" in seen
    )


async def test_page_links_to_another_host_are_not_followed() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path == "/v3/registration5-gz-semver2/tiny.lib/index.json":
            return httpx.Response(
                200, json={"items": [{"@id": "http://169.254.169.254/latest/page.json"}]}
            )
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(RegistryResponseInvalid):
            await NuGetAdapter(client).fetch_package("Tiny.Lib")
    assert not any("169.254" in url for url in seen)
