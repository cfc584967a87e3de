"""Swift adapter: the Swift Package Index list, GitHub repository/tags/releases, failure table."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem, Maintainer
from pkgintel.ecosystems.swift import (
    SwiftAdapter,
    parse_package_list,
    parse_repository,
    tag_version,
)
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

LIST = "/SwiftPackageIndex/PackageList/main/packages.json"
REPO = "/repos/example/TinySwift"
GITHUB = "https://api.github.com"


def spi_list() -> bytes:
    return read_shared_bytes(
        "registry-fixtures",
        "swift",
        "raw.githubusercontent.com_SwiftPackageIndex_PackageList_main_packages.json",
    )


def github(name: str) -> Any:
    return read_shared_json("registry-fixtures", "github", name)


def repo_doc(**over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "full_name": "example/TinySwift",
        "html_url": "https://github.com/example/TinySwift",
        "description": "Tiny",
        "license": {"spdx_id": "MIT"},
        "owner": {"login": "example", "type": "User"},
        "homepage": "https://tiny.example",
        "archived": False,
        "stargazers_count": 12,
    }
    body.update(over)
    return body


def routes(**over: Any) -> dict[str, Any]:
    table: dict[str, Any] = {
        LIST: (200, ["https://github.com/example/TinySwift.git"]),
        REPO: (200, repo_doc()),
        f"{REPO}/tags": (200, [{"name": "v1.0.0"}, {"name": "1.1.0"}, {"name": "latest"}]),
        f"{REPO}/releases": (200, [{"tag_name": "1.1.0", "published_at": "2024-05-01T00:00:00Z"}]),
    }
    table.update(over)
    return table


def adapter(client: httpx.AsyncClient) -> SwiftAdapter:
    return SwiftAdapter(
        client,
        base_url="https://raw.githubusercontent.com/SwiftPackageIndex/PackageList/main",
        github_api_url=GITHUB,
    )


@pytest.mark.parametrize(
    ("tag", "version"),
    [
        ("1.2.3", "1.2.3"),
        ("v1.2.3", "1.2.3"),
        ("V2.0.0-beta.1", "2.0.0-beta.1"),
        ("1.2", None),
        ("v1.7.0.beta", None),
        ("release-1.0.0", None),
    ],
)
def test_tags_are_versions_when_they_are_semver(tag: str, version: str | None) -> None:
    assert tag_version(tag) == version


@requires_shared
def test_recorded_package_list_resolves_urls_and_shorthands() -> None:
    listed = parse_package_list(spi_list())
    assert len(listed) == 5200
    for spelling in (
        "https://github.com/0xLeif/Chronicle.git",
        "0xLeif/Chronicle",
        "github.com/0xleif/chronicle",
        "git@github.com:0xLeif/Chronicle.git",
        "https://github.com/0xLeif/Chronicle/",
    ):
        assert listed[normalise_name(Ecosystem.SWIFT, spelling)] == (
            "https://github.com/0xLeif/Chronicle.git"
        )
    assert all(validate_name(Ecosystem.SWIFT, url) for url in listed.values())


def test_package_list_must_be_an_array_of_urls() -> None:
    for body in (b"<html></html>", b'{"packages": []}', b"[1, 2]"):
        with pytest.raises(RegistryResponseInvalid):
            parse_package_list(body)


@requires_shared
def test_recorded_github_repository_and_releases() -> None:
    """gocardless/business's real repository and releases documents: SwiftPM reads only the SemVer
    tags (`v1.7.0.beta` is not one); dates come from the releases."""
    releases = github("api.github.com_repos_gocardless_business_releases_per_page_100.json")
    tags = [{"name": r["tag_name"]} for r in releases]
    info = parse_repository(github("api.github.com_repos_gocardless_business.json"), tags, releases)
    assert [r.version for r in info.releases] == ["1.5.0", "1.6.0", "1.7.0", "1.8.0"]
    assert info.latest_version == "1.8.0"
    assert info.release("1.8.0").published_at.isoformat() == "2017-02-13T17:47:30+00:00"  # type: ignore[union-attr]
    assert info.extra["tags_not_semver"] == "2"
    assert info.name == info.repository == "https://github.com/gocardless/business"
    assert info.description == "Business day calculations"
    assert info.maintainers == (Maintainer("gocardless", None, "organization"),)
    assert info.license is None  # the recorded document has no licence: null, not a guess
    assert info.dependencies == () and "Package.swift" in info.extra["dependencies_unavailable"]


def test_prerelease_flag_of_a_github_release_counts() -> None:
    info = parse_repository(
        repo_doc(),
        [{"name": "1.0.0"}, {"name": "1.1.0"}],
        [{"tag_name": "1.1.0", "prerelease": True}, {"tag_name": "1.0.0", "draft": True}],
    )
    assert info.latest_version == "1.0.0"
    assert info.release("1.1.0").prerelease  # type: ignore[union-attr]
    assert info.release("1.0.0").published_at is None  # type: ignore[union-attr]  # drafts are ignored


def test_repository_without_semver_tags_is_not_a_versioned_package() -> None:
    with pytest.raises(RegistryResponseInvalid) as caught:
        parse_repository(repo_doc(), [{"name": "main-snapshot"}], [])
    assert caught.value.reason == "no_versions"


# --- fetching ---------------------------------------------------------------------------------


async def test_fetch_by_shorthand_asks_the_code_host_in_the_listed_spelling() -> None:
    seen: list[str] = []
    async with httpx.AsyncClient(transport=routes_transport(routes(), seen=seen)) as client:
        a = adapter(client)
        info = await a.fetch_package("EXAMPLE/tinyswift")
        again = await a.fetch_package("https://github.com/example/TinySwift", version="v1.0.0")
    assert info.name == "https://github.com/example/TinySwift.git"
    assert info.latest_version == "1.1.0" and info.license == "MIT"
    assert [r.version for r in info.releases] == ["1.0.0", "1.1.0"]
    assert again.dependencies_version == "1.0.0"
    assert seen.count(LIST) == 1  # the list is kept in memory
    assert {REPO, f"{REPO}/tags", f"{REPO}/releases"} <= set(seen)
    assert info.sources[0].status.value == "ok"


async def test_package_not_in_the_list_is_not_found_without_asking_the_code_host() -> None:
    seen: list[str] = []
    async with httpx.AsyncClient(transport=routes_transport(routes(), seen=seen)) as client:
        with pytest.raises(PackageNotFound):
            await adapter(client).fetch_package("example/Other")
    assert seen == [LIST]


@requires_shared
async def test_listed_package_without_code_host_data_is_unavailable_naming_github() -> None:
    async with httpx.AsyncClient(transport=routes_transport({LIST: (200, spi_list())})) as client:
        with pytest.raises(RegistryUnavailable) as caught:
            await adapter(client).fetch_package("0xLeif/Chronicle")
    assert caught.value.source == "api.github.com"
    assert caught.value.reason == "code_host.not_found"
    assert "0xLeif/Chronicle" in caught.value.message


async def test_list_down_lets_the_code_host_decide() -> None:
    async with httpx.AsyncClient(
        transport=routes_transport(routes(**{LIST: (503, b"")}))
    ) as client:
        info = await adapter(client).fetch_package("example/TinySwift")
        with pytest.raises(PackageNotFound):
            await adapter(client).fetch_package("example/Gone")
    assert info.latest_version == "1.1.0"
    assert info.sources[0].status.value == "unavailable" and info.sources[0].detail == "status.503"


async def test_rate_limit_is_unavailable_with_retry_after() -> None:
    reset = str(int(time.time()) + 120)

    def limited(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            403,
            headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
            json={"message": "API rate limit exceeded"},
        )

    async with httpx.AsyncClient(transport=routes_transport(routes(**{REPO: limited}))) as client:
        with pytest.raises(RegistryUnavailable) as caught:
            await adapter(client).fetch_package("example/TinySwift")
    assert caught.value.reason == "rate_limited"
    assert caught.value.retry_after is not None and 100 <= caught.value.retry_after <= 121


async def test_tags_follow_the_link_header() -> None:
    second = f"{GITHUB}{REPO}/tags?per_page=100&page=2"

    def tags(request: httpx.Request) -> httpx.Response:
        if request.url.params.get("page") == "2":
            return httpx.Response(200, json=[{"name": "2.0.0"}])
        return httpx.Response(
            200, json=[{"name": "1.0.0"}], headers={"link": f'<{second}>; rel="next"'}
        )

    async with httpx.AsyncClient(
        transport=routes_transport(routes(**{f"{REPO}/tags": tags}))
    ) as client:
        info = await adapter(client).fetch_package("example/TinySwift")
    assert [r.version for r in info.releases] == ["1.0.0", "2.0.0"]


async def test_token_is_sent_to_the_code_host_only() -> None:
    auth: dict[str, str | None] = {}

    def record(request: httpx.Request) -> httpx.Response:
        auth[request.url.host] = request.headers.get("authorization")
        return httpx.Response(200, json=["https://github.com/example/TinySwift.git"])

    table = routes(**{LIST: record})

    def repo(request: httpx.Request) -> httpx.Response:
        auth[request.url.host] = request.headers.get("authorization")
        return httpx.Response(200, json=repo_doc())

    table[REPO] = repo
    async with httpx.AsyncClient(transport=routes_transport(table)) as client:
        await SwiftAdapter(
            client,
            base_url="https://raw.githubusercontent.com/SwiftPackageIndex/PackageList/main",
            github_token="t0ken",
        ).fetch_package("example/TinySwift")
    assert auth == {"raw.githubusercontent.com": None, "api.github.com": "Bearer t0ken"}


@pytest.mark.parametrize(
    ("answer", "error"), [((502, b""), RegistryUnavailable), (timeout, RegistryUnavailable)]
)
async def test_code_host_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    async with httpx.AsyncClient(
        transport=routes_transport(routes(**{f"{REPO}/tags": answer}))
    ) as client:
        with pytest.raises(error):
            await adapter(client).fetch_package("example/TinySwift")


async def test_untagged_version_is_version_not_found() -> None:
    async with httpx.AsyncClient(transport=routes_transport(routes())) as client:
        with pytest.raises(VersionNotFound) as caught:
            await adapter(client).fetch_package("example/TinySwift", version="9.9.9")
    assert caught.value.available == ["1.1.0", "1.0.0"]
