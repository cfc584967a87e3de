"""CocoaPods adapter: CDN shards and podspecs (recorded and hand-written), deprecation, errors."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.packages import Dependency, Ecosystem, Maintainer
from pkgintel.domain.versions import newest_first
from pkgintel.ecosystems.cocoapods import (
    CocoaPodsAdapter,
    latest_version,
    parse_pod,
    parse_shard,
    shard,
)
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

FOLDER = "registry-fixtures", "cocoapods"
FOO_SHARD = "/all_pods_versions_1_3_5.txt"
FOO_SPEC = "/Specs/1/3/5/Foo/1.1.3/Foo.podspec.json"


def text(name: str) -> str:
    return read_shared_bytes(*FOLDER, name).decode()


def spec(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Tiny",
        "version": "2.0.0",
        "summary": "Tiny pod",
        "license": {"type": "Apache-2.0", "file": "LICENSE"},
        "authors": ["Ann", "Bob"],
        "homepage": "https://tiny.example",
        "source": {"git": "https://github.com/ann/Tiny.git", "tag": "2.0.0"},
        "dependencies": {"AFNetworking": ["~> 4.0", ">= 4.0.1"]},
        "subspecs": [
            {"name": "Core", "dependencies": {"Tiny/Base": []}},
            {"name": "UI", "dependencies": {"SnapKit": ["~> 5.0"]}},
        ],
    }
    body.update(over)
    return body


def test_shard_is_the_md5_of_the_exact_name() -> None:
    # The recorded CDN URLs place Foo in 1/3/5 and AppNetworkManager in 2/2/2.
    assert shard("Foo") == ("1", "3", "5")
    assert shard("AppNetworkManager") == ("2", "2", "2")
    assert shard("foo") != shard("Foo")  # the spelling matters: names are case-sensitive here


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "cdn.cocoapods.org_all_pods_versions_1_3_5.txt",
        "cdn.cocoapods.org_all_pods_versions_2_2_2.txt",
    ],
)
def test_recorded_shards_list_versions_in_pod_version_order(name: str) -> None:
    """The CDN lists each pod's versions oldest first by `Pod::Version`; our ordering agrees on
    every line (four-part versions, `1.164` < `1.1641`, betas before their release)."""
    lines = [line.split("/") for line in text(name).splitlines() if line.strip()]
    assert len(lines) >= 15
    for pod, *listed in lines:
        assert parse_shard(text(name), pod) == listed
        assert newest_first(Ecosystem.COCOAPODS, listed) == listed[::-1], pod


@requires_shared
def test_foo_from_its_recorded_shard_and_podspec() -> None:
    versions = parse_shard(text("cdn.cocoapods.org_all_pods_versions_1_3_5.txt"), "Foo")
    body = read_shared_json(*FOLDER, "cdn.cocoapods.org_Specs_1_3_5_Foo_1.1.3_Foo.podspec.json")
    info = parse_pod("Foo", versions, body, target="1.1.3")
    assert info.latest_version == "1.1.3"
    assert [r.version for r in info.releases] == [
        "1.0.7",
        "1.0.9",
        "1.1.0",
        "1.1.1",
        "1.1.2",
        "1.1.3",
    ]
    assert all(r.published_at is None for r in info.releases)  # the CDN has no dates
    assert info.license == "MIT"
    assert info.maintainers == (Maintainer("Deepesh", "deepesh259nitk@gmail.com", "author"),)
    assert info.repository == "https://github.com/deepesh259nitk/mixedFramework"
    assert info.description.startswith("This is a iOS framework")
    assert info.dependencies == () and info.deprecated is False
    assert info.extra["platform.ios"] == "11.0"
    assert "downloads_unavailable" in info.extra


@requires_shared
def test_app_network_manager_dependencies_keep_their_requirements() -> None:
    versions = parse_shard(
        text("cdn.cocoapods.org_all_pods_versions_2_2_2.txt"), "AppNetworkManager"
    )
    body = read_shared_json(
        *FOLDER,
        "cdn.cocoapods.org_Specs_2_2_2_AppNetworkManager_1.0.0_AppNetworkManager.podspec.json",
    )
    info = parse_pod("AppNetworkManager", versions, body, target="1.0.0")
    assert info.latest_version == "1.0.7" and info.dependencies_version == "1.0.0"
    assert Dependency("RxSwift", "~>4.5.0") in info.dependencies
    assert Dependency("Moya/RxSwift", "~> 13.0.1") in info.dependencies
    assert info.extra["swift_versions"] == "4.2"


def test_pre_releases_are_never_latest() -> None:
    assert latest_version(["1.0.0", "2.0.0-beta.1", "1.1.0"]) == "1.1.0"
    assert latest_version(["1.0.0-beta.1", "1.0.0-beta.2"]) == "1.0.0-beta.2"


def test_subspec_dependencies_and_joined_requirements() -> None:
    info = parse_pod("Tiny", ["1.0.0", "2.0.0"], spec(), target="2.0.0")
    assert info.dependencies == (
        Dependency("AFNetworking", "~> 4.0, >= 4.0.1"),
        Dependency("SnapKit", "~> 5.0", kind="extra:UI"),
    )  # Tiny/Base is the pod's own subspec
    assert info.license == "Apache-2.0"
    assert [m.name for m in info.maintainers] == ["Ann", "Bob"]
    assert info.homepage == "https://tiny.example"
    assert info.repository == "https://github.com/ann/Tiny"


@pytest.mark.parametrize(
    ("over", "message", "successor"),
    [
        ({"deprecated_in_favor_of": "Huge"}, "deprecated in favour of Huge", "Huge"),
        ({"deprecated": True}, "deprecated by its owners", None),
    ],
)
def test_deprecation_from_the_latest_podspec(
    over: dict[str, Any], message: str, successor: str | None
) -> None:
    info = parse_pod("Tiny", ["1.0.0", "2.0.0"], spec(**over), target="2.0.0")
    assert info.deprecated is True and info.deprecated_message == message
    assert info.extra.get("deprecated_successor") == successor


def test_missing_podspec_reports_the_shard_and_says_why() -> None:
    info = parse_pod("Tiny", ["1.0.0", "2.0.0"], None, target="2.0.0", spec_error="status.503")
    assert info.latest_version == "2.0.0" and info.license is None and info.maintainers == ()
    assert "status.503" in info.extra["podspec_unavailable"]
    assert info.sources[0].status.value == "unavailable"


def test_shard_lines_must_be_pod_lines() -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_shard("<html><body>CDN error page</body></html>", "Foo")
    with pytest.raises(PackageNotFound):
        parse_shard("Bar/1.0.0\n", "Foo")


# --- fetching ---------------------------------------------------------------------------------


@requires_shared
async def test_fetch_reads_the_shard_then_the_latest_podspec() -> None:
    seen: list[str] = []
    routes = {
        FOO_SHARD: (200, text("cdn.cocoapods.org_all_pods_versions_1_3_5.txt")),
        FOO_SPEC: (
            200,
            read_shared_bytes(*FOLDER, "cdn.cocoapods.org_Specs_1_3_5_Foo_1.1.3_Foo.podspec.json"),
        ),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = CocoaPodsAdapter(client)
        info = await adapter.fetch_package("Foo")
        assert await adapter.fetch_weekly_downloads("Foo") is None
    assert seen == [FOO_SHARD, FOO_SPEC]
    assert info.name == "Foo" and info.license == "MIT"


@requires_shared
async def test_requested_version_fetches_shard_and_podspec_together() -> None:
    seen: list[str] = []
    spec_path = "/Specs/1/3/5/Foo/1.0.9/Foo.podspec.json"
    routes = {
        FOO_SHARD: (200, text("cdn.cocoapods.org_all_pods_versions_1_3_5.txt")),
        spec_path: (200, spec(name="Foo", version="1.0.9")),
    }
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        info = await CocoaPodsAdapter(client).fetch_package("Foo", version="1.0.9")
        with pytest.raises(VersionNotFound) as caught:
            await CocoaPodsAdapter(client).fetch_package("Foo", version="9.9.9")
    assert sorted(seen[:2]) == sorted([FOO_SHARD, spec_path])
    assert info.dependencies_version == "1.0.9" and info.latest_version == "1.1.3"
    assert caught.value.available[0] == "1.1.3"


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((503, b""), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((404, b""), PackageNotFound),
    ],
)
async def test_shard_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    routes = {FOO_SHARD: answer}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(error):
            await CocoaPodsAdapter(client).fetch_package("Foo")
