"""GDPR endpoints: the caller's rows exported and erased by its address hash only, and the policy."""

from __future__ import annotations

import httpx

from pkgintel.runtime.container import Runtime


async def test_export_returns_the_callers_rows_and_delete_removes_them(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    for path in ("/api/exists/npm/tiny-lib", "/api/check/npm/no-such-pkg-xyz"):
        await client.get(path, headers={"User-Agent": "claude-code/1.0"})
    await client.post("/api/track", json={"path": "/docs?q=secret", "referrer": "https://ex.org/a"})
    export = await client.get("/api/gdpr/export")
    assert export.status_code == 200, export.text
    body = export.json()
    usage = body["rows"]["usage"]
    assert [r["source"] for r in usage][:2] == [
        "api:/api/exists/{ecosystem}/{package}",
        "api:/api/check/{ecosystem}/{package}",
    ]
    assert usage[1]["status"] == 404 and usage[1]["found"] is False
    assert body["rows"]["page_views"] == [
        {"at": body["rows"]["page_views"][0]["at"], "path": "/docs", "referrer_host": "ex.org"}
    ]
    assert "127.0.0.1" not in export.text
    deleted = await client.post("/api/gdpr/delete")
    assert deleted.status_code == 200, deleted.text
    # the two calls, the track, the first export (the delete itself is recorded after it ran)
    assert deleted.json()["deleted"] == deleted.json()["deleted_by_kind"]["usage"] + 1
    assert deleted.json()["deleted_by_kind"]["usage"] >= 3
    again = (await client.get("/api/gdpr/export")).json()
    # Only what was recorded after the erase: the delete call itself.
    assert [r["source"] for r in again["rows"]["usage"]] == ["api:/api/gdpr/delete"]
    assert again["rows"]["page_views"] == []


async def test_another_address_never_sees_or_erases_my_rows(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await client.get("/api/exists/npm/tiny-lib")
    assert runtime.knowledge is not None
    await runtime.knowledge.usage.flush()
    other = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=client._transport.app, client=("10.9.8.7", 1234)),  # type: ignore[attr-defined]
        base_url="http://test",
    )
    async with other:
        assert (await other.get("/api/gdpr/export")).json()["counts"]["usage"] == 0
        assert (await other.post("/api/gdpr/delete")).json()["deleted_by_kind"]["usage"] == 1
    mine = (await client.get("/api/gdpr/export")).json()
    assert mine["counts"]["usage"] >= 1


async def test_policy_is_machine_readable_with_retention_and_hash_method(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/gdpr/policy")
    assert resp.status_code == 200
    body = resp.json()
    assert body["identification"]["algorithm"] == "HMAC-SHA256"
    assert body["identification"]["raw_address_stored"] is False
    kept = {d["table"]: d["retention_days"] for d in body["data"]}
    assert kept == {
        "usage_event": 90,
        "page_view": 90,
        "anomaly_report": 365,
        "contact_request": 365,
    }
    assert body["legal_basis"] and body["rights"]["erase"]["path"] == "/api/gdpr/delete"
