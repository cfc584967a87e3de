"""
The curated compromise knowledge base through the doors: `/api/check` (`historical_compromise`),
`/api/malicious` and `/api/check_bulk` (`historical_incident`), merged with malicious-package reports
without ever downgrading a `malicious` verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from tests.fake_registry import ReplayRegistry
from tests.osv_records import ingest_records, record


async def _bulk(client: httpx.AsyncClient, items: list[dict[str, str]]) -> list[dict[str, Any]]:
    resp = await client.post("/api/check_bulk", json={"items": items})
    assert resp.status_code == 200, resp.text
    results: list[dict[str, Any]] = resp.json()["results"]
    return results


async def test_bulk_flags_known_compromised_releases_from_the_knowledge_base(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "ua-parser-js", "ua-parser-js", latest_version="1.0.40")],
        source="test",
    )
    results = await _bulk(
        client,
        [
            {"ecosystem": "npm", "package": "event-stream", "version": "3.3.6"},
            {"ecosystem": "npm", "package": "event-stream", "version": "3.3.4"},
            {"ecosystem": "npm", "package": "ua-parser-js"},
            {"ecosystem": "pypi", "package": "ctx", "version": "0.2.6"},
            {"ecosystem": "npm", "package": "flatmap-stream"},
        ],
    )
    assert [r["status"] for r in results] == [
        "malicious",
        "historical_incident",
        "historical_incident",
        "malicious",
        "malicious",  # every release of it was the attack
    ]
    assert results[0]["incidents"] == ["event-stream-2018"]
    assert results[0]["sources"][0].startswith("https://")
    assert results[2]["judged_version"] == "1.0.40"


async def test_reports_are_never_downgraded_by_curated_data(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    # A malicious-package report covering every version of a package the knowledge base also names
    # for specific versions only: the report's "malicious" stands.
    rec = record("MAL-2099-1", "npm", "coa", events=[{"introduced": "0"}], range_type="SEMVER")
    await ingest_records(runtime, tmp_path, "osv", "npm", [rec])
    [bulk] = await _bulk(client, [{"ecosystem": "npm", "package": "coa", "version": "2.0.2"}])
    assert bulk["status"] == "malicious"
    body = (await client.get("/api/malicious/npm/coa?version=2.0.2")).json()
    assert body["verdict"] == "malicious" and body["is_malicious"] is True


async def test_malicious_endpoint_names_the_incident_with_its_sources(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/malicious/npm/event-stream?version=3.3.6")).json()
    assert body["is_malicious"] is True and body["verdict"] == "malicious"
    hist = body["historical_compromise"]
    [incident] = hist["incidents"]
    assert incident["id"] == "event-stream-2018" and incident["version_affected"] is True
    assert incident["affected_versions"] == ["3.3.6"]
    assert all(s.startswith("https://") for s in incident["sources"])
    assert hist["version_affected"] is True
    clean = (await client.get("/api/malicious/npm/event-stream?version=3.3.4")).json()
    # no malicious-package reports are loaded: a release outside the incident is not called clean
    assert clean["is_malicious"] is None
    assert clean["historical_compromise"]["version_affected"] is False


async def test_report_carries_the_curated_incident(client: httpx.AsyncClient) -> None:
    # chalk is recorded (shared npm fixtures); its 2025 incident names 5.6.1 only
    body = (await client.get("/api/check/npm/chalk")).json()
    hist = body["historical_compromise"]
    assert hist is not None and hist["matched"] is True
    assert [i["id"] for i in hist["incidents"]] == ["chalk-debug-2025"]
    assert hist["incidents"][0]["version_affected"] is False
    assert "5.6.1" in hist["versions"]


async def test_ai_stack_replaces_a_known_compromised_release(client: httpx.AsyncClient) -> None:
    body = (
        await client.post(
            "/api/ai/stack",
            json={
                "packages": [{"ecosystem": "npm", "package": "ua-parser-js", "version": "0.7.29"}]
            },
        )
    ).json()
    [verdict] = body["packages"]
    assert verdict["verdict"] == "do_not_use"
    assert any(
        a["action"] == "replace" and "ua-parser-js" in a["detail"] for a in body["action_items"]
    )


async def test_bulk_judges_a_2026_incident_by_release(client: httpx.AsyncClient) -> None:
    results = await _bulk(
        client,
        [
            {"ecosystem": "npm", "package": "axios", "version": "1.14.1"},
            {"ecosystem": "npm", "package": "axios", "version": "1.14.0"},
            {"ecosystem": "npm", "package": "plain-crypto-js", "version": "4.2.1"},
        ],
    )
    assert [r["status"] for r in results] == ["malicious", "historical_incident", "malicious"]
    assert results[0]["incidents"] == ["axios-2026-03"]


async def test_malicious_endpoint_judges_a_pypi_incident_in_pep440_terms(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/malicious/pypi/LiteLLM?version=1.82.8.0")).json()
    assert body["is_malicious"] is True and body["verdict"] == "malicious"
    assert body["historical_compromise"]["incidents"][0]["id"] == "litellm-2026-03"
    clean = (await client.get("/api/malicious/pypi/litellm?version=1.82.6")).json()
    assert clean["is_malicious"] is not True
    assert clean["historical_compromise"]["version_affected"] is False


def _packument(name: str, versions: list[str]) -> dict[str, Any]:
    times = {v: f"2026-0{1 + i % 8}-01T00:00:00.000Z" for i, v in enumerate(versions)}
    return {
        "name": name,
        "dist-tags": {"latest": versions[-1]},
        "versions": {v: {"name": name, "version": v} for v in versions},
        "time": {
            "created": "2014-08-29T00:00:00.000Z",
            "modified": "2026-04-01T00:00:00.000Z",
            **times,
        },
    }


async def test_report_shows_the_history_without_calling_the_latest_release_compromised(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    # the malicious releases were unpublished: the registry lists the clean ones only
    registry.add(
        "https://registry.npmjs.org/axios", _packument("axios", ["0.30.3", "1.14.0", "1.14.2"])
    )
    body = (await client.get("/api/check/npm/axios")).json()
    hist = body["historical_compromise"]
    assert hist is not None and hist["matched"] is True
    assert [i["id"] for i in hist["incidents"]] == ["axios-2026-03"]
    assert hist["incidents"][0]["version_affected"] is False
    assert {"1.14.1", "0.30.4"} <= set(hist["versions"])


async def test_bulk_flags_nuget_packagist_and_go_incidents(client: httpx.AsyncClient) -> None:
    results = await _bulk(
        client,
        [
            {"ecosystem": "nuget", "package": "Betalgo.Open.AI", "version": "7.1.8"},
            {"ecosystem": "composer", "package": "intercom/intercom-php", "version": "5.0.2"},
            {"ecosystem": "composer", "package": "intercom/intercom-php", "version": "5.0.1"},
            {"ecosystem": "go", "package": "github.com/boltdb-go/bolt", "version": "v1.3.1"},
        ],
    )
    assert [r["status"] for r in results] == [
        "malicious",
        "malicious",
        "historical_incident",
        "malicious",
    ]
    assert results[1]["incidents"] == ["intercom-sdks-2026-04"]
