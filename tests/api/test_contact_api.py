"""Contact requests through the JSON API: types, storing, validation, the per-client limit, retention."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.domain.operations.contact import ContactType
from pkgintel.runtime.bootstrap import prepare_database
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.contact import ContactService
from pkgintel.storage.contact import SqlContactStore

GOOD = {
    "type": "wrong-answer",
    "message": "tiny-lib 1.2.0 is reported deprecated but the registry has no deprecation.",
    "email": "dev@example.org",
    "ecosystem": "npm",
    "package": "tiny-lib",
}


async def test_types_lists_every_kind_with_limit_and_retention(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/contact/types")
    assert resp.status_code == 200
    body = resp.json()
    assert [t["value"] for t in body["types"]] == [t.value for t in ContactType]
    assert all(len(t["description"]) >= 10 for t in body["types"])
    assert body["limit"] == "5 per 1 hour" and body["retention_days"] == 365
    assert "max-age" in resp.headers["cache-control"]


async def test_a_request_is_stored_with_a_keyed_client_hash_only(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    resp = await client.post("/api/contact", json=GOOD)
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert body["status"] == "received" and body["type"] == "wrong-answer"
    assert body["ecosystem"] == "npm" and body["package"] == "tiny-lib"
    assert body["reply_requested"] is True and len(body["id"]) == 36
    assert body["_meta"]["sources"][0]["fetched_at"] == body["received_at"]
    assert resp.headers["cache-control"] == "no-store"
    assert runtime.contact is not None
    [stored] = await runtime.contact.newest()
    assert stored.id == body["id"] and stored.request.message == GOOD["message"]
    assert stored.request.source == "api"
    assert len(stored.request.client) == 32 and "127.0.0.1" not in stored.request.client


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"type": "complaint"}, "type"),
        ({"message": "   too short  "}, "message"),
        ({"message": "x" * 5001}, "message"),
        ({"message": "a message with a bell \x07 in it"}, "message"),
        ({"message": "a lone surrogate \ud800 in the text"}, "message"),
        ({"email": "not-an-address"}, "email"),
        ({"email": "a@b"}, "email"),
        ({"ecosystem": None}, "package"),
        ({"ecosystem": "bower"}, "ecosystem"),
        ({"package": "bad\nname"}, "package"),
    ],
)
async def test_bad_requests_are_422_naming_the_field_and_store_nothing(
    client: httpx.AsyncClient, runtime: Runtime, change: dict[str, object], field: str
) -> None:
    content = json.dumps({**GOOD, **change}).encode()  # ASCII escapes, so a lone surrogate survives
    resp = await client.post(
        "/api/contact", content=content, headers={"content-type": "application/json"}
    )
    assert resp.status_code == 422, resp.text
    assert field in resp.text
    assert runtime.contact is not None and await runtime.contact.newest() == []


async def test_unknown_fields_and_non_objects_are_422(client: httpx.AsyncClient) -> None:
    assert (await client.post("/api/contact", json={**GOOD, "name": "x"})).status_code == 422
    assert (await client.post("/api/contact", json=["x"])).status_code == 422
    assert (await client.post("/api/contact", content=b"\xff\xfe")).status_code == 422


async def test_the_sixth_request_within_an_hour_is_429_with_retry_after(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    minimal = {"type": "feature", "message": "Please add the Bazel Central Registry."}
    for _ in range(5):
        assert (await client.post("/api/contact", json=minimal)).status_code == 201
    resp = await client.post("/api/contact", json=minimal)
    assert resp.status_code == 429
    assert int(resp.headers["retry-after"]) > 0
    assert resp.json()["limit"] == "5 per 1 hour"
    assert runtime.contact is not None and len(await runtime.contact.newest()) == 5


async def test_retention_removes_only_requests_past_the_period(settings: Settings) -> None:
    engine, store = await prepare_database(settings)
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    contact = ContactService(
        SqlContactStore(store.engine), gate=None, retention_days=30, clock=lambda: now[0]
    )
    try:
        old = await contact.submit(
            type="other", message="an older request", client="d" * 32, source="api"
        )
        now[0] += timedelta(days=20)
        kept = await contact.submit(
            type="other", message="a recent request", client="c" * 32, source="mcp"
        )
        now[0] += timedelta(days=11)
        assert await contact.prune() == 1
        assert [c.id for c in await contact.newest()] == [kept.id]
        assert old.id != kept.id
    finally:
        await engine.dispose()
