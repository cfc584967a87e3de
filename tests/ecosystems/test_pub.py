"""Pub adapter: pub.dev package documents (retracted, discontinued), score, fetch errors."""

from __future__ import annotations

import asyncio
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
from pkgintel.ecosystems.pub import PubAdapter, parse_package
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

PKG = "/api/packages/tiny"
SCORE = "/api/packages/tiny/score"
PUBLISHER = "/api/packages/tiny/publisher"


def fixture(name: str) -> Any:
    return read_shared_json("registry-fixtures", "pub", name)


def small(**over: Any) -> dict[str, Any]:
    def version(v: str, **extra: Any) -> dict[str, Any]:
        return {
            "version": v,
            "published": f"2024-0{v[0]}-01T00:00:00Z",
            "pubspec": {
                "name": "tiny",
                "version": v,
                "description": f"tiny {v}",
                "repository": "https://github.com/ann/tiny/tree/main/pkgs/tiny",
                "environment": {"sdk": ">=3.0.0 <4.0.0"},
                "dependencies": {
                    "meta": "^1.9.0",
                    "flutter": {"sdk": "flutter"},
                    "local": {"path": "../local"},
                    "anything": None,
                },
            },
            **extra,
        }

    body: dict[str, Any] = {
        "name": "tiny",
        "latest": version("2.0.0"),
        "versions": [
            version("1.0.0"),
            version("2.0.0"),
            version("3.0.0-dev.1"),
            version("1.1.0", retracted=True),
        ],
    }
    body.update(over)
    return body


# --- parsing ----------------------------------------------------------------------------------


def test_small_package() -> None:
    info = parse_package(small())
    assert info.latest_version == "2.0.0"
    assert [r.version for r in info.releases] == ["1.0.0", "1.1.0", "2.0.0", "3.0.0-dev.1"]
    retracted = info.release("1.1.0")
    assert retracted is not None and retracted.yanked and retracted.yanked_reason == "retracted"
    assert info.release("3.0.0-dev.1").prerelease  # type: ignore[union-attr]
    assert info.dependencies == (
        Dependency("meta", "^1.9.0"),
        Dependency("flutter", "sdk:flutter", kind="sdk"),
        Dependency("local", "", kind="source:path"),
        Dependency("anything", "any"),
    )
    assert info.repository == "https://github.com/ann/tiny"
    assert info.extra["requires_dart"] == ">=3.0.0 <4.0.0"
    assert info.license is None  # pub.dev's package document carries no licence
    assert not info.deprecated


@pytest.mark.parametrize(
    ("replaced_by", "message"),
    [
        ("tiny_plus", "discontinued: the publisher suggests tiny_plus instead"),
        (None, "discontinued by its publisher"),
    ],
)
def test_discontinued_is_deprecation_with_its_successor(
    replaced_by: str | None, message: str
) -> None:
    info = parse_package(small(isDiscontinued=True, replacedBy=replaced_by))
    assert info.deprecated and info.deprecated_message == message
    assert info.extra.get("deprecated_successor") == replaced_by


def test_score_and_publisher_documents() -> None:
    score = {
        "grantedPoints": 140,
        "maxPoints": 160,
        "likeCount": 12,
        "downloadCount30Days": 4321,
        "tags": ["license:bsd-3-clause", "license:fsf-libre", "license:osi-approved", "sdk:dart"],
    }
    info = parse_package(small(), score=score, publisher={"publisherId": "tiny.dev"})
    assert info.license == "bsd-3-clause"
    assert info.extra["downloads"] == "4321"
    assert info.extra["downloads_window"] == "30d"
    assert info.extra["pub.likeCount"] == "12"
    assert [(m.name, m.role) for m in info.maintainers] == [("tiny.dev", "publisher")]


def test_requested_version_and_missing_version() -> None:
    info = parse_package(small(), version="1.0.0")
    assert info.dependencies_version == "1.0.0"
    with pytest.raises(VersionNotFound) as caught:
        parse_package(small(), version="9.0.0")
    assert caught.value.available[:2] == ["3.0.0-dev.1", "2.0.0"]


@pytest.mark.parametrize(
    "body",
    [{}, {"name": "tiny"}, {"name": "tiny", "versions": {}}, {"name": "tiny", "versions": []}],
)
def test_bodies_of_the_wrong_shape_are_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_package(body)


@requires_shared
def test_bloc_recorded() -> None:
    info = parse_package(fixture("pub.dev_api_packages_bloc.json"))
    assert info.ecosystem is Ecosystem.PUB
    assert (info.name, info.latest_version) == ("bloc", "8.0.3")
    assert len(info.releases) == 105
    assert info.dependencies == (Dependency("meta", "^1.3.0"),)
    assert info.repository == "https://github.com/felangel/bloc"
    assert info.release("8.0.0-dev.5").prerelease  # type: ignore[union-attr]
    # 0.1.0's legacy pubspec had an `author`; the latest has none, so no maintainer is invented.
    assert info.maintainers == ()


@requires_shared
@pytest.mark.parametrize(
    ("name", "retracted"),
    [
        ("pub.dev_api_packages_go_router.json", "4.2.1"),
        ("pub.dartlang.org_api_packages_shared_preferences.json", "0.1.2"),
    ],
)
def test_recorded_retracted_versions_are_yanked(name: str, retracted: str) -> None:
    info = parse_package(fixture(name))
    assert [r.version for r in info.releases if r.yanked] == [retracted]
    assert info.latest_version != retracted


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "pub.dev_api_packages_bloc.json",
        "pub.dev_api_packages_go_router.json",
        "pub.dev_api_packages_meta.json",
        "pub.dev_api_packages_mockito.json",
        "pub.dev_api_packages_path.json",
        "pub.dev_api_packages_protobuf.json",
        "pub.dev_api_packages_pub_semver.json",
    ],
)
def test_recorded_latest_is_the_newest_stable_by_pub_ordering(name: str) -> None:
    """pub.dev's `latest` is the newest non-pre-release; our ordering puts no stable above it."""
    body = fixture(name)
    info = parse_package(body)
    stable = [r.version for r in info.releases if not r.prerelease and not r.yanked]
    assert newest_first(Ecosystem.PUB, stable)[0] == body["latest"]["version"]


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "pub.dev_api_packages_bloc.json",
        "pub.dev_api_packages_go_router.json",
        "pub.dev_api_packages_meta.json",
        "pub.dev_api_packages_mockito.json",
        "pub.dev_api_packages_path.json",
        "pub.dev_api_packages_protobuf.json",
        "pub.dev_api_packages_pub_semver.json",
        "pub.dartlang.org_api_packages_shared_preferences.json",
    ],
)
def test_recorded_lists_sort_like_pub_dev_lists_them(name: str) -> None:
    """pub.dev lists versions oldest first by pub_semver precedence; our ordering agrees."""
    listed = [v["version"] for v in fixture(name)["versions"]]
    assert newest_first(Ecosystem.PUB, listed) == listed[::-1]
    assert [r.version for r in parse_package(fixture(name)).releases] == listed


# --- fetching ---------------------------------------------------------------------------------


async def test_fetch_makes_three_concurrent_requests_and_shares_the_score() -> None:
    seen: list[str] = []
    routes = {
        PKG: (200, small()),
        SCORE: (200, {"downloadCount30Days": 5}),
        PUBLISHER: (200, {"publisherId": None}),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = PubAdapter(client)
        info, weekly = await asyncio.gather(
            adapter.fetch_package("tiny"), adapter.fetch_weekly_downloads("tiny")
        )
    assert weekly is None  # a 30-day count is not a weekly one
    assert info.extra["downloads"] == "5"
    assert sorted(seen) == sorted(routes)


async def test_score_failing_drops_only_the_score() -> None:
    routes = {PKG: (200, small()), SCORE: (500, b"boom"), PUBLISHER: timeout}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        info = await PubAdapter(client).fetch_package("tiny")
    assert info.latest_version == "2.0.0" and "downloads_window" not in info.extra


@requires_shared
async def test_recorded_404_is_package_not_found() -> None:
    body = read_shared_bytes(
        "registry-fixtures", "pub", "status-404__pub.dev_api_packages_doesnotexist123456.xml"
    )
    routes = {"/api/packages/doesnotexist123456": (404, body)}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(PackageNotFound):
            await PubAdapter(client).fetch_package("doesnotexist123456")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((503, b"down"), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((200, b"<Error/>"), RegistryResponseInvalid),
        ((200, {"name": "tiny"}), RegistryResponseInvalid),
    ],
)
async def test_package_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    async with httpx.AsyncClient(transport=routes_transport({PKG: answer})) as client:
        with pytest.raises(error):
            await PubAdapter(client).fetch_package("tiny")


async def test_missing_version_over_http_is_version_not_found() -> None:
    async with httpx.AsyncClient(transport=routes_transport({PKG: (200, small())})) as client:
        with pytest.raises(VersionNotFound):
            await PubAdapter(client).fetch_package("tiny", version="0.0.1")


def test_requested_version_states_its_own_sdk_constraint() -> None:
    """Issue 27: `requires_dart` of an old version is that version's pubspec's, not the latest's."""
    body = small()
    old = next(v for v in body["versions"] if v["version"] == "1.0.0")
    old["pubspec"]["environment"] = {"sdk": ">=2.12.0 <3.0.0"}

    assert parse_package(body, version="1.0.0").extra["requires_dart"] == ">=2.12.0 <3.0.0"
    assert parse_package(body).extra["requires_dart"] == ">=3.0.0 <4.0.0"
