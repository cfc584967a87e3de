"""`POST /api/scan` with Package.resolved, Podfile.lock and cpanfile.snapshot: the kind is detected
from the file name, names match the advisories' keys end to end (a SwiftURL advisory on the
normalised repository URL), unversioned and external entries come back `unresolved`, ecosystems
without advisory data are `unchecked`, the SBOM is valid, and malformed files are 422."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator

from pkgintel.runtime.container import Runtime
from tests.lockfiles.helpers import read
from tests.osv_records import ingest_records, record


@pytest.fixture
async def loaded(runtime: Runtime, tmp_path: Path) -> Runtime:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "SwiftURL",
        [
            record(
                "GHSA-vapor-demo",
                "SwiftURL",
                "github.com/vapor/vapor",
                events=[{"introduced": "0"}, {"fixed": "4.92.2"}],
                severity="HIGH",
                range_type="SEMVER",
            )
        ],
    )
    return runtime


async def _scan(
    client: httpx.AsyncClient, text: str, filename: str, **extra: str
) -> httpx.Response:
    return await client.post("/api/scan", json={"lockfile": text, "filename": filename, **extra})


async def test_package_resolved_by_file_name(client: httpx.AsyncClient, loaded: Runtime) -> None:
    text = read("swiftpm", "v3.Package.resolved")
    resp = await _scan(
        client, text, "App.xcodeproj/project.xcworkspace/xcshareddata/swiftpm/Package.resolved"
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["kind"], body["ecosystem"]) == ("Package.resolved", "swift")
    pkgs = {p["name"]: p for p in body["packages"]}
    vapor = pkgs["github.com/vapor/vapor"]
    assert vapor["status"] == "vulnerable"
    assert [v["id"] for v in vapor["vulnerabilities"]] == ["GHSA-vapor-demo"]
    branch = pkgs["github.com/apple/swift-collections"]
    assert branch["status"] == "unresolved" and branch["version"] is None
    assert "branch release/1.1" in branch["unresolved_reason"]


async def test_podfile_lock_by_file_name(client: httpx.AsyncClient, loaded: Runtime) -> None:
    resp = await _scan(client, read("cocoapods", "app.Podfile.lock"), "ios/Podfile.lock")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["kind"], body["ecosystem"]) == ("Podfile.lock", "cocoapods")
    statuses = {p["name"]: p["status"] for p in body["packages"]}
    assert statuses["LocalKit"] == statuses["SwiftyJSON"] == "unresolved"
    # CocoaPods has no advisory database: never reported "ok"
    assert statuses["Firebase"] == "unchecked"
    assert body["summary"]["packages"] == 7


async def test_cpanfile_snapshot_by_file_name_and_sbom(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    text = read("carton", "app.cpanfile.snapshot")
    resp = await _scan(client, text, "cpanfile.snapshot")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["kind"], body["ecosystem"]) == ("cpanfile.snapshot", "cpan")
    assert {p["name"] for p in body["packages"]} >= {"Plack", "HTTP-Message", "URI"}
    plack = next(p for p in body["packages"] if p["name"] == "Plack")
    assert (plack["version"], plack["status"]) == ("1.0050", "unchecked")  # no CPAN advisory data
    cdx = (await _scan(client, text, "cpanfile.snapshot", format="cyclonedx")).json()
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(cdx)) is None
    assert "pkg:cpan/Plack@1.0050" in {c.get("purl") for c in cdx["components"]}


@pytest.mark.parametrize(
    ("filename", "text", "line"),
    [
        ("Package.resolved", '{"version": 2,\n "pins": [\n  {"identity": "a",', 3),
        ("Podfile.lock", "PODS:\n  - Alamofire (5.8\n", 2),
        ("cpanfile.snapshot", "# carton snapshot format: version 1.0\nDISTRIBUTIONS\n  Plac\n", 3),
    ],
)
async def test_malformed_files_are_422(
    client: httpx.AsyncClient, runtime: Runtime, filename: str, text: str, line: int
) -> None:
    resp = await _scan(client, text, filename)
    assert resp.status_code == 422, resp.text
    problem = resp.json()
    assert (problem["lockfile_kind"], problem["line"]) == (filename, line)
