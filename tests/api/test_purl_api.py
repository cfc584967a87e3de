"""Package URLs wherever a package is named, and a `purl` in every answer about a package."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.shared import requires_shared

pytestmark = requires_shared  # lodash and requests are recorded in the shared registry data


def _same_report(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in ("package", "ecosystem", "purl", "requested_version", "latest_version"):
        assert a[key] == b[key], key
    assert a["health"]["score"] == b["health"]["score"]
    assert a["version_scoped"] == b["version_scoped"]


async def test_check_by_purl_is_the_report_of_the_purls_version(client: httpx.AsyncClient) -> None:
    by_purl = await client.get("/api/check", params={"purl": "pkg:npm/lodash@4.17.15"})
    assert by_purl.status_code == 200, by_purl.text
    body = by_purl.json()
    assert body["requested_version"] == "4.17.15"
    assert body["version_scoped"]["version"] == "4.17.15"
    assert body["purl"] == "pkg:npm/lodash@4.17.15"
    by_path = await client.get("/api/check/npm/lodash", params={"version": "4.17.15"})
    _same_report(body, by_path.json())


async def test_a_version_beside_an_unversioned_purl_is_used(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check", params={"purl": "pkg:npm/lodash", "version": "4.17.15"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["requested_version"] == "4.17.15"


async def test_a_different_version_beside_the_purls_is_a_422(client: httpx.AsyncClient) -> None:
    resp = await client.get(
        "/api/check", params={"purl": "pkg:npm/lodash@4.17.15", "version": "4.17.21"}
    )
    assert resp.status_code == 422
    assert resp.json()["detail"][0]["loc"] == ["query", "version"]


@pytest.mark.parametrize(
    ("purl", "reason"),
    [
        ("lodash", "scheme"),
        ("pkg:npm", "type"),
        ("pkg:github/lodash/lodash", "types: npm, pypi"),
        ("pkg:npm/Bad%20Name", "npm"),
    ],
)
async def test_a_bad_purl_is_a_422_naming_the_purl(
    client: httpx.AsyncClient, purl: str, reason: str
) -> None:
    resp = await client.get("/api/check", params={"purl": purl})
    assert resp.status_code == 422, resp.text
    detail = resp.json()["detail"][0]
    assert detail["loc"][-1] in {"purl", "package"}
    assert reason in detail["msg"]


async def test_missing_purl_is_a_422(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/latest")
    assert resp.status_code == 422
    assert resp.json()["detail"][0]["loc"] == ["query", "purl"]


async def test_a_versioned_purl_where_the_answer_is_not_for_one_version_is_a_422(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/vulns", params={"purl": "pkg:npm/lodash@4.17.15"})
    assert resp.status_code == 422
    detail = resp.json()["detail"][0]
    assert detail["loc"] == ["query", "purl"]
    assert "/api/vulns/{ecosystem}/{package}" in detail["msg"]


@pytest.mark.parametrize(
    ("twin", "path"),
    [
        ("/api/latest", "/api/latest/npm/lodash"),
        ("/api/versions", "/api/versions/npm/lodash"),
        ("/api/license", "/api/license/npm/lodash"),
        ("/api/exists", "/api/exists/npm/lodash"),
    ],
)
async def test_twins_answer_what_the_path_form_answers(
    client: httpx.AsyncClient, twin: str, path: str
) -> None:
    by_purl = await client.get(twin, params={"purl": "pkg:npm/lodash"})
    by_path = await client.get(path)
    assert by_purl.status_code == by_path.status_code == 200, by_purl.text
    volatile = {"_cache", "_response_ms"}
    a, b = by_purl.json(), by_path.json()
    assert {k: v for k, v in a.items() if k not in volatile} == {
        k: v for k, v in b.items() if k not in volatile
    }


async def test_scoped_npm_purl(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/latest", params={"purl": "pkg:npm/%40types/jquery"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["package"] == "@types/jquery"
    assert body["purl"] == f"pkg:npm/%40types/jquery@{body['latest_version']}"


async def test_answers_about_a_package_carry_its_purl(client: httpx.AsyncClient) -> None:
    latest = (await client.get("/api/latest/npm/lodash")).json()
    version = latest["latest_version"]
    assert latest["purl"] == f"pkg:npm/lodash@{version}"
    health = (await client.get("/api/health/npm/lodash", params={"version": "4.17.15"})).json()
    assert health["purl"] == "pkg:npm/lodash@4.17.15"
    assert (await client.get("/api/exists/npm/lodash")).json()["purl"] == "pkg:npm/lodash"
    assert (await client.get("/api/versions/npm/lodash")).json()["purl"] == "pkg:npm/lodash"
    lic = (await client.get("/api/license/npm/lodash")).json()
    assert lic["purl"] == f"pkg:npm/lodash@{lic['version']}"
    install = (await client.get("/api/install/npm/lodash", params={"version": "4.17.15"})).json()
    assert install["purl"] == "pkg:npm/lodash@4.17.15"
    vulns = (await client.get("/api/vulns/npm/lodash")).json()
    assert vulns["purl"] == f"pkg:npm/lodash@{vulns['version']}"
    pin = (await client.get("/api/pin_safe/npm/lodash")).json()
    assert pin["purl"] == "pkg:npm/lodash"
    mal = (await client.get("/api/malicious/npm/lodash", params={"version": "4.17.15"})).json()
    assert mal["purl"] == "pkg:npm/lodash@4.17.15"
    typo = (await client.get("/api/typosquat/npm/lodash")).json()
    assert typo["purl"] == "pkg:npm/lodash"
    report = (await client.get("/api/check/pypi/requests")).json()
    assert report["purl"] == f"pkg:pypi/requests@{report['latest_version']}"


async def test_check_bulk_takes_purl_items(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/check_bulk",
        json={
            "items": [
                {"purl": "pkg:npm/lodash@4.17.15"},
                {"purl": "pkg:pypi/Requests"},
                {"ecosystem": "npm", "package": "left-pad", "version": "1.3.0"},
            ]
        },
    )
    assert resp.status_code == 200, resp.text
    results = resp.json()["results"]
    assert [(r["ecosystem"], r["package"], r["version"], r["purl"]) for r in results] == [
        ("npm", "lodash", "4.17.15", "pkg:npm/lodash@4.17.15"),
        ("pypi", "requests", None, "pkg:pypi/requests"),
        ("npm", "left-pad", "1.3.0", "pkg:npm/left-pad@1.3.0"),
    ]


@pytest.mark.parametrize(
    ("item", "where"),
    [
        ({"purl": "pkg:nope/x"}, ["body", "items", 0, "purl"]),
        ({"purl": "lodash"}, ["body", "items", 0, "purl"]),
        ({"purl": "pkg:npm/lodash", "ecosystem": "npm"}, ["body", "items", 0]),
        ({"purl": "pkg:npm/lodash@1.0.0", "version": "2.0.0"}, ["body", "items", 0]),
        ({"version": "2.0.0"}, ["body", "items", 0]),
    ],
)
async def test_check_bulk_refuses_bad_purl_items(
    client: httpx.AsyncClient, item: dict[str, str], where: list[Any]
) -> None:
    resp = await client.post("/api/check_bulk", json={"items": [item]})
    assert resp.status_code == 422, resp.text
    assert resp.json()["detail"][0]["loc"] == where


async def test_ai_stack_takes_purl_items(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/ai/stack",
        json={"packages": [{"purl": "pkg:npm/lodash@4.17.15"}, {"purl": "pkg:npm/left-pad"}]},
    )
    assert resp.status_code == 200, resp.text
    packages = resp.json()["packages"]
    assert [(p["package"], p["version"], p["purl"]) for p in packages] == [
        ("lodash", "4.17.15", "pkg:npm/lodash@4.17.15"),
        ("left-pad", None, "pkg:npm/left-pad"),
    ]


async def test_scan_takes_purls_as_package_names(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/scan", json={"packages": {"pkg:npm/lodash@4.17.15": "", "pkg:npm/left-pad": "1.3.0"}}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["ecosystem"] == "npm"
    assert {(p["name"], p["version"], p["purl"]) for p in body["packages"]} == {
        ("lodash", "4.17.15", "pkg:npm/lodash@4.17.15"),
        ("left-pad", "1.3.0", "pkg:npm/left-pad@1.3.0"),
    }
    mixed = await client.post(
        "/api/scan", json={"packages": {"pkg:npm/lodash@4.17.15": "", "pkg:pypi/requests": "2.0.0"}}
    )
    assert mixed.status_code == 422
    assert mixed.json()["detail"][0]["loc"][-1] == "packages"


async def test_openapi_documents_the_twins(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    check = doc["paths"]["/api/check"]["get"]
    purl = next(p for p in check["parameters"] if p["name"] == "purl")
    assert purl["in"] == "query" and purl["required"] is True
    assert {"200", "404", "422", "503"} <= set(check["responses"])
    assert (
        check["responses"]["200"]
        == doc["paths"]["/api/check/{ecosystem}/{package}"]["get"]["responses"]["200"]
    )
    # `/api/health` stays the liveness probe; the package health has its path form only
    liveness = doc["paths"]["/api/health"]["get"]
    assert all(p["name"] != "purl" for p in liveness.get("parameters", []))
    assert "/api/tree" in doc["paths"] and "/api/trust" in doc["paths"]


async def test_purl_calls_are_recorded_with_their_package(
    client: httpx.AsyncClient, runtime: Any
) -> None:
    usage = runtime.knowledge.usage
    seen: list[tuple[str, Any, Any]] = []
    original = usage.record

    def spy(source: str, **kw: Any) -> None:
        seen.append((source, kw.get("ecosystem"), kw.get("package")))
        original(source, **kw)

    usage.record = spy
    try:
        resp = await client.get("/api/latest", params={"purl": "pkg:npm/lodash"})
    finally:
        usage.record = original
    assert resp.status_code == 200
    assert ("api:/api/latest", "npm", "lodash") in seen
