"""
The adapter contract for RubyGems, Composer, Pub and Hex, on hand-written and recorded bodies:
parse without invented values, unknown → `PackageNotFound` (and no weekly downloads), 5xx/timeout →
`RegistryUnavailable`, malformed authoritative body → `RegistryResponseInvalid`, missing version →
`VersionNotFound` listing versions that exist.

The rows (`CASES`) have the shape of the shared contract test's rows (`id`, ecosystem, package,
URL → answer, primary URL, a missing version), so they can join it unchanged.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from pkgintel.domain.errors import (
    PackageNotFound,
    RegistryResponseInvalid,
    RegistryUnavailable,
    VersionNotFound,
)
from pkgintel.domain.names import normalise_name
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.domain.versions import sort_key
from pkgintel.ecosystems import ADAPTERS
from tests.shared import SHARED_DATA

Answers = dict[str, tuple[int, bytes]]


@dataclass(frozen=True)
class Case:
    id: str
    ecosystem: Ecosystem
    package: str
    answers: Callable[[], Answers]
    primary_url: str
    missing_version: str = "999.999.999"
    recorded: bool = False


def fixed(answers: dict[str, Any]) -> Callable[[], Answers]:
    return lambda: {
        url: (200, body if isinstance(body, bytes) else json.dumps(body).encode())
        for url, body in answers.items()
    }


def recorded(folder: str, *files: str) -> Callable[[], Answers]:
    def load() -> Answers:
        base = SHARED_DATA / "registry-fixtures" / folder
        index = {i["file"]: i for i in json.loads((base / "INDEX.json").read_text())}
        out: Answers = {}
        for name in files:
            raw = (base / name).read_bytes()
            body = gzip.decompress(raw) if index[name].get("gzipped") else raw
            out[index[name]["url"]] = (int(index[name]["status"]), body)
        return out

    return load


_GEM = {
    "name": "tiny",
    "version": "1.1.0",
    "version_created_at": "2024-02-01T10:00:00.000Z",
    "downloads": 1234,
    "version_downloads": 56,
    "authors": "Ann Author",
    "info": "A tiny gem for tests",
    "licenses": ["MIT"],
    "homepage_uri": "https://github.com/ann/tiny",
    "dependencies": {"runtime": [{"name": "rack", "requirements": ">= 2.0"}], "development": []},
}
_GEM_VERSIONS = [
    {"number": "1.1.0", "platform": "ruby", "created_at": "2024-02-01T10:00:00.000Z"},
    {"number": "1.0.0", "platform": "ruby", "created_at": "2024-01-01T10:00:00.000Z"},
]
_P2 = {
    "minified": "composer/2.0",
    "packages": {
        "acme/widget": [
            {
                "name": "acme/widget",
                "description": "Widgets for tests",
                "version": "2.0.0",
                "version_normalized": "2.0.0.0",
                "license": ["MIT"],
                "time": "2024-03-01T10:00:00+00:00",
                "require": {"php": ">=8.1", "psr/log": "^3.0"},
                "source": {"url": "https://github.com/acme/widget.git", "type": "git"},
                "authors": [{"name": "Ann"}],
            },
            {
                "version": "1.0.0",
                "version_normalized": "1.0.0.0",
                "time": "2023-01-01T00:00:00+00:00",
            },
        ]
    },
}
_PUB = {
    "name": "tiny_dart",
    "latest": {
        "version": "1.0.0",
        "published": "2024-01-01T00:00:00.000Z",
        "pubspec": {
            "name": "tiny_dart",
            "description": "Tiny Dart package",
            "dependencies": {"meta": "^1.9.0"},
        },
    },
    "versions": [
        {
            "version": "1.0.0",
            "published": "2024-01-01T00:00:00.000Z",
            "pubspec": {
                "name": "tiny_dart",
                "description": "Tiny Dart package",
                "dependencies": {"meta": "^1.9.0"},
            },
        }
    ],
}
_HEX = {
    "name": "tiny_ex",
    "releases": [{"version": "0.2.0", "inserted_at": "2024-02-02T00:00:00Z"}, {"version": "0.1.0"}],
    "owners": [{"username": "ann"}],
    "meta": {"description": "Tiny Elixir package", "licenses": ["Apache-2.0"], "links": {}},
    "downloads": {"all": 100, "recent": 40, "week": 9},
}

CASES = [
    Case(
        "rubygems-hand",
        Ecosystem.RUBYGEMS,
        "tiny",
        fixed(
            {
                "https://rubygems.org/api/v1/gems/tiny.json": _GEM,
                "https://rubygems.org/api/v1/versions/tiny.json": _GEM_VERSIONS,
            }
        ),
        "https://rubygems.org/api/v1/gems/tiny.json",
    ),
    Case(
        "rubygems-recorded",
        Ecosystem.RUBYGEMS,
        "rubystats",
        recorded(
            "rubygems",
            "rubygems.org_api_v1_gems_rubystats.json",
            "rubygems.org_api_v1_versions_rubystats.json",
        ),
        "https://rubygems.org/api/v1/gems/rubystats.json",
        recorded=True,
    ),
    Case(
        "composer-hand",
        Ecosystem.COMPOSER,
        "acme/widget",
        fixed({"https://repo.packagist.org/p2/acme/widget.json": _P2}),
        "https://repo.packagist.org/p2/acme/widget.json",
    ),
    Case(
        "composer-recorded",
        Ecosystem.COMPOSER,
        "psr/log",
        recorded(
            "composer", "repo.packagist.org_p2_psr_log.json", "packagist.org_packages_psr_log.json"
        ),
        "https://repo.packagist.org/p2/psr/log.json",
        recorded=True,
    ),
    Case(
        "pub-hand",
        Ecosystem.PUB,
        "tiny_dart",
        fixed({"https://pub.dev/api/packages/tiny_dart": _PUB}),
        "https://pub.dev/api/packages/tiny_dart",
    ),
    Case(
        "pub-recorded",
        Ecosystem.PUB,
        "bloc",
        recorded("pub", "pub.dev_api_packages_bloc.json"),
        "https://pub.dev/api/packages/bloc",
        recorded=True,
    ),
    Case(
        "hex-hand",
        Ecosystem.HEX,
        "tiny_ex",
        fixed({"https://hex.pm/api/packages/tiny_ex": _HEX}),
        "https://hex.pm/api/packages/tiny_ex",
    ),
    Case(
        "hex-recorded",
        Ecosystem.HEX,
        "phoenix_copy",
        recorded(
            "hex",
            "hex.pm_api_packages_phoenix_copy.json",
            "hex.pm_api_packages_phoenix_copy_releases_0.1.1.json",
        ),
        "https://hex.pm/api/packages/phoenix_copy",
        recorded=True,
    ),
]


def _answers(case: Case) -> Answers:
    if case.recorded and not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set PKGINTEL_SHARED_DATA)")
    return case.answers()


def _client(answers: Answers) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        status, body = answers.get(str(request.url), (404, b'{"error":"not found"}'))
        return httpx.Response(status, content=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


def _assert_from_bodies(info: PackageInfo, answers: Answers) -> None:
    blob = b"\n".join(body for _, body in answers.values()).decode("utf-8", "replace").lower()
    assert info.latest_version.lower() in blob
    keys = [sort_key(info.ecosystem, r.version) for r in info.releases]
    assert keys == sorted(keys)
    for rel in info.releases:
        assert rel.version.lower() in blob
        if rel.published_at is not None:
            assert rel.published_at.strftime("%Y-%m-%d") in blob
    if info.description:
        assert info.description.splitlines()[0][:30].lower() in blob
    for person in info.maintainers:
        assert person.name.lower() in blob
    for dep in info.dependencies:
        assert dep.name.lower() in blob and dep.requirement.lower() in blob
    for url in (info.homepage, info.repository):
        if url:
            assert url.split("://", 1)[-1].rstrip("/").lower() in blob
    if info.license:
        assert all(t.lower() in blob for t in info.license.split(" OR "))
    if "downloads" in info.extra:
        assert info.extra["downloads"] in blob


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_existing_package_parses_without_invented_values(case: Case) -> None:
    answers = _answers(case)
    async with _client(answers) as client:
        info = await ADAPTERS[case.ecosystem](client).fetch_package(case.package)
    assert normalise_name(info.ecosystem, info.name) == normalise_name(case.ecosystem, case.package)
    _assert_from_bodies(info, answers)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_unknown_package_is_package_not_found_without_downloads(case: Case) -> None:
    async with _client({}) as client:
        adapter = ADAPTERS[case.ecosystem](client)
        with pytest.raises(PackageNotFound):
            await adapter.fetch_package(case.package)
        assert await adapter.fetch_weekly_downloads(case.package) is None


@pytest.mark.parametrize("status", [500, 503])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_server_error_is_registry_unavailable(case: Case, status: int) -> None:
    transport = httpx.MockTransport(lambda _: httpx.Response(status, content=b"down"))
    async with httpx.AsyncClient(transport=transport) as client:
        with pytest.raises(RegistryUnavailable) as caught:
            await ADAPTERS[case.ecosystem](client).fetch_package(case.package)
    assert caught.value.reason == f"status.{status}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_timeout_is_registry_unavailable(case: Case) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(RegistryUnavailable) as caught:
            await ADAPTERS[case.ecosystem](client).fetch_package(case.package)
    assert caught.value.reason == "timeout"


@pytest.mark.parametrize(
    "body", [b"<html><body>Service page</body></html>", b'{"unexpected": true}', b"[1, 2, 3]"]
)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_malformed_primary_body_is_response_invalid(case: Case, body: bytes) -> None:
    answers = dict(_answers(case))
    answers[case.primary_url] = (200, body)
    async with _client(answers) as client:
        with pytest.raises(RegistryResponseInvalid):
            await ADAPTERS[case.ecosystem](client).fetch_package(case.package)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
async def test_missing_version_is_version_not_found(case: Case) -> None:
    async with _client(_answers(case)) as client:
        with pytest.raises(VersionNotFound) as caught:
            await ADAPTERS[case.ecosystem](client).fetch_package(
                case.package, version=case.missing_version
            )
    assert caught.value.version == case.missing_version
    assert caught.value.available
