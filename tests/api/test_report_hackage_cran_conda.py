"""
Hackage, CRAN and Conda end to end: reports from the recorded registry bodies (served by the
replay registry), recorded 404s, install commands and the other package endpoints.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import newest_first
from pkgintel.runtime.container import Runtime
from pkgintel.sources.osv_export import iter_records
from tests.api.test_report import assert_complete_report
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared, shared_path

pytestmark = requires_shared

CASES = [
    # path, latest, registry source, licence
    ("hackage/aeson", "2.2.3.0", "hackage.haskell.org", None),
    ("cran/readxl", "1.4.5", "packagemanager.posit.co", "MIT"),
    ("conda/pytest", "6.2.5", "api.anaconda.org", "MIT"),
]
# What the recordings cannot tell is null, not guessed: no page of aeson's latest version is
# recorded (licence, repository come from it).
NULLABLE = {"hackage/aeson": {"license", "repository"}}


def _complete(path: str, body: dict[str, Any]) -> None:
    body = dict(body)
    for field in ("license", "repository"):
        if body[field] is None:
            assert field in NULLABLE.get(path, set()), f"{field} is null"
            body[field] = ""
    assert_complete_report(body)


@pytest.mark.parametrize(("path", "latest", "registry_source", "licence"), CASES)
async def test_report_is_complete(
    client: httpx.AsyncClient, path: str, latest: str, registry_source: str, licence: str | None
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    _complete(path, body)
    assert body["latest_version"] == latest
    assert body["license"] == licence
    recent = body["versions"]["recent"]
    assert recent[0] == latest
    assert recent == newest_first(Ecosystem(body["ecosystem"]), recent)
    sources = {s["name"]: s for s in body["_meta"]["sources"]}
    assert sources[registry_source]["kind"] == "registry"
    assert sources[registry_source]["status"] == "ok"
    assert any(s["kind"] == "vulnerabilities" for s in body["_meta"]["sources"])


async def test_report_figures_from_the_recordings(client: httpx.AsyncClient) -> None:
    hs = (await client.get("/api/check/hackage/aeson")).json()
    assert hs["versions"]["total_count"] == 98
    assert hs["downloads_weekly"] is None
    sources = {s["name"]: s["status"] for s in hs["_meta"]["sources"]}
    # Not recorded, so named unavailable rather than guessed.
    assert sources["hackage.haskell.org package page"] == "unavailable"
    assert sources["hackage.haskell.org deprecation"] == "unavailable"
    assert hs["metadata"]["deprecation_unavailable"]

    old = (await client.get("/api/check/hackage/aeson?version=0.2.0.0")).json()
    assert old["license"] == "BSD-3-Clause"
    assert old["metadata"]["dependencies_count"] == 12
    assert old["metadata"]["downloads"] == 1104
    assert old["metadata"]["downloads_window"] == "last 30 days"

    r = (await client.get("/api/check/cran/readxl")).json()
    assert r["metadata"]["maintainers"] == ["Jennifer Bryan"]
    assert r["metadata"]["registry_advisories"].startswith("RSEC-2023-2")
    assert r["repository"] == "https://github.com/tidyverse/readxl"
    assert r["versions"]["total_count"] == 13

    # `pack` is not in the Package Manager recordings: CRAN's page and archive stand in, and
    # cranlogs' last-month count is given with its window since no weekly one is recorded.
    pack = (await client.get("/api/check/cran/pack")).json()
    assert pack["latest_version"] == "0.1-1" and pack["license"] == "GPL-3.0-only"
    assert pack["versions"]["recent"] == ["0.1-1", "0.1"]
    assert pack["metadata"]["downloads"] == 612
    assert pack["metadata"]["downloads_window"] == "last month (2023-02-24 to 2023-03-25)"

    conda = (await client.get("/api/check/conda/conda-forge%2Fpytest")).json()
    assert conda["latest_version"] == "6.2.5" and conda["versions"]["total_count"] == 94
    assert conda["repository"] == "https://github.com/pytest-dev/pytest"


@pytest.mark.parametrize(
    "path",
    ["hackage/doesnotexist123456", "cran/doesnotexist123456", "conda/doesnotexist123456"],
)
async def test_recorded_404_is_a_404_problem(client: httpx.AsyncClient, path: str) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 404, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert resp.json()["type"].endswith("package-not-found")


async def test_invalid_names_are_422(client: httpx.AsyncClient) -> None:
    for path in (
        "hackage/aeson_",
        "hackage/-aeson",
        "cran/1readxl",
        "cran/readxl.",
        "conda/a%2Fb%2Fc",
    ):
        assert (await client.get(f"/api/check/{path}")).status_code == 422, path


async def test_upstream_down_is_503_never_500(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    for path in ("hackage/aeson", "cran/readxl", "conda/pytest"):
        resp = await client.get(f"/api/check/{path}")
        assert resp.status_code == 503, (path, resp.text)


@pytest.mark.parametrize(
    ("path", "commands"),
    [
        (
            "hackage/aeson",
            {"cabal": "cabal install --lib aeson-2.2.3.0", "build-depends": "aeson ^>=2.2.3.0"},
        ),
        (
            "hackage/aeson?version=2.1.0.0",
            {"cabal": "cabal install --lib aeson-2.1.0.0", "build-depends": "aeson ==2.1.0.0"},
        ),
        (
            "cran/readxl",
            {
                "install.packages": 'install.packages("readxl")',
                "pak": 'pak::pak("readxl")',
                "renv": 'renv::install("readxl")',
            },
        ),
        (
            "cran/readxl?version=1.4.3",
            {
                "pak": 'pak::pak("readxl@1.4.3")',
                "renv": 'renv::install("readxl@1.4.3")',
                "remotes": 'remotes::install_version("readxl", version = "1.4.3")',
            },
        ),
        (
            "conda/pytest",
            {
                "conda": "conda install -c conda-forge 'pytest>=6.2.5'",
                "mamba": "mamba install -c conda-forge 'pytest>=6.2.5'",
                "pixi": "pixi add 'pytest>=6.2.5'",
            },
        ),
        (
            "conda/pytest?version=6.2.4",
            {
                "conda": "conda install -c conda-forge pytest==6.2.4",
                "mamba": "mamba install -c conda-forge pytest==6.2.4",
                "pixi": "pixi add pytest==6.2.4",
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
    for path in ("hackage/aeson", "cran/readxl", "conda/pytest"):
        for endpoint in ("health", "latest", "versions", "license", "vulns", "malicious", "prompt"):
            resp = await client.get(f"/api/{endpoint}/{path}")
            assert resp.status_code == 200, (endpoint, path, resp.text)
    versions = (await client.get("/api/versions/hackage/aeson")).json()
    deprecated = [v["version"] for v in versions["versions"] if v.get("deprecated")]
    assert "0.10.0.0" in deprecated and "2.2.3.0" not in deprecated


async def test_ecosystems_lists_the_three_as_live(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/ecosystems")).json()
    live = {e["id"]: e for e in body["ecosystems"] if e["supported"]}
    assert {"hackage", "cran", "conda"} <= set(live)
    assert live["cran"]["registry_url"] == "https://cran.r-project.org"


async def test_pin_safe_scan_bulk_and_stack_answer(client: httpx.AsyncClient) -> None:
    for path in ("hackage/aeson", "cran/readxl", "conda/pytest"):
        resp = await client.get(f"/api/pin_safe/{path}")
        assert resp.status_code == 200, (path, resp.text)
    scan = await client.post(
        "/api/scan", json={"ecosystem": "cran", "packages": {"readxl": "1.4.1"}}
    )
    assert scan.status_code == 200, scan.text
    assert scan.json()["packages"][0]["name"] == "readxl"
    items = [
        {"ecosystem": "hackage", "package": "aeson"},
        {"ecosystem": "cran", "package": "readxl"},
        {"ecosystem": "conda", "package": "pytest"},
    ]
    bulk = await client.post("/api/check_bulk", json={"items": items})
    assert bulk.status_code == 200 and len(bulk.json()["results"]) == 3
    stack = await client.post("/api/ai/stack", json={"packages": items})
    assert stack.status_code == 200, stack.text


async def test_brief_names_the_window_of_a_non_weekly_count(client: httpx.AsyncClient) -> None:
    brief = (await client.get("/api/prompt/cran/pack")).text
    assert "612 over last month (2023-02-24 to 2023-03-25)" in brief


async def _ingest_shared_osv(runtime: Runtime) -> None:
    for ecosystem in ("Hackage", "CRAN"):
        path = shared_path("osv", ecosystem, "all.zip")
        await runtime.ingestor.ingest_osv(
            feed="osv", osv_ecosystem=ecosystem, location=str(path), entries=iter_records(path)
        )
    runtime.advisories.invalidate()


async def test_real_osv_advisories_reach_reports_and_counts(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await _ingest_shared_osv(runtime)
    eco = {e["id"]: e for e in (await client.get("/api/ecosystems")).json()["ecosystems"]}
    assert eco["hackage"]["vulnerability_count"] == 35
    assert eco["cran"]["vulnerability_count"] == 14
    assert eco["hackage"]["features"]["vulnerabilities"] is True

    hit = (await client.get("/api/check/cran/readxl?version=1.4.1")).json()
    ids = {d["id"] for d in hit["vulnerabilities"]["details"]}
    assert "RSEC-2023-2" in ids  # introduced 1.4.1, fixed 1.4.2 (R version order)
    clean = (await client.get("/api/check/cran/readxl?version=1.4.2")).json()
    assert "RSEC-2023-2" not in {d["id"] for d in clean["vulnerabilities"]["details"]}

    # HSEC-2023-0001: [0.4.0.0, 2.0.1.0); HSEC-2026-0007: [0.12.0.0, 2.3.0.0) — PVP order.
    for version, expected in (
        ("2.0.0.0", {"HSEC-2023-0001", "HSEC-2026-0007"}),
        ("2.2.3.0", {"HSEC-2026-0007"}),
        ("0.4.0.1", {"HSEC-2023-0001"}),
        ("0.3.2.14", set()),
    ):
        body = (await client.get(f"/api/check/hackage/aeson?version={version}")).json()
        assert {d["id"] for d in body["vulnerabilities"]["details"]} == expected, version


@pytest.mark.parametrize("path", ["conda/pytest", "conda/conda-forge/pytest", "conda/PyTest"])
async def test_conda_name_plain_with_channel_or_capitalised(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    assert resp.json()["latest_version"] == "6.2.5"
