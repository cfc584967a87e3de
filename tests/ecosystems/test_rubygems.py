"""RubyGems adapter: parsing the real recorded rubygems.org bodies, fetch errors, concurrency."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.packages import Dependency, Ecosystem
from pkgintel.domain.versions import newest_first
from pkgintel.ecosystems.rubygems import RubyGemsAdapter, parse_gem
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

GEM = "/api/v1/gems/nokogiri.json"
VERSIONS = "/api/v1/versions/nokogiri.json"
OWNERS = "/api/v1/gems/nokogiri/owners.json"


def fixture(name: str) -> Any:
    return read_shared_json("registry-fixtures", "rubygems", name)


def small_gem(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "tiny",
        "version": "1.1.0",
        "version_created_at": "2024-02-01T00:00:00Z",
        "downloads": 50,
        "version_downloads": 7,
        "authors": "Ann, Bob",
        "info": "A tiny gem",
        "licenses": ["MIT"],
        "homepage_uri": "https://tiny.example",
        "source_code_uri": "https://github.com/ann/tiny/tree/main",
        "dependencies": {"runtime": [{"name": "rack", "requirements": ">= 2"}], "development": []},
    }
    body.update(over)
    return body


SMALL_VERSIONS = [
    {
        "number": "1.1.0",
        "platform": "ruby",
        "created_at": "2024-02-01T00:00:00Z",
        "prerelease": False,
    },
    {
        "number": "1.0.0",
        "platform": "ruby",
        "created_at": "2024-01-01T00:00:00Z",
        "prerelease": False,
    },
    {
        "number": "1.0.0",
        "platform": "java",
        "created_at": "2023-12-31T00:00:00Z",
        "prerelease": False,
    },
]


# --- parsing ----------------------------------------------------------------------------------


@requires_shared
def test_nokogiri_recorded_bodies() -> None:
    info = parse_gem(
        fixture("rubygems.org_api_v1_gems_nokogiri.json"),
        fixture("rubygems.org_api_v1_versions_nokogiri.json.gz"),
    )
    assert info.ecosystem is Ecosystem.RUBYGEMS
    assert (info.name, info.latest_version, info.license) == ("nokogiri", "1.13.6", "MIT")
    assert info.repository == "https://github.com/sparklemotion/nokogiri"
    assert info.homepage == "https://nokogiri.org"
    assert info.dependencies == (
        Dependency("mini_portile2", "~> 2.8.0"),
        Dependency("racc", "~> 1.4"),
    )
    # 650 version × platform rows are 146 versions; the ruby build and the platform builds are one.
    assert len(info.releases) == 146
    assert len({r.version for r in info.releases}) == 146
    assert [r.version for r in info.releases[-3:]] == ["1.13.4", "1.13.5", "1.13.6"]
    newest = info.release("1.13.6")
    assert newest is not None and newest.published_at == datetime(
        2022, 5, 8, 14, 33, 57, 124000, tzinfo=UTC
    )  # the earliest of its platform builds
    assert info.extra["downloads.total"] == "509098464"
    assert info.extra["downloads.version"] == "13099"
    assert info.extra["downloads"] == "509098464" and info.extra["downloads_window"] == "total"
    assert info.extra["maintainers_source"] == "authors"
    assert len(info.maintainers) == 13
    assert not any(r.yanked for r in info.releases)


@requires_shared
def test_nokogiri_prereleases_follow_gem_version_order() -> None:
    info = parse_gem(
        fixture("rubygems.org_api_v1_gems_nokogiri.json"),
        fixture("rubygems.org_api_v1_versions_nokogiri.json.gz"),
    )
    order = [r.version for r in info.releases]
    assert order.index("1.11.0.rc4") < order.index("1.11.0") < order.index("1.11.1")
    assert info.release("1.11.0.rc4").prerelease  # type: ignore[union-attr]
    assert not info.release("1.11.0").prerelease  # type: ignore[union-attr]


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "rubygems.org_api_v1_versions_rails.json.gz",
        "rubygems.org_api_v1_versions_i18n.json",
        "rubygems.org_api_v1_versions_nokogiri.json.gz",
        "rubygems.org_api_v1_versions_public_suffix.json",
        "rubygems.org_api_v1_versions_rubystats.json",
    ],
)
def test_recorded_version_lists_sort_like_the_registry_lists_them(name: str) -> None:
    """rubygems.org lists versions newest first by `Gem::Version`; our ordering agrees."""
    rows = fixture(name)
    listed = list(dict.fromkeys(row["number"] for row in rows))
    assert newest_first(Ecosystem.RUBYGEMS, listed) == listed


@requires_shared
def test_version_document_about_another_gem_is_not_used() -> None:
    """The recorded `nokogiri/versions/0.3.0` document is really rubystats': its deps are not nokogiri's."""
    versions = [*SMALL_VERSIONS, {"number": "0.3.0", "platform": "ruby"}]
    body = read_shared_json(
        "registry-fixtures", "rubygems", "rubygems.org_api_v2_rubygems_nokogiri_versions_0.3.0.json"
    )
    info = parse_gem(small_gem(), versions, version="0.3.0", version_body=body)
    assert info.dependencies == ()
    assert "another gem" in info.extra["dependencies_unavailable"]


def test_requested_version_dependencies_come_from_its_document() -> None:
    doc = {
        "name": "tiny",
        "number": "1.0.0",
        "dependencies": {"runtime": [{"name": "json", "requirements": "~> 2.0"}]},
    }
    info = parse_gem(small_gem(), SMALL_VERSIONS, version="1.0.0", version_body=doc)
    assert info.dependencies == (Dependency("json", "~> 2.0"),)
    assert info.dependencies_version == "1.0.0"
    assert "dependencies_unavailable" not in info.extra


def test_owners_are_the_maintainers_when_known() -> None:
    owners = [{"handle": "ann", "email": "ann@example.org"}, {"handle": "ANN"}, {"id": 3}]
    info = parse_gem(small_gem(), SMALL_VERSIONS, owners=owners)
    assert [(m.name, m.role) for m in info.maintainers] == [("ann", "owner")]
    assert info.extra["maintainers_source"] == "owners"


def test_version_not_listed_is_version_not_found_newest_first() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_gem(small_gem(), SMALL_VERSIONS, version="9.9.9")
    assert caught.value.available == ["1.1.0", "1.0.0"]


@pytest.mark.parametrize(
    "gem", [{}, {"name": "tiny"}, {"version": "1.0"}, {"name": "", "version": "1"}]
)
def test_gem_document_without_name_or_version_is_invalid(gem: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_gem(gem, SMALL_VERSIONS)


def test_licences_are_alternatives_and_repository_falls_back_to_a_forge_homepage() -> None:
    info = parse_gem(
        small_gem(
            licenses=["Ruby", "BSD-2-Clause"],
            source_code_uri=None,
            homepage_uri="https://github.com/ann/tiny",
        ),
        SMALL_VERSIONS,
    )
    assert info.license == "Ruby OR BSD-2-Clause"
    assert info.repository == "https://github.com/ann/tiny"


# --- fetching ---------------------------------------------------------------------------------


def _client(routes: dict[str, Any], seen: list[str] | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=routes_transport(routes, seen=seen))


async def test_fetch_asks_the_three_documents_and_owners_failing_is_not_fatal() -> None:
    seen: list[str] = []
    routes = {
        "/api/v1/gems/tiny.json": (200, small_gem()),
        "/api/v1/versions/tiny.json": (200, SMALL_VERSIONS),
        "/api/v1/gems/tiny/owners.json": (503, b"down"),
    }
    async with _client(routes, seen) as client:
        info = await RubyGemsAdapter(client, base_url="https://mirror.test/").fetch_package("tiny")
        assert await RubyGemsAdapter(client).fetch_weekly_downloads("tiny") is None
    assert info.latest_version == "1.1.0"
    assert info.extra["maintainers_source"] == "authors"
    assert set(seen) >= set(routes)


async def test_fetches_of_one_package_run_concurrently() -> None:
    in_flight = 0
    peak = 0

    async def slow(body: Any) -> httpx.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return httpx.Response(200, json=body)

    async def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path.endswith("owners.json"):
            return await slow([])
        if path.startswith("/api/v1/versions/"):
            return await slow(SMALL_VERSIONS)
        return await slow(small_gem())

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        await RubyGemsAdapter(client).fetch_package("tiny")
    assert peak == 3


@requires_shared
async def test_recorded_404_is_package_not_found() -> None:
    body = read_shared_bytes(
        "registry-fixtures",
        "rubygems",
        "status-404__rubygems.org_api_v1_versions_doesnotexist123456.json.txt",
    )
    routes = {"/api/v1/versions/doesnotexist123456.json": (404, body)}
    async with _client(routes) as client:
        with pytest.raises(PackageNotFound):
            await RubyGemsAdapter(client).fetch_package("doesnotexist123456")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((500, b"oops"), RegistryUnavailable),
        ((429, b"slow down"), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((200, b"<html>not json</html>"), RegistryResponseInvalid),
        ((200, {"unexpected": "object"}), RegistryResponseInvalid),
    ],
)
async def test_versions_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    routes = {GEM: (200, fixture_free_gem()), VERSIONS: answer, OWNERS: (200, [])}
    async with _client(routes) as client:
        with pytest.raises(error):
            await RubyGemsAdapter(client).fetch_package("nokogiri")


async def test_missing_requested_version_is_version_not_found() -> None:
    routes = {GEM: (200, fixture_free_gem()), VERSIONS: (200, SMALL_VERSIONS), OWNERS: (200, [])}
    async with _client(routes) as client:
        with pytest.raises(VersionNotFound):
            await RubyGemsAdapter(client).fetch_package("nokogiri", version="0.0.1")


def fixture_free_gem() -> dict[str, Any]:
    return small_gem(name="nokogiri", version="1.1.0")


def test_requested_version_states_its_own_required_ruby_version() -> None:
    """Issue 27: `requires_ruby` of an old version comes from the version list's entry for it."""
    versions = [dict(v) for v in SMALL_VERSIONS]
    versions[0]["ruby_version"] = ">= 3.0"
    versions[1]["ruby_version"] = ">= 2.5"
    gem = small_gem(ruby_version=">= 3.0")

    assert parse_gem(gem, versions, version="1.0.0").extra["requires_ruby"] == ">= 2.5"
    assert parse_gem(gem, versions).extra["requires_ruby"] == ">= 3.0"
