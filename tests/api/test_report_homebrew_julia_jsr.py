"""
Homebrew, Julia and JSR end to end on the replayed registry fixtures: complete reports, versions
newest first by each ecosystem's ordering, every source named, recorded 404s as 404 problems,
install commands and the other package endpoints.
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
    # path, latest, registry source, licence
    pytest.param("homebrew/abook", "0.6.1", "formulae.brew.sh", id="homebrew-abook"),
    pytest.param("julia/Inequality", "0.0.4", "JuliaRegistries/General", id="julia-inequality"),
    pytest.param("jsr/%40std%2Fpath", "1.1.3", "jsr.io", id="jsr-std-path"),
]
# What the recordings cannot tell is null, not guessed: abook's home page is on SourceForge (no
# code host), and no api.jsr.io document (description, licence, repository) was recorded.
NULLABLE = {
    "homebrew/abook": {"repository"},
    "jsr/%40std%2Fpath": {"license", "repository"},
}


def _complete(path: str, body: dict[str, Any]) -> None:
    body = dict(body)
    for field in ("license", "repository"):
        if body[field] is None:
            assert field in NULLABLE.get(path, set()), f"{field} is null"
            body[field] = ""
    if body["license"] == "":
        assert body["license_risk"] == "unknown"
    assert_complete_report(body)
    assert set(TOP_LEVEL) <= set(body)


@pytest.mark.parametrize(("path", "latest", "registry_source"), CASES)
async def test_report_is_complete(
    client: httpx.AsyncClient, path: str, latest: str, registry_source: str
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    _complete(path, body)
    assert body["latest_version"] == latest
    recent = body["versions"]["recent"]
    assert recent[0] == latest
    assert recent == newest_first(Ecosystem(body["ecosystem"]), recent)
    sources = {s["name"]: s for s in body["_meta"]["sources"]}
    assert sources[registry_source]["kind"] == "registry"
    assert sources[registry_source]["status"] == "ok"
    assert any(s["kind"] == "vulnerabilities" for s in body["_meta"]["sources"])


async def test_report_figures_from_the_recordings(client: httpx.AsyncClient) -> None:
    brew = (await client.get("/api/check/homebrew/abook")).json()
    assert brew["downloads_weekly"] is None  # Homebrew counts installs over 30/90/365 days
    assert brew["metadata"]["downloads"] == 28
    assert brew["metadata"]["downloads_window"] == "30d"
    assert [d["name"] for d in brew["metadata"]["dependencies"]] == ["gettext", "readline"]
    assert brew["license"].startswith("GPL-2.0-only AND GPL-2.0-or-later")
    assert brew["description"] == "Address book with mutt support"

    jl = (await client.get("/api/check/julia/Inequality")).json()
    assert jl["license"] == "MIT"
    assert jl["repository"] == "https://github.com/JosepER/Inequality.jl"
    assert {d["name"] for d in jl["metadata"]["dependencies"]} == {
        "DataFrames",
        "Documenter",
        "Statistics",
        "StatsBase",
    }
    assert jl["metadata"]["maintainers_count"] == 1
    names = {s["name"]: s for s in jl["_meta"]["sources"]}
    assert names["juliahub.com"]["status"] == "ok"
    # No Versions.toml was recorded: the versions are JuliaHub's, and the report says so.
    assert names["JuliaRegistries/General Versions.toml"]["status"] == "unavailable"

    std = (await client.get("/api/check/jsr/%40std%2Fpath")).json()
    assert std["versions"]["total_count"] == 55
    assert std["metadata"]["first_published"].startswith("2023-12-22")
    assert std["metadata"]["last_published"].startswith("2025-11-17")
    assert std["metadata"]["dependencies_unavailable"]  # the recorded version file has no graph
    jsr_sources = {s["name"]: s for s in std["_meta"]["sources"]}
    assert jsr_sources["api.jsr.io"]["status"] == "unavailable"


async def test_jsr_yanked_version_is_flagged(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/versions/jsr/%40std%2Fpath")).json()
    assert [v["version"] for v in body["versions"] if v["yanked"]] == ["0.225.0"]


async def test_julia_name_with_jl_suffix_is_the_same_package(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/julia/Inequality.jl")
    assert resp.status_code == 200, resp.text
    assert resp.json()["latest_version"] == "0.0.4"


@pytest.mark.parametrize(
    "path",
    [
        "homebrew/doesnotexist123456",
        "homebrew/cask:doesnotexist123456",
        "julia/DoesNotExist123456",
        "julia/inequality",  # Julia names are case-sensitive; Registry.toml has `Inequality`
        "jsr/%40std%2Fdoesnotexist",
    ],
)
async def test_unrecorded_or_unknown_package_is_a_404_problem(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 404, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.json()["type"].endswith("package-not-found")


async def test_invalid_names_are_422(client: httpx.AsyncClient) -> None:
    for path in ("jsr/std%2Fpath", "jsr/%40Std%2FPath", "julia/1Bad", "homebrew/-x", "jsr/path"):
        assert (await client.get(f"/api/check/{path}")).status_code == 422, path


async def test_upstream_down_is_503_never_500(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    for path in ("homebrew/abook", "julia/Inequality", "jsr/%40std%2Fpath"):
        resp = await client.get(f"/api/check/{path}")
        assert resp.status_code == 503, (path, resp.text)


@pytest.mark.parametrize(
    ("path", "commands"),
    [
        ("homebrew/abook", {"brew": "brew install abook", "brewfile": 'brew "abook"'}),
        (
            "homebrew/abook?version=0.6.1",
            {"brew": "brew install abook", "brewfile": 'brew "abook"'},
        ),
        (
            "julia/Inequality",
            {
                "pkg": 'using Pkg; Pkg.add("Inequality")',
                "repl": "] add Inequality",
                "project": 'Inequality = "0.0.4"',
            },
        ),
        (
            "julia/Inequality?version=0.0.4",
            {
                "pkg": 'using Pkg; Pkg.add(name="Inequality", version="0.0.4")',
                "repl": "] add Inequality@0.0.4",
                "project": 'Inequality = "=0.0.4"',
            },
        ),
        (
            "jsr/%40std%2Fpath",
            {
                "deno": "deno add 'jsr:@std/path@^1.1.3'",
                "npx": "npx jsr add '@std/path@^1.1.3'",
                "pnpm": "pnpm add 'jsr:@std/path@^1.1.3'",
                "yarn": "yarn add 'jsr:@std/path@^1.1.3'",
                "bunx": "bunx jsr add '@std/path@^1.1.3'",
            },
        ),
        (
            "jsr/%40std%2Fpath?version=1.0.0-rc.4",
            {
                "deno": "deno add jsr:@std/path@1.0.0-rc.4",
                "npx": "npx jsr add @std/path@1.0.0-rc.4",
                "pnpm": "pnpm add jsr:@std/path@1.0.0-rc.4",
                "yarn": "yarn add jsr:@std/path@1.0.0-rc.4",
                "bunx": "bunx jsr add @std/path@1.0.0-rc.4",
            },
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
    for path in ("homebrew/abook", "julia/Inequality", "jsr/%40std%2Fpath"):
        for endpoint in ("health", "latest", "versions", "license", "vulns", "malicious", "prompt"):
            resp = await client.get(f"/api/{endpoint}/{path}")
            assert resp.status_code == 200, (endpoint, path, resp.text)


async def test_ecosystems_lists_the_three_as_live(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/ecosystems")).json()
    live = {e["id"]: e for e in body["ecosystems"] if e["supported"]}
    assert {"homebrew", "julia", "jsr"} <= set(live)
    assert live["julia"]["registry_url"] == "https://github.com/JuliaRegistries/General"
    assert live["jsr"]["registry_url"] == "https://jsr.io"


async def test_pin_safe_scan_bulk_and_stack_answer(client: httpx.AsyncClient) -> None:
    for path in ("homebrew/abook", "julia/Inequality", "jsr/%40std%2Fpath"):
        resp = await client.get(f"/api/pin_safe/{path}")
        assert resp.status_code == 200, (path, resp.text)
    scan = await client.post(
        "/api/scan", json={"ecosystem": "jsr", "packages": {"@std/path": "1.0.0"}}
    )
    assert scan.status_code == 200, scan.text
    assert scan.json()["packages"][0]["name"] == "@std/path"
    items = [
        {"ecosystem": "homebrew", "package": "abook"},
        {"ecosystem": "julia", "package": "Inequality"},
        {"ecosystem": "jsr", "package": "@std/path"},
    ]
    bulk = await client.post("/api/check_bulk", json={"items": items})
    assert bulk.status_code == 200 and len(bulk.json()["results"]) == 3
    stack = await client.post("/api/ai/stack", json={"packages": items})
    assert stack.status_code == 200, stack.text


FFMPEG_VERSIONS = "".join(
    f'["{v}"]\ngit-tree-sha1 = "{i:040x}"\n\n'
    for i, v in enumerate(["4.3.1+0", "4.3.1+2", "4.4.0+0", "9.0.0+0"], start=1)
)


async def test_julia_advisories_are_matched_with_build_metadata_ordering(
    client: httpx.AsyncClient, runtime: Any, registry: ReplayRegistry, tmp_path: Any
) -> None:
    """The real JLSEC records of FFMPEG_jll bound ranges by JLL rebuilds (`4.3.1+0` … `4.3.1+2`):
    only Julia's ordering (build metadata breaks ties) puts `4.3.1+0` inside the range
    introduced at `4.3.1+0` and fixed at `4.3.1+2`, and `4.3.1+2` outside it."""
    import json
    import zipfile

    from tests.osv_records import ingest_records
    from tests.shared import shared_path

    with zipfile.ZipFile(shared_path("osv", "Julia", "all.zip")) as z:
        records = [
            rec
            for rec in (json.loads(z.read(m)) for m in z.namelist())
            if any(a["package"]["name"] == "FFMPEG_jll" for a in rec["affected"])
        ]
    await ingest_records(runtime, tmp_path, "osv", "Julia", records)
    registry.add(
        "https://raw.githubusercontent.com/JuliaRegistries/General/master/F/FFMPEG_jll/Versions.toml",
        FFMPEG_VERSIONS.encode(),
    )

    async def ids(version: str) -> set[str]:
        resp = await client.get(
            f"/api/check/julia/FFMPEG_jll?version={version.replace('+', '%2B')}"
        )
        assert resp.status_code == 200, resp.text
        return {d["id"] for d in resp.json()["vulnerabilities"]["details"]}

    first, rebuilt = await ids("4.3.1+0"), await ids("4.3.1+2")
    assert "JLSEC-2025-109" in first and "JLSEC-2025-109" not in rebuilt
    assert "JLSEC-2025-101" not in first  # fixed in 4.3.1+0
    assert "JLSEC-2025-110" in rebuilt  # introduced at 4.3.1+2
    latest = (await client.get("/api/check/julia/FFMPEG_jll")).json()
    assert latest["latest_version"] == "9.0.0+0"
    assert not {"JLSEC-2026-1171", "JLSEC-2026-1174"} & {
        d["id"] for d in latest["vulnerabilities"]["details"]
    }  # fixed in 9.0.0+0
    eco = {e["id"]: e for e in (await client.get("/api/ecosystems")).json()["ecosystems"]}
    assert eco["julia"]["vulnerability_count"] == len(records)
    assert eco["julia"]["features"]["vulnerabilities"] is True
