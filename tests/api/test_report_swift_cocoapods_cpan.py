"""
Swift, CocoaPods and CPAN end to end on the replayed registry fixtures: complete reports for
cocoapods `Foo` and cpan `Dpkg`, 404 problems, Swift existence from the recorded Swift Package Index
list and a 503 naming the code host when its data is missing, install commands, the other package
endpoints, bulk, scan and stack audit.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import httpx
import pytest

from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import newest_first
from pkgintel.runtime.container import Runtime
from pkgintel.sources.name_lists import parse_name_list
from tests.api.test_report import assert_complete_report
from tests.fake_registry import ReplayRegistry
from tests.shared import read_shared_bytes, read_shared_json, requires_shared

pytestmark = requires_shared

CHRONICLE = "https://github.com/0xLeif/Chronicle.git"


@pytest.mark.parametrize(
    ("path", "latest", "licence", "total"),
    [
        ("cocoapods/Foo", "1.1.3", "MIT", 6),
        ("cpan/Dpkg", "v1.21.5", "GPL-2.0-only", 22),
    ],
)
async def test_report_is_complete(
    client: httpx.AsyncClient, path: str, latest: str, licence: str, total: int
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert_complete_report(body)
    assert body["latest_version"] == latest and body["license"] == licence
    assert body["versions"]["total_count"] == total
    recent = body["versions"]["recent"]
    assert recent[0] == latest and recent == newest_first(Ecosystem(body["ecosystem"]), recent)
    sources = {s["name"]: s for s in body["_meta"]["sources"]}
    registry = "cdn.cocoapods.org" if path.startswith("cocoapods") else "fastapi.metacpan.org"
    assert sources[registry]["kind"] == "registry" and sources[registry]["status"] == "ok"
    assert body["downloads_weekly"] is None
    assert body["metadata"]["downloads_unavailable"]


async def test_report_figures_from_the_recordings(client: httpx.AsyncClient) -> None:
    pod = (await client.get("/api/check/cocoapods/Foo")).json()
    assert pod["metadata"]["maintainers_count"] == 1
    assert pod["metadata"]["dependencies_count"] == 0
    assert pod["repository"] == "https://github.com/deepesh259nitk/mixedFramework"

    perl = (await client.get("/api/check/cpan/Dpkg")).json()
    assert perl["metadata"]["maintainers_count"] == 2
    assert perl["metadata"]["last_published"].startswith("2022-03-29")
    assert perl["metadata"]["first_published"].startswith("2018-09-26")
    names = {d["name"] for d in perl["metadata"]["dependencies"]}
    assert {"Locale::gettext", "Test::More"} <= names and "perl" not in names


@pytest.mark.parametrize(
    "path",
    [
        "cocoapods/NoSuchPod4295",  # hashes to the recorded shard 1/3/5, which does not list it
        "cocoapods/DoesNotExist123456",  # its shard was not recorded: 404 like the CDN
        "cpan/No-Such-Dist-123456",
        "cpan/No::Such::Module123456",
        "swift/https%3A%2F%2Fgithub.com%2Fnobody%2Fnothing.git",  # not in the recorded list
    ],
)
async def test_unknown_packages_are_404_problems(client: httpx.AsyncClient, path: str) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 404, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.json()["type"].endswith("package-not-found")


@pytest.mark.parametrize("name", [CHRONICLE, "0xLeif/Chronicle"])
async def test_swift_report_without_code_host_data_is_a_503_naming_it(
    client: httpx.AsyncClient, name: str
) -> None:
    resp = await client.get(f"/api/check/swift/{quote(name, safe='')}")
    assert resp.status_code == 503, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    problem = resp.json()
    assert problem["source"] == "api.github.com"
    assert problem["reason"] == "code_host.not_found"
    assert "Retry-After" in resp.headers


async def test_swift_report_is_complete_when_the_code_host_answers(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """Real GitHub documents (gocardless/business, recorded by dependabot-core) served at the
    listed package's paths stand in for a recording of Chronicle's: the report is complete."""
    releases = read_shared_json(
        "registry-fixtures",
        "github",
        "api.github.com_repos_gocardless_business_releases_per_page_100.json",
    )
    repo = read_shared_json(
        "registry-fixtures", "github", "api.github.com_repos_gocardless_business.json"
    )
    base = "https://api.github.com/repos/0xLeif/Chronicle"
    registry.add(base, repo)
    registry.add(f"{base}/tags?per_page=100", [{"name": r["tag_name"]} for r in releases])
    registry.add(f"{base}/releases?per_page=100", releases)
    resp = await client.get("/api/check/swift/0xLeif%2FChronicle")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert_complete_report({**body, "license": "unknown"} if body["license"] is None else body)
    assert body["latest_version"] == "1.8.0"
    assert body["versions"]["recent"] == ["1.8.0", "1.7.0", "1.6.0", "1.5.0"]
    sources = {s["name"]: s["status"] for s in body["_meta"]["sources"]}
    assert sources["api.github.com"] == "ok" and sources["swiftpackageindex.com"] == "ok"
    install = (await client.get("/api/install/swift/0xLeif%2FChronicle")).json()["commands"]
    assert install["Package.swift"] == (
        '.package(url: "https://github.com/0xLeif/Chronicle.git", from: "1.8.0")'
    )


async def _load_names(runtime: Runtime, ecosystem: Ecosystem, *file: str) -> None:
    raw = read_shared_bytes("registry-fixtures", *file)
    await runtime.names.ingest(ecosystem, parse_name_list(ecosystem, raw), source=file[-1])


async def test_exists_from_the_recorded_lists(client: httpx.AsyncClient, runtime: Runtime) -> None:
    await _load_names(
        runtime,
        Ecosystem.SWIFT,
        "swift",
        "raw.githubusercontent.com_SwiftPackageIndex_PackageList_main_packages.json",
    )
    await _load_names(
        runtime, Ecosystem.COCOAPODS, "cocoapods", "cdn.cocoapods.org_all_pods.txt.gz"
    )
    await _load_names(
        runtime,
        Ecosystem.CPAN,
        "cpan",
        "fastapi.metacpan.org_v1_release__search_fields_distribution_q_status_latest_scroll_1m_size_5000.json.gz",
    )
    for name in (CHRONICLE, "0xLeif/Chronicle", "github.com/0xleif/chronicle"):
        body = (await client.get(f"/api/exists/swift/{quote(name, safe='')}")).json()
        assert body["exists"] is True, (name, body)
    missing = (await client.get("/api/exists/swift/0xLeif%2FChronicl")).json()
    assert missing["exists"] is False
    assert "github.com/0xleif/chronicle" in {
        normalise_name(Ecosystem.SWIFT, n) for n in missing["did_you_mean"]
    }

    assert (await client.get("/api/exists/cocoapods/Foo")).json()["exists"] is True
    assert (await client.get("/api/exists/cocoapods/AppNetworkManager")).json()["exists"] is True
    pod = (await client.get("/api/exists/cocoapods/AppNetworkManagr")).json()
    assert pod["exists"] is False and "AppNetworkManager" in pod["did_you_mean"]

    for name in ("Mail-Run-Crypt", "Mail::Run::Crypt"):
        assert (await client.get(f"/api/exists/cpan/{name}")).json()["exists"] is True
    dist = (await client.get("/api/exists/cpan/Mail-Run-Cryp")).json()
    assert dist["exists"] is False and "Mail-Run-Crypt" in dist["did_you_mean"]

    # Typosquat hints (the report's `typosquat` field) need popularity, which none of the three
    # registry lists carries: the hint says so rather than guessing. A ranked list (TSV with a
    # `rank` column) gives the hints, compared under each ecosystem's normalisation.
    cases = (
        (Ecosystem.COCOAPODS, "AppNetworkManagr", "AppNetworkManager"),
        (Ecosystem.CPAN, "Mail::Run::Crypd", "Mail-Run-Crypt"),
        (Ecosystem.SWIFT, "0xLeif/Chronicles", CHRONICLE),
    )
    for eco, near, _ in cases:
        hint = await runtime.names.typosquat(eco, near)
        assert not hint.checked and "no popularity data" in (hint.reason or ""), hint
    for eco, near, target in cases:
        ranked = f"name\trank\n{target}\t1\n".encode()
        await runtime.names.ingest(eco, parse_name_list(eco, ranked), source="ranked.tsv")
        hint = await runtime.names.typosquat(eco, near)
        assert hint.is_suspected, (eco, near, hint)
        assert target in {t for t, _ in hint.targets}


@pytest.mark.parametrize(
    ("path", "commands"),
    [
        ("cocoapods/Foo", {"Podfile": "pod 'Foo', '~> 1.1'"}),
        ("cocoapods/Foo?version=1.1.3", {"Podfile": "pod 'Foo', '1.1.3'"}),
        ("cpan/Dpkg", {"cpanm": "cpanm Dpkg", "cpanfile": "requires 'Dpkg', 'v1.21.5';"}),
        (
            "cpan/Dpkg?version=v1.21.5",
            {"cpanm": "cpanm Dpkg@v1.21.5", "cpanfile": "requires 'Dpkg', '== v1.21.5';"},
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
    for path in ("cocoapods/Foo", "cpan/Dpkg"):
        for endpoint in ("health", "latest", "versions", "license", "vulns", "malicious", "prompt"):
            resp = await client.get(f"/api/{endpoint}/{path}")
            assert resp.status_code == 200, (endpoint, path, resp.text)
        assert (await client.get(f"/api/pin_safe/{path}")).status_code == 200


async def test_ecosystems_lists_the_three_as_live(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/ecosystems")).json()
    live: dict[str, Any] = {e["id"]: e for e in body["ecosystems"] if e["supported"]}
    assert {"swift", "cocoapods", "cpan"} <= set(live)
    assert live["cocoapods"]["registry_url"] == "https://cdn.cocoapods.org"
    assert live["cpan"]["registry_url"] == "https://fastapi.metacpan.org"


async def test_scan_bulk_and_stack_accept_the_three(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    scan = await client.post(
        "/api/scan", json={"ecosystem": "cpan", "packages": {"Dpkg": "v1.21.5"}}
    )
    assert scan.status_code == 200, scan.text
    assert scan.json()["packages"][0]["name"] == "Dpkg"
    items = [
        {"ecosystem": "cocoapods", "package": "Foo"},
        {"ecosystem": "cpan", "package": "Dpkg"},
        {"ecosystem": "swift", "package": CHRONICLE},
    ]
    bulk = await client.post("/api/check_bulk", json={"items": items})
    assert bulk.status_code == 200 and len(bulk.json()["results"]) == 3
    stack = await client.post("/api/ai/stack", json={"packages": items[:2]})
    assert stack.status_code == 200, stack.text
