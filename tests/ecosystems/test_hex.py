"""Hex adapter: hex.pm package and release documents, retirements, downloads, fetch errors."""

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
from pkgintel.ecosystems.hex import HexAdapter, latest_version, parse_package
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

PKG = "/api/packages/phoenix_copy"


def fixture(name: str) -> Any:
    return read_shared_json("registry-fixtures", "hex", name)


def small(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "tiny",
        "releases": [
            {"version": "2.0.0-rc.1", "inserted_at": "2024-03-01T00:00:00Z"},
            {"version": "1.1.0", "inserted_at": "2024-02-01T00:00:00Z"},
            {"version": "1.0.0", "inserted_at": "2024-01-01T00:00:00Z"},
        ],
        "retirements": {"1.0.0": {"reason": "security", "message": "CVE-2099-1"}},
        "owners": [{"username": "ann", "email": "ann@example.org"}],
        "meta": {
            "description": "Tiny",
            "licenses": ["Apache-2.0"],
            "links": {"GitHub": "https://github.com/ann/tiny", "Website": "https://tiny.example"},
        },
        "downloads": {"all": 100, "recent": 40, "week": 9, "day": 1},
    }
    body.update(over)
    return body


def release(version: str, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "version": version,
        "inserted_at": "2024-02-01T00:00:00Z",
        "requirements": {
            "plug": {"app": "plug", "optional": False, "requirement": "~> 1.14"},
            "jason": {"app": "jason", "optional": True, "requirement": "~> 1.0"},
        },
        "meta": {"elixir": "~> 1.14"},
    }
    body.update(over)
    return body


# --- parsing ----------------------------------------------------------------------------------


def test_small_package_with_its_latest_release() -> None:
    info = parse_package(small(), release=release("1.1.0"))
    assert info.latest_version == "1.1.0"  # the newest non-pre-release
    assert [r.version for r in info.releases] == ["1.0.0", "1.1.0", "2.0.0-rc.1"]
    assert info.release("1.0.0").deprecated == "retired (security): CVE-2099-1"  # type: ignore[union-attr]
    assert not info.deprecated  # the latest is not retired
    assert info.dependencies == (
        Dependency("plug", "~> 1.14"),
        Dependency("jason", "~> 1.0", kind="optional"),
    )
    assert info.extra["requires_elixir"] == "~> 1.14"
    assert info.repository == "https://github.com/ann/tiny"
    assert info.homepage == "https://tiny.example"
    assert info.license == "Apache-2.0"
    assert [(m.name, m.role) for m in info.maintainers] == [("ann", "owner")]
    assert info.extra["downloads.week"] == "9"
    assert info.extra["downloads"] == "40" and info.extra["downloads_window"] == "recent"


def test_retired_latest_deprecates_the_package() -> None:
    body = small(retirements={"1.1.0": {"reason": "deprecated", "message": "use huge"}})
    info = parse_package(body, release=release("1.1.0"))
    assert info.deprecated and info.deprecated_message == "retired (deprecated): use huge"


def test_release_document_missing_or_for_another_version_leaves_dependencies_unknown() -> None:
    assert parse_package(small()).extra["dependencies_unavailable"].startswith("hex.pm has no")
    info = parse_package(small(), release=release("1.0.0"))
    assert info.dependencies == ()
    assert "another release" in info.extra["dependencies_unavailable"]


def test_release_date_fills_a_missing_inserted_at() -> None:
    body = small(releases=[{"version": "1.1.0"}, {"version": "1.0.0"}])
    info = parse_package(body, release=release("1.1.0", inserted_at="2024-05-05T05:05:05Z"))
    assert info.release("1.1.0").published_at == datetime(2024, 5, 5, 5, 5, 5, tzinfo=UTC)  # type: ignore[union-attr]
    assert info.release("1.0.0").published_at is None  # type: ignore[union-attr]


def test_latest_version_prefers_the_registry_field() -> None:
    assert latest_version(small(latest_stable_version="1.0.0")) == "1.0.0"
    assert latest_version(small()) == "1.1.0"
    assert latest_version({"releases": [{"version": "0.1.0-rc.0"}]}) == "0.1.0-rc.0"


def test_missing_version_is_version_not_found() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_package(small(), version="3.0.0")
    assert caught.value.available == ["2.0.0-rc.1", "1.1.0", "1.0.0"]


@pytest.mark.parametrize("body", [{}, {"name": "tiny"}, {"name": "tiny", "releases": []}])
def test_bodies_of_the_wrong_shape_are_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_package(body)


@requires_shared
def test_phoenix_recorded() -> None:
    info = parse_package(fixture("hex.pm_api_packages_phoenix.json"))
    assert info.ecosystem is Ecosystem.HEX
    assert (info.name, info.latest_version, info.license) == ("phoenix", "1.4.0", "MIT")
    assert len(info.releases) == 76
    assert [r.version for r in info.releases[-2:]] == ["1.4.0-rc.3", "1.4.0"]
    assert info.repository == "https://github.com/phoenixframework/phoenix"
    assert [m.name for m in info.maintainers] == ["chrismccord", "josevalim", "gazler", "jeregrine"]
    assert info.extra["downloads.week"] == "83261"
    # This (older) recording lists releases without dates: none is invented.
    assert all(r.published_at is None for r in info.releases)


@requires_shared
def test_ash_retirements_with_reasons() -> None:
    info = parse_package(fixture("hex.pm_api_packages_ash.json"))
    retired = {r.version: r.deprecated for r in info.releases if r.deprecated}
    assert len(retired) == 10
    assert retired["3.6.3"] == "retired (security): CVE-2025-48044"
    assert info.latest_version == "3.21.3" and not info.deprecated


@requires_shared
def test_phoenix_copy_with_its_recorded_release() -> None:
    info = parse_package(
        fixture("hex.pm_api_packages_phoenix_copy.json"),
        release=fixture("hex.pm_api_packages_phoenix_copy_releases_0.1.1.json"),
    )
    assert info.latest_version == "0.1.1"
    assert info.dependencies == (Dependency("file_system", "~> 0.2"),)
    assert info.extra["requires_elixir"] == "~> 1.9"


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "hex.pm_api_packages_ash.json",
        "hex.pm_api_packages_certifi.json",
        "hex.pm_api_packages_phoenix.json",
        "hex.pm_api_packages_phoenix_copy.json",
        "hex.pm_api_packages_plug.json",
    ],
)
def test_recorded_lists_sort_like_hex_lists_them(name: str) -> None:
    """hex.pm lists releases newest first by SemVer precedence; our ordering agrees."""
    listed = [r["version"] for r in fixture(name)["releases"]]
    assert newest_first(Ecosystem.HEX, listed) == listed
    assert [r.version for r in parse_package(fixture(name)).releases] == listed[::-1]


# --- fetching ---------------------------------------------------------------------------------


@requires_shared
async def test_fetch_reads_the_package_once_for_metadata_and_downloads() -> None:
    seen: list[str] = []
    routes = {
        PKG: (200, fixture("hex.pm_api_packages_phoenix_copy.json")),
        f"{PKG}/releases/0.1.1": (
            200,
            fixture("hex.pm_api_packages_phoenix_copy_releases_0.1.1.json"),
        ),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = HexAdapter(client)
        info, weekly = await asyncio.gather(
            adapter.fetch_package("phoenix_copy"), adapter.fetch_weekly_downloads("phoenix_copy")
        )
    assert weekly == 28
    assert info.dependencies == (Dependency("file_system", "~> 0.2"),)
    assert seen.count(PKG) == 1 and len(seen) == 2


async def test_requested_version_asks_for_its_release_concurrently() -> None:
    seen: list[str] = []
    routes = {
        "/api/packages/tiny": (200, small()),
        "/api/packages/tiny/releases/1.0.0": (200, release("1.0.0")),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        info = await HexAdapter(client).fetch_package("tiny", version="1.0.0")
    assert info.dependencies_version == "1.0.0" and info.dependencies
    assert sorted(seen) == sorted(routes)


async def test_release_failing_keeps_the_package() -> None:
    routes = {"/api/packages/tiny": (200, small()), "/api/packages/tiny/releases/1.1.0": (503, b"")}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await HexAdapter(client).fetch_package("tiny")
    assert info.dependencies == ()
    assert "status.503" in info.extra["dependencies_unavailable"]


@requires_shared
async def test_recorded_404_is_package_not_found() -> None:
    body = read_shared_bytes(
        "registry-fixtures", "hex", "status-404__hex.pm_api_packages_doesnotexist123456.json"
    )
    routes = {"/api/packages/doesnotexist123456": (404, body)}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(PackageNotFound):
            await HexAdapter(client).fetch_package("doesnotexist123456")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((502, b"bad gateway"), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((200, b"{"), RegistryResponseInvalid),
        ((200, {"name": "tiny", "releases": "1.0.0"}), RegistryResponseInvalid),
    ],
)
async def test_package_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    async with httpx.AsyncClient(
        transport=routes_transport({"/api/packages/tiny": answer})
    ) as client:
        with pytest.raises(error):
            await HexAdapter(client).fetch_package("tiny")


async def test_missing_version_over_http_is_version_not_found() -> None:
    routes = {"/api/packages/tiny": (200, small())}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(VersionNotFound):
            await HexAdapter(client).fetch_package("tiny", version="9.9.9")
