"""`POST /api/anomaly` (validated, size-limited, limited per client, listed for operators) and
`POST /api/track` (path and referrer host only)."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from tests.fake_registry import ReplayRegistry

REPORT = {
    "ecosystem": "npm",
    "package": "tiny-lib",
    "version": "1.2.0",
    "observed": "do_not_use: flagged malicious",
    "expected": "safe_to_use: the advisory was withdrawn",
    "evidence_url": "https://osv.dev/vulnerability/MAL-2026-1",
}


async def test_a_report_is_stored_and_listed_for_operators_with_the_admin_token(
    settings: Settings, registry: ReplayRegistry
) -> None:
    admin = settings.model_copy(update={"admin_token": "op-secret"})
    transport = httpx.ASGITransport(app=registry.app)
    async with build_runtime(admin, transport=transport) as runtime:
        app = create_app(admin, runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            resp = await client.post("/api/anomaly", json=REPORT)
            assert resp.status_code == 201, resp.text
            body = resp.json()
            assert body["status"] == "received" and len(body["id"]) == 36
            assert (await client.get("/api/admin/anomalies")).status_code == 401
            listed = await client.get(
                "/api/admin/anomalies", headers={"Authorization": "Bearer op-secret"}
            )
    assert listed.status_code == 200, listed.text
    [row] = listed.json()["reports"]
    assert row["id"] == body["id"] and row["expected"] == REPORT["expected"]
    assert len(row["client"]) == 32 and "127.0.0.1" not in listed.text


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"ecosystem": "bower"}, "ecosystem"),
        ({"package": ""}, "package"),
        ({"observed": "   "}, "observed"),
        ({"evidence_url": "javascript:alert(1)"}, "evidence_url"),
        ({"expected": "x" * 2001}, "expected"),
        ({"unknown": 1}, "unknown"),
    ],
)
async def test_bad_reports_are_422_naming_the_field(
    client: httpx.AsyncClient, change: dict[str, object], field: str
) -> None:
    resp = await client.post("/api/anomaly", json={**REPORT, **change})
    assert resp.status_code == 422, resp.text
    assert field in resp.text


async def test_a_body_over_16_kib_is_413(client: httpx.AsyncClient) -> None:
    resp = await client.post("/api/anomaly", json={**REPORT, "observed": "x" * 20_000})
    assert resp.status_code == 413
    assert resp.headers["content-type"].startswith("application/problem+json")


async def test_the_sixth_report_within_an_hour_is_429_with_retry_after(
    client: httpx.AsyncClient,
) -> None:
    for _ in range(5):
        assert (await client.post("/api/anomaly", json=REPORT)).status_code == 201
    resp = await client.post("/api/anomaly", json=REPORT)
    assert resp.status_code == 429 and int(resp.headers["retry-after"]) > 0


async def test_track_keeps_the_path_without_query_and_the_referrer_host_only(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.post(
        "/api/track",
        json={"path": "/docs/api?token=abc#x", "referrer": "https://user:pw@Example.ORG:8443/p?q"},
    )
    assert resp.status_code == 202, resp.text
    assert resp.json() == {
        "status": "recorded",
        "path": "/docs/api",
        "referrer_host": "example.org",
    }
    assert "set-cookie" not in resp.headers
    bad = await client.post("/api/track", json={"path": "https://evil.example/x"})
    assert bad.status_code == 422
