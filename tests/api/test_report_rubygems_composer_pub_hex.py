"""
RubyGems, Composer, Pub and Hex end to end: the report from the recorded registry bodies (served by
the replay registry), 404s, install commands, the other package endpoints.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import newest_first
from tests.api.test_report import TOP_LEVEL, assert_complete_report
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared

pytestmark = requires_shared

CASES = [
    # path, latest, registry source, downloads source or None, licence
    ("rubygems/nokogiri", "1.13.6", "rubygems.org", None, "MIT"),
    ("composer/monolog%2Fmonolog", "3.10.0", "repo.packagist.org", "packagist.org", "MIT"),
    ("pub/bloc", "8.0.3", "pub.dev", "pub.dev/score", None),
    ("hex/phoenix", "1.4.0", "hex.pm", "hex.pm/downloads", "MIT"),
]


def _complete(body: dict[str, Any]) -> None:
    if body["license"] is None:  # pub.dev's package document has no licence: null, not a guess
        assert body["license_risk"] == "unknown"
        body = {**body, "license": "unknown"}
    assert_complete_report(body)


@pytest.mark.parametrize(
    ("path", "latest", "registry_source", "downloads_source", "licence"), CASES
)
async def test_report_is_complete(
    client: httpx.AsyncClient,
    path: str,
    latest: str,
    registry_source: str,
    downloads_source: str | None,
    licence: str | None,
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    _complete(body)
    assert body["latest_version"] == latest
    assert body["license"] == licence
    eco = Ecosystem(body["ecosystem"])
    recent = body["versions"]["recent"]
    assert recent[0] == latest
    assert recent == newest_first(eco, recent)
    sources = {s["name"]: s for s in body["_meta"]["sources"]}
    assert sources[registry_source]["kind"] == "registry"
    assert sources[registry_source]["status"] == "ok"
    if downloads_source:
        assert sources[downloads_source]["kind"] == "downloads"
    assert any(s["kind"] == "vulnerabilities" for s in body["_meta"]["sources"])


@pytest.mark.parametrize(
    "path", ["composer/monolog/monolog", "composer/Monolog%2FMonolog", "composer/monolog%2Fmonolog"]
)
async def test_composer_name_plain_encoded_or_capitalised(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["package"].lower() == "monolog/monolog"  # the name as given (specification)
    assert body["latest_version"] == "3.10.0"


async def test_invalid_names_are_422(client: httpx.AsyncClient) -> None:
    for path in ("composer/monolog", "hex/1phoenix", "pub/bad-name", "rubygems/_-."):
        assert (await client.get(f"/api/check/{path}")).status_code == 422, path


async def test_report_figures_from_the_recordings(client: httpx.AsyncClient) -> None:
    gem = (await client.get("/api/check/rubygems/nokogiri")).json()
    assert gem["downloads_weekly"] is None  # rubygems.org has no weekly figure
    assert gem["metadata"]["downloads_window"] == "total"
    assert gem["metadata"]["downloads"] == 509098464
    assert gem["versions"]["total_count"] == 146
    assert gem["metadata"]["dependencies_count"] == 2

    php = (await client.get("/api/check/composer/monolog%2Fmonolog")).json()
    assert php["package"] == "monolog/monolog"
    assert php["versions"]["recent"][:3] == ["3.10.0", "3.9.0", "3.8.1"]
    kinds = {d["name"]: d["kind"] for d in php["metadata"]["dependencies"]}
    assert kinds == {"php": "platform", "psr/log": "runtime"}  # PHP itself is not installed

    dart = (await client.get("/api/check/pub/bloc")).json()
    assert dart["versions"]["total_count"] == 105
    assert dart["downloads_weekly"] is None

    ex = (await client.get("/api/check/hex/phoenix")).json()
    assert ex["downloads_weekly"] == 83261
    assert ex["metadata"]["downloads_window"] == "recent"
    assert ex["metadata"]["downloads"] == 952053
    assert ex["metadata"]["maintainers_count"] == 4
    assert ex["metadata"]["dependencies_unavailable"]  # no release document was recorded


@pytest.mark.parametrize(
    "path",
    [
        "rubygems/doesnotexist123456",
        "composer/doesnotexist%2Fdoesnotexist",
        "pub/doesnotexist123456",
        "hex/doesnotexist123456",
    ],
)
async def test_recorded_404_is_a_404_problem(client: httpx.AsyncClient, path: str) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 404
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.json()["type"].endswith("package-not-found")


async def test_upstream_down_is_503_never_500(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    for path in ("rubygems/nokogiri", "composer/monolog%2Fmonolog", "pub/bloc", "hex/phoenix"):
        resp = await client.get(f"/api/check/{path}")
        assert resp.status_code == 503, (path, resp.text)


@pytest.mark.parametrize(
    ("path", "commands"),
    [
        (
            "rubygems/nokogiri",
            {
                "gem": "gem install nokogiri",
                "gemfile": 'gem "nokogiri", "~> 1.13"',
                "bundler": "bundle add nokogiri --version '~> 1.13'",
            },
        ),
        (
            "rubygems/nokogiri?version=1.13.5",
            {
                "gem": "gem install nokogiri -v 1.13.5",
                "gemfile": 'gem "nokogiri", "1.13.5"',
                "bundler": "bundle add nokogiri --version 1.13.5",
            },
        ),
        ("composer/monolog%2Fmonolog", {"composer": "composer require 'monolog/monolog:^3.10.0'"}),
        (
            "composer/monolog%2Fmonolog?version=3.9.0",
            {"composer": "composer require monolog/monolog:3.9.0"},
        ),
        (
            "pub/bloc",
            {"dart": "dart pub add 'bloc:^8.0.3'", "flutter": "flutter pub add 'bloc:^8.0.3'"},
        ),
        (
            "pub/bloc?version=8.0.1",
            {"dart": "dart pub add bloc:8.0.1", "flutter": "flutter pub add bloc:8.0.1"},
        ),
        ("hex/phoenix", {"mix": '{:phoenix, "~> 1.4"}', "rebar3": '{phoenix, "1.4.0"}'}),
        (
            "hex/phoenix?version=1.3.4",
            {"mix": '{:phoenix, "== 1.3.4"}', "rebar3": '{phoenix, "1.3.4"}'},
        ),
    ],
)
async def test_install_commands(
    client: httpx.AsyncClient, path: str, commands: dict[str, str]
) -> None:
    resp = await client.get(f"/api/install/{path}")
    assert resp.status_code == 200, resp.text
    assert resp.json()["commands"] == commands


async def test_other_package_endpoints_answer(client: httpx.AsyncClient) -> None:
    for path in ("rubygems/nokogiri", "composer/monolog%2Fmonolog", "pub/bloc", "hex/phoenix"):
        for endpoint in ("health", "latest", "versions", "license", "vulns", "malicious", "prompt"):
            resp = await client.get(f"/api/{endpoint}/{path}")
            assert resp.status_code == 200, (endpoint, path, resp.text)
    versions = (await client.get("/api/versions/pub/go_router")).json()
    retracted = [v for v in versions["versions"] if v["yanked"]]
    assert [v["version"] for v in retracted] == ["4.2.1"]


async def test_ecosystems_lists_the_four_as_live(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/ecosystems")).json()
    live = {e["id"] for e in body["ecosystems"] if e["supported"]}
    assert {"rubygems", "composer", "pub", "hex"} <= live


def test_top_level_table_is_the_one_checked() -> None:
    assert "downloads_weekly" in TOP_LEVEL


async def test_pin_safe_scan_bulk_and_stack_answer(client: httpx.AsyncClient) -> None:
    for path in ("rubygems/nokogiri", "composer/monolog%2Fmonolog", "pub/bloc", "hex/phoenix"):
        resp = await client.get(f"/api/pin_safe/{path}")
        assert resp.status_code == 200, (path, resp.text)
    scan = await client.post(
        "/api/scan", json={"ecosystem": "hex", "packages": {"phoenix": "1.3.4"}}
    )
    assert scan.status_code == 200, scan.text
    assert scan.json()["packages"][0]["name"] == "phoenix"
    items = [
        {"ecosystem": "rubygems", "package": "nokogiri"},
        {"ecosystem": "composer", "package": "monolog/monolog"},
        {"ecosystem": "pub", "package": "bloc"},
        {"ecosystem": "hex", "package": "phoenix"},
    ]
    bulk = await client.post("/api/check_bulk", json={"items": items})
    assert bulk.status_code == 200 and len(bulk.json()["results"]) == 4
    stack = await client.post("/api/ai/stack", json={"packages": items})
    assert stack.status_code == 200, stack.text


async def test_brief_names_the_window_of_a_non_weekly_count(client: httpx.AsyncClient) -> None:
    brief = (await client.get("/api/prompt/rubygems/nokogiri")).text
    assert "Weekly downloads: not given; 509,098,464 over total." in brief
    hex_brief = (await client.get("/api/prompt/hex/phoenix")).text
    assert "Weekly downloads: 83,261." in hex_brief
