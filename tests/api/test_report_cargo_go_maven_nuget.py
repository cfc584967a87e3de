"""Live reports for Cargo, Go, Maven and NuGet through the API, on the replayed registry fixtures:
complete reports, versions newest first by each ecosystem's ordering, every source named, recorded
404s as 404 problems, install commands and the other package endpoints."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import sort_key
from tests.api.test_report import TOP_LEVEL, assert_complete_report
from tests.shared import requires_shared

pytestmark = requires_shared

CASES = [
    pytest.param(
        "cargo",
        "regex",
        "1.0.0",
        {"crates.io", "crates.io owners", "index.crates.io"},
        id="cargo-regex",
    ),
    pytest.param(
        "go",
        "github.com/aws/smithy-go",
        "v1.25.1",
        {"proxy.golang.org", "proxy.golang.org go.mod", "pkg.go.dev"},
        id="go-smithy",
    ),
    pytest.param(
        "maven",
        "com.google.guava:guava",
        "23.6-jre",
        {"repo.maven.apache.org", "repo.maven.apache.org POM", "deps.dev"},
        id="maven-guava",
    ),
    pytest.param(
        "nuget",
        "Newtonsoft.Json",
        "13.0.3",
        {"api.nuget.org", "api.nuget.org nuspec", "azuresearch-usnc.nuget.org"},
        id="nuget-newtonsoft",
    ),
    pytest.param(
        "nuget",
        "Serilog",
        "4.3.1",
        {"api.nuget.org", "api.nuget.org nuspec", "azuresearch-usnc.nuget.org"},
        id="nuget-serilog",
    ),
]
# What the recordings cannot tell is null, not guessed: there is no POM for guava (licence,
# repository) and no nuspec for Serilog (repository; its project URL is not a code host).
NULLABLE = {
    ("maven", "com.google.guava:guava"): {"license", "repository"},
    ("nuget", "Serilog"): {"repository"},
}


@pytest.mark.parametrize(("ecosystem", "package", "latest", "registry_sources"), CASES)
async def test_report_is_complete_with_every_source_named(
    client: httpx.AsyncClient, ecosystem: str, package: str, latest: str, registry_sources: set[str]
) -> None:
    resp = await client.get(f"/api/check/{ecosystem}/{package}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    for field in ("license", "repository"):
        if body[field] is None:
            assert field in NULLABLE.get((ecosystem, package), set()), f"{field} is null"
            body[field] = ""
    assert_complete_report(body)
    assert set(TOP_LEVEL) <= set(resp.json())
    assert body["latest_version"] == latest
    recent = body["versions"]["recent"]
    eco = Ecosystem(ecosystem)
    assert recent == sorted(recent, key=lambda v: sort_key(eco, v), reverse=True)
    names = {s["name"] for s in body["_meta"]["sources"]}
    assert registry_sources <= names
    kinds = {s["kind"] for s in body["_meta"]["sources"]}
    assert {"registry", "vulnerabilities", "malicious"} <= kinds
    assert body["downloads_weekly"] is None  # none of the four registries counts by week


async def test_downloads_with_their_window_when_not_weekly(client: httpx.AsyncClient) -> None:
    crate = (await client.get("/api/check/cargo/regex")).json()["metadata"]
    assert (crate["downloads"], crate["downloads_window"]) == (740256, "90d")
    nuget = (await client.get("/api/check/nuget/Newtonsoft.Json")).json()["metadata"]
    assert (nuget["downloads"], nuget["downloads_window"]) == (6532245026, "total")
    go = (await client.get("/api/check/go/github.com/aws/smithy-go")).json()["metadata"]
    assert "downloads" not in go and go["downloads_unavailable"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/check/cargo/this-crate-does-not-exist",
        "/api/check/nuget/doesnotexist123456",
        "/api/check/maven/doesnotexist:doesnotexist",
        "/api/check/go/example.com/does/not/exist",
    ],
)
async def test_recorded_and_unrecorded_misses_are_404_problems(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(path)
    assert resp.status_code == 404
    assert resp.headers["content-type"].startswith("application/problem+json")


async def test_unknown_version_is_a_404_with_available_versions(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/cargo/regex", params={"version": "9.9.9"})
    assert resp.status_code == 404
    assert resp.json()["available_versions"][0] == "1.0.0"


async def test_names_are_matched_by_ecosystem_rules(client: httpx.AsyncClient) -> None:
    lower = (await client.get("/api/check/nuget/newtonsoft.json")).json()
    assert lower["latest_version"] == "13.0.3"
    slash = (await client.get("/api/check/maven/com.google.guava/guava")).json()
    assert slash["latest_version"] == "23.6-jre"


async def test_install_commands_for_the_four(client: httpx.AsyncClient) -> None:
    cargo = (await client.get("/api/install/cargo/regex", params={"version": "0.2.5"})).json()
    assert cargo["commands"]["cargo"] == "cargo add regex@=0.2.5"
    go = (await client.get("/api/install/go/github.com/aws/smithy-go")).json()
    assert go["commands"]["go"] == "go get github.com/aws/smithy-go@v1.25.1"
    maven = (await client.get("/api/install/maven/com.google.guava:guava")).json()
    assert "<version>23.6-jre</version>" in maven["commands"]["maven"]
    assert set(maven["commands"]) == {"maven", "gradle", "gradle_kotlin"}
    nuget = (await client.get("/api/install/nuget/Serilog")).json()
    assert set(nuget["commands"]) == {"dotnet", "PackageReference", "paket"}
    assert nuget["version"] == "4.3.1"


@pytest.mark.parametrize(
    "path",
    [
        "/api/health/cargo/regex",
        "/api/latest/go/github.com/aws/smithy-go",
        "/api/versions/maven/com.google.guava:guava",
        "/api/license/nuget/Newtonsoft.Json",
        "/api/vulns/nuget/Serilog",
        "/api/pin_safe/cargo/regex",
        "/api/malicious/go/github.com/aws/smithy-go",
        "/api/ai/brief/maven/com.google.guava:guava",
        "/api/prompt/nuget/Serilog",
    ],
)
async def test_other_package_endpoints_answer(client: httpx.AsyncClient, path: str) -> None:
    resp = await client.get(path)
    assert resp.status_code == 200, resp.text


async def test_versions_are_newest_first_by_nuget_ordering(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/versions/nuget/Serilog")).json()
    versions = [v["version"] for v in body["versions"]]
    assert versions == sorted(versions, key=lambda v: sort_key(Ecosystem.NUGET, v), reverse=True)
    assert body["latest"] == "4.3.1"


@pytest.mark.parametrize(
    ("ecosystem", "osv_ecosystem", "package", "fixed"),
    [
        ("go", "Go", "github.com/aws/smithy-go", "1.30.0"),
        ("cargo", "crates.io", "regex", "1.1.0"),
        ("maven", "Maven", "com.google.guava:guava", "24.1.1"),
        ("nuget", "NuGet", "Newtonsoft.Json", "13.0.4"),
    ],
)
async def test_osv_records_match_by_each_ecosystems_osv_name_and_ordering(
    client: httpx.AsyncClient,
    registry,
    ecosystem: str,
    osv_ecosystem: str,
    package: str,
    fixed: str,
) -> None:
    registry.osv_fail_with = None
    registry.osv_records.append(
        {
            "id": f"TEST-{ecosystem}-1",
            "modified": "2026-01-01T00:00:00Z",
            "summary": "test advisory",
            "affected": [
                {
                    "package": {"ecosystem": osv_ecosystem, "name": package},
                    "ranges": [
                        {
                            "type": "ECOSYSTEM" if ecosystem != "go" else "SEMVER",
                            "events": [{"introduced": "0"}, {"fixed": fixed}],
                        }
                    ],
                }
            ],
        }
    )
    body = (await client.get(f"/api/vulns/{ecosystem}/{package}")).json()
    assert body["status"] == "complete", body
    assert body["count"] == 1
    assert body["details"][0]["id"] == f"TEST-{ecosystem}-1"


async def test_scan_and_stack_cover_the_four(client: httpx.AsyncClient) -> None:
    scan = await client.post(
        "/api/scan",
        json={"ecosystem": "nuget", "packages": {"Newtonsoft.Json": "13.0.3", "Serilog": "2.0.0"}},
    )
    assert scan.status_code == 200, scan.text
    assert scan.json()["summary"]["packages"] == 2
    stack = await client.post(
        "/api/ai/stack",
        json={
            "packages": [
                {"ecosystem": "cargo", "package": "regex", "version": "0.2.5"},
                {"ecosystem": "go", "package": "github.com/aws/smithy-go"},
                {"ecosystem": "maven", "package": "com.google.guava:guava"},
                {"ecosystem": "nuget", "package": "Serilog"},
            ]
        },
    )
    assert stack.status_code == 200, stack.text
    assert len(stack.json()["packages"]) == 4
    bulk = await client.post(
        "/api/check_bulk",
        json={"items": [{"ecosystem": "maven", "package": "com.google.guava:guava"}]},
    )
    assert bulk.status_code == 200
