"""Hackage adapter: version statuses, package pages, deprecation with replacements, fetch paths."""

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
from pkgintel.domain.packages import Dependency
from pkgintel.domain.signals.provenance import SourceState
from pkgintel.ecosystems.hackage import HackageAdapter, parse_package, parse_page
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

HACKAGE = ("registry-fixtures", "hackage")


def aeson_versions() -> Any:
    return read_shared_json(*HACKAGE, "hackage.haskell.org_package_aeson.json")


def page(name: str) -> str:
    return read_shared_bytes(*HACKAGE, name).decode()


@requires_shared
def test_recorded_aeson_versions_statuses_and_latest() -> None:
    info = parse_package("aeson", aeson_versions())
    assert info.latest_version == "2.2.3.0"
    assert len(info.releases) == 98
    assert info.releases[0].version == "0.1.0.0"  # PVP order, not the map's string order
    assert [r.version for r in info.releases][-3:] == ["2.2.1.0", "2.2.2.0", "2.2.3.0"]
    deprecated = [r.version for r in info.releases if r.deprecated]
    assert deprecated == [
        "0.7.0.0", "0.7.0.1", "0.7.0.2", "0.7.0.3", "0.7.0.5", "0.8.0.0", "0.8.0.1", "0.10.0.0",
    ]  # fmt: skip
    assert not any(r.yanked for r in info.releases)  # still installable when asked for
    # Without the page nothing it would say is guessed.
    assert info.license is None and info.maintainers == () and info.dependencies_version is None
    assert info.extra["deprecation_unavailable"]


@requires_shared
def test_recorded_version_page_gives_licence_people_deps_downloads_and_date() -> None:
    info = parse_package(
        "aeson",
        aeson_versions(),
        page=page("hackage.haskell.org_package_aeson-0.2.0.0.html"),
        deprecation={"is-deprecated": False, "in-favour-of": []},
        version="0.2.0.0",
    )
    assert info.license == "BSD-3-Clause"
    assert info.description == "Fast JSON parsing and generation"
    assert [m.name for m in info.maintainers] == ["Bryan O'Sullivan"]
    assert info.maintainers[0].email == "bos@mailrank.com"
    assert info.repository == "https://github.com/mailrank/aeson"
    assert info.dependencies_version == "0.2.0.0"
    assert info.dependencies[:2] == (
        Dependency("attoparsec", ">=0.8.5.0"),
        Dependency("base", ">=4 && <4.4"),
    )
    assert len(info.dependencies) == 12
    rel = info.release("0.2.0.0")
    assert rel is not None and rel.published_at == datetime(2011, 2, 25, 18, 27, 42, tzinfo=UTC)
    assert info.extra["downloads"] == "1104" and info.extra["downloads_window"] == "last 30 days"
    assert info.extra["downloads.total"] == "567411"
    assert not info.deprecated


@requires_shared
def test_a_page_about_another_version_is_not_used() -> None:
    info = parse_package(
        "aeson", aeson_versions(), page=page("hackage.haskell.org_package_aeson-0.2.0.0.html")
    )
    assert info.latest_version == "2.2.3.0"
    assert info.license is None and info.extra["dependencies_unavailable"]


@requires_shared
def test_recorded_latest_page_of_blockfrost_client() -> None:
    facts = parse_page(
        page("hackage.haskell.org_package_blockfrost-client.html"), name="blockfrost-client"
    )
    assert facts.version == "0.4.0.1"
    assert facts.license == "Apache-2.0"
    assert facts.downloads_total == 303 and facts.downloads_30d == 83
    assert facts.uploaded_at == datetime(2022, 4, 5, 13, 37, 46, tzinfo=UTC)
    names = [d.name for d in facts.dependencies]
    assert "blockfrost-client" not in names  # its executable's use of its own library
    assert Dependency("servant", ">=0.18 && <0.20") in facts.dependencies
    assert [m.email for m in facts.maintainers] == ["srk@48.io"]


def test_package_deprecation_names_the_replacements() -> None:
    info = parse_package(
        "cryptonite",
        {"0.29": "normal", "0.30": "normal"},
        deprecation={"is-deprecated": True, "in-favour-of": ["crypton", "cryptohash-sha256"]},
    )
    assert info.deprecated
    assert (
        info.deprecated_message == "deprecated on Hackage in favour of crypton, cryptohash-sha256"
    )
    assert info.extra["deprecated_successor"] == "crypton"


def test_latest_skips_deprecated_versions_unless_all_are() -> None:
    assert parse_package("x", {"1.0": "normal", "1.1": "deprecated"}).latest_version == "1.0"
    assert parse_package("x", {"1.0": "deprecated", "1.1": "deprecated"}).latest_version == "1.1"
    assert parse_package("x", {"1.0": "normal", "1.1": "unpreferred"}).latest_version == "1.1"


@pytest.mark.parametrize("body", [{}, {"1.0": 3}, {"not a version": "normal"}])
def test_body_without_versions_is_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_package("x", body)


def test_unknown_version_lists_known_ones() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_package("x", {"1.0": "normal", "1.0.1": "normal"}, version="2.0")
    assert caught.value.available[:2] == ["1.0.1", "1.0"]


async def test_three_requests_run_concurrently_and_optional_ones_may_fail() -> None:
    started: list[str] = []
    both = asyncio.Event()

    async def slow_page(request: httpx.Request) -> httpx.Response:
        started.append(request.url.path)
        if len(started) >= 2:
            both.set()
        await asyncio.wait_for(both.wait(), 1)
        return httpx.Response(503)

    def record(request: httpx.Request) -> httpx.Response:
        started.append(request.url.path)
        if len(started) >= 2:
            both.set()
        return httpx.Response(200, json={"1.0": "normal"})

    class Transport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path.endswith(".json"):
                if "deprecated" in request.url.path:
                    return httpx.Response(404)
                return record(request)
            return await slow_page(request)

    async with httpx.AsyncClient(transport=Transport()) as client:
        info = await HackageAdapter(client).fetch_package("x")
    assert info.latest_version == "1.0"
    states = {s.name: s.status for s in info.sources}
    assert states == {
        "hackage.haskell.org package page": SourceState.UNAVAILABLE,
        "hackage.haskell.org deprecation": SourceState.UNAVAILABLE,
        # the highest version's .cabal file, asked at once: 503 here
        "hackage.haskell.org .cabal file": SourceState.UNAVAILABLE,
    }
    assert "/package/x/x.cabal" in started


async def test_fetch_paths_and_failures() -> None:
    seen: list[str] = []
    routes = {
        "/package/x.json": (200, {"1.0": "normal", "2.0": "normal"}),
        "/package/x-1.0": (200, "<html></html>"),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = HackageAdapter(client, base_url="https://mirror.example/")
        info = await adapter.fetch_package("x", version="1.0")
        assert info.dependencies_version == "1.0"
        assert await adapter.fetch_weekly_downloads("x") is None
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package("y")
    assert sorted(seen[:3]) == ["/package/x-1.0", "/package/x.json", "/package/x/deprecated.json"]
    async with httpx.AsyncClient(transport=routes_transport({"/package/x.json": timeout})) as c:
        with pytest.raises(RegistryUnavailable):
            await HackageAdapter(c).fetch_package("x")


async def test_cabal_file_gives_the_library_dependencies_of_the_latest_version() -> None:
    # 2.0 is the highest but deprecated: the bare .cabal URL answers for 2.0, so the latest
    # (1.5) is asked by its own URL, and its library's dependencies are the package's
    def cabal(version: str, deps: str) -> str:
        return (
            f"cabal-version: 2.4\nname: x\nversion: {version}\n\nlibrary\n  build-depends: {deps}\n"
            "  if os(windows)\n    build-depends: Win32\n\n"
            "executable x\n  build-depends: x, optparse-applicative\n"
        )

    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        if request.url.path == "/package/x.json":
            return httpx.Response(200, json={"1.5": "normal", "2.0": "deprecated"})
        if request.url.path == "/package/x/x.cabal":
            return httpx.Response(200, text=cabal("2.0", "base, new-dep"))
        if request.url.path == "/package/x-1.5/x.cabal":
            return httpx.Response(200, text=cabal("1.5", "base >=4 && <5, text ^>=2.0"))
        return httpx.Response(404)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        info = await HackageAdapter(client).fetch_package("x")
    assert info.latest_version == "1.5"
    assert "/package/x-1.5/x.cabal" in seen
    kinds = {d.name: (d.kind, d.requirement) for d in info.dependencies}
    assert kinds == {
        "base": ("runtime", ">=4 && <5"),
        "text": ("runtime", "^>=2.0"),
        "Win32": ("conditional", ""),
        "optparse-applicative": ("executable", ""),
    }
    assert info.dependencies_version == "1.5"
    assert "library on linux/x86_64" in info.extra["dependencies_source"]
    assert "dependencies_unavailable" not in info.extra  # the page 404 does not hide them
