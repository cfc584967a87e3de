"""Composer adapter: the minified p2 format, abandoned packages, packagist.org stats, fetch errors."""

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
from pkgintel.domain.packages import Dependency, Ecosystem
from pkgintel.domain.versions import newest_first
from pkgintel.ecosystems.composer import ComposerAdapter, expand_minified, parse_p2
from tests.ecosystems._routes import routes_transport, timeout
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

P2 = "/p2/acme/widget.json"
DEV = "/p2/acme/widget~dev.json"
STATS = "/packages/acme/widget.json"


def fixture(name: str) -> Any:
    return read_shared_json("registry-fixtures", "composer", name)


def small_p2(**head: Any) -> dict[str, Any]:
    first = {
        "name": "acme/widget",
        "description": "Widgets",
        "version": "v2.0.0",
        "version_normalized": "2.0.0.0",
        "license": ["MIT"],
        "time": "2024-03-01T10:00:00+00:00",
        "require": {"php": ">=8.1", "ext-json": "*", "psr/log": "^3.0"},
        "source": {"url": "https://github.com/acme/widget.git", "type": "git"},
        "authors": [{"name": "Ann", "email": "ann@example.org"}],
        **head,
    }
    return {
        "minified": "composer/2.0",
        "packages": {
            "acme/widget": [
                first,
                {
                    "version": "v2.0.0-RC1",
                    "version_normalized": "2.0.0.0-RC1",
                    "time": "2024-02-01T00:00:00+00:00",
                },
                {
                    "version": "v1.0.0",
                    "version_normalized": "1.0.0.0",
                    "time": "2023-01-01T00:00:00+00:00",
                    "require": "__unset",
                },
            ]
        },
    }


# --- parsing ----------------------------------------------------------------------------------


def test_expand_minified_inherits_and_unsets_keys() -> None:
    expanded = expand_minified(small_p2()["packages"]["acme/widget"])
    assert [e["version"] for e in expanded] == ["v2.0.0", "v2.0.0-RC1", "v1.0.0"]
    assert expanded[1]["license"] == ["MIT"]  # inherited from the entry before
    assert expanded[1]["require"]["psr/log"] == "^3.0"
    assert "require" not in expanded[2]  # "__unset"


def test_small_package_latest_is_the_highest_stable_and_platform_packages_are_marked() -> None:
    info = parse_p2(small_p2(), name="acme/widget")
    assert info.latest_version == "v2.0.0"
    assert [r.version for r in info.releases] == ["v1.0.0", "v2.0.0-RC1", "v2.0.0"]
    assert info.release("v2.0.0-RC1").prerelease  # type: ignore[union-attr]
    assert info.dependencies == (
        Dependency("php", ">=8.1", kind="platform"),
        Dependency("ext-json", "*", kind="platform"),
        Dependency("psr/log", "^3.0"),
    )
    assert info.extra["requires_php"] == ">=8.1"
    assert info.repository == "https://github.com/acme/widget"
    assert info.license == "MIT"


@pytest.mark.parametrize(
    ("asked", "listed"), [("v1.0.0", "v1.0.0"), ("1.0.0", "v1.0.0"), ("1.0", "v1.0.0")]
)
def test_a_requested_version_matches_by_normalised_form(asked: str, listed: str) -> None:
    info = parse_p2(small_p2(), name="acme/widget", version=asked)
    assert info.dependencies_version == listed
    assert info.dependencies == ()  # v1.0.0 had its `require` unset


def test_missing_version_is_version_not_found() -> None:
    with pytest.raises(VersionNotFound) as caught:
        parse_p2(small_p2(), name="acme/widget", version="3.0.0")
    assert caught.value.available == ["v2.0.0", "v2.0.0-RC1", "v1.0.0"]


@pytest.mark.parametrize(
    ("abandoned", "message", "replacement"),
    [
        (True, "abandoned: the maintainers no longer support this package", None),
        ("acme/gadget", "abandoned: the maintainers suggest acme/gadget instead", "acme/gadget"),
    ],
)
def test_abandoned_is_deprecation_with_its_replacement(
    abandoned: Any, message: str, replacement: str | None
) -> None:
    info = parse_p2(small_p2(abandoned=abandoned), name="acme/widget")
    assert info.deprecated and info.deprecated_message == message
    assert info.extra.get("deprecated_successor") == replacement


def test_stats_document_gives_downloads_maintainers_and_abandoned() -> None:
    stats = {
        "name": "acme/widget",
        "maintainers": [{"name": "ann"}, {"name": "bob"}],
        "downloads": {"total": 1000, "monthly": 300, "daily": 10},
        "abandoned": "acme/gadget",
        "repository": "https://github.com/acme/widget",
    }
    info = parse_p2(small_p2(), name="acme/widget", stats=stats)
    assert [m.name for m in info.maintainers] == ["ann", "bob"]
    assert info.extra["downloads.monthly"] == "300"
    assert info.extra["downloads.total"] == "1000"
    assert info.extra["downloads"] == "300" and info.extra["downloads_window"] == "monthly"
    assert info.deprecated_message == "abandoned: the maintainers suggest acme/gadget instead"


def test_dev_branch_resolves_from_the_dev_file_but_is_not_a_release() -> None:
    dev = {
        "minified": "composer/2.0",
        "packages": {
            "acme/widget": [{"version": "dev-main", "require": {"acme/core": "dev-main"}}]
        },
    }
    info = parse_p2(small_p2(), name="acme/widget", dev=dev, version="dev-main")
    assert info.dependencies_version == "dev-main"
    assert info.dependencies == (Dependency("acme/core", "dev-main"),)
    assert "dev-main" not in [r.version for r in info.releases]


@pytest.mark.parametrize("body", [{}, {"packages": []}, {"packages": {"acme/widget": {"v": 1}}}])
def test_bodies_of_the_wrong_shape_are_invalid(body: dict[str, Any]) -> None:
    with pytest.raises(RegistryResponseInvalid):
        parse_p2(body, name="acme/widget")


def test_document_without_the_package_is_not_found() -> None:
    with pytest.raises(PackageNotFound):
        parse_p2({"packages": {"other/pkg": []}, "minified": "composer/2.0"}, name="acme/widget")


@requires_shared
def test_monolog_recorded_p2() -> None:
    info = parse_p2(
        fixture("osvdev__repo.packagist.org_p2_monolog_monolog.json"), name="monolog/monolog"
    )
    assert info.ecosystem is Ecosystem.COMPOSER
    assert (info.name, info.latest_version, info.license) == ("monolog/monolog", "3.10.0", "MIT")
    assert len(info.releases) == 87
    assert [r.version for r in info.releases[-3:]] == ["3.8.1", "3.9.0", "3.10.0"]
    assert info.release("1.0.0-RC1").prerelease  # type: ignore[union-attr]
    assert info.dependencies == (
        Dependency("php", ">=8.1", kind="platform"),
        Dependency("psr/log", "^2.0 || ^3.0"),
    )
    assert info.repository == "https://github.com/Seldaek/monolog"
    assert not info.deprecated


@requires_shared
@pytest.mark.parametrize(
    "name",
    [
        "osvdev__repo.packagist.org_p2_monolog_monolog.json",
        "repo.packagist.org_p2_neos_neos.json",
        "repo.packagist.org_p2_doctrine_dbal.json",
        "repo.packagist.org_p2_symfony_polyfill-mbstring.json",
        "repo.packagist.org_p2_drewm_mailchimp-api.json",
        "repo.packagist.org_p2_maztech_instagram-php-graph-sdk.json",
    ],
)
def test_recorded_lists_sort_like_packagist_lists_them(name: str) -> None:
    """Packagist's p2 lists versions newest first by Composer's ordering; ours agrees on each list."""
    body = fixture(name)
    (package,) = body["packages"]
    listed = [e["version"] for e in expand_minified(body["packages"][package])]
    assert newest_first(Ecosystem.COMPOSER, listed) == listed
    info = parse_p2(body, name=package)
    assert [r.version for r in reversed(info.releases)] == listed


@requires_shared
def test_psr_log_with_packagist_stats() -> None:
    info = parse_p2(
        fixture("repo.packagist.org_p2_psr_log.json"),
        name="psr/log",
        stats=fixture("packagist.org_packages_psr_log.json"),
    )
    assert info.latest_version == "3.0.0"
    assert [m.name for m in info.maintainers] == ["Seldaek", "michaelcullum", "fig"]
    assert info.extra["downloads.monthly"] == "13408240"
    assert info.repository == "https://github.com/php-fig/log"


# --- fetching ---------------------------------------------------------------------------------


async def test_fetch_lower_cases_the_name_and_shares_the_stats_request() -> None:
    seen: list[str] = []
    stats = {"downloads": {"total": 5, "monthly": 2, "daily": 1}, "maintainers": [{"name": "ann"}]}
    routes = {P2: (200, small_p2()), STATS: (200, stats)}
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        adapter = ComposerAdapter(client)
        import asyncio

        info, weekly = await asyncio.gather(
            adapter.fetch_package("Acme/Widget"), adapter.fetch_weekly_downloads("Acme/Widget")
        )
    assert weekly is None
    assert info.extra["downloads.monthly"] == "2"
    assert sorted(seen) == sorted([P2, STATS])  # one stats request for both calls, no ~dev


async def test_dev_version_fetches_the_dev_file() -> None:
    seen: list[str] = []
    dev = {"packages": {"acme/widget": [{"version": "dev-main"}]}}
    routes = {P2: (200, small_p2()), DEV: (200, dev), STATS: (404, b"")}
    async with httpx.AsyncClient(transport=routes_transport(routes, seen=seen)) as client:
        info = await ComposerAdapter(client).fetch_package("acme/widget", version="dev-main")
    assert DEV in seen and info.dependencies_version == "dev-main"


async def test_stats_failing_marks_downloads_unavailable_not_the_package() -> None:
    routes = {P2: (200, small_p2()), STATS: (502, b"bad gateway")}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        adapter = ComposerAdapter(client)
        info = await adapter.fetch_package("acme/widget")
        with pytest.raises(RegistryUnavailable):
            await adapter.fetch_weekly_downloads("acme/widget")
    assert "downloads_window" not in info.extra
    assert info.extra["maintainers_source"] == "composer.json authors"


@requires_shared
async def test_recorded_404_is_package_not_found() -> None:
    body = read_shared_bytes(
        "registry-fixtures",
        "composer",
        "status-404__repo.packagist.org_p2_doesnotexist_doesnotexist.json",
    )
    routes = {"/p2/doesnotexist/doesnotexist.json": (404, body)}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(PackageNotFound):
            await ComposerAdapter(client).fetch_package("doesnotexist/doesnotexist")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ((503, b"down"), RegistryUnavailable),
        (timeout, RegistryUnavailable),
        ((200, b"not json"), RegistryResponseInvalid),
        ((200, b"[1, 2]"), RegistryResponseInvalid),
    ],
)
async def test_p2_failures_map_to_domain_errors(answer: Any, error: type[Exception]) -> None:
    routes = {P2: answer, STATS: (200, {})}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(error):
            await ComposerAdapter(client).fetch_package("acme/widget")


async def test_missing_version_over_http_is_version_not_found() -> None:
    routes = {P2: (200, small_p2()), STATS: (200, {})}
    async with httpx.AsyncClient(transport=routes_transport(routes)) as client:
        with pytest.raises(VersionNotFound):
            await ComposerAdapter(client).fetch_package("acme/widget", version="9.0.0")
