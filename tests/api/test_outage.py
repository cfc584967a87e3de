"""
A registry outage as users see it: once the host's circuit opens no call is made; answers come from
the stored copy, marked stale with their age (check, license, install, latest, pin_safe, and a
`?version=X` the copy lists), or a 503 with Retry-After when nothing is stored; and a request that
would look up many packages on demand is bounded and says which it did not look up.
"""

from __future__ import annotations

import httpx

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime


def _registry_source(body: dict) -> dict:
    return next(s for s in body["_meta"]["sources"] if s["kind"] == "registry")


async def _forget(runtime: Runtime) -> None:
    """Drop the cached copies (as after their lifetime); the stored copy stays."""
    for version in ("", "1.0.0"):
        await runtime.packages._cache.delete(f"pkg:npm:tiny-lib:{version}")


async def test_outage_serves_marked_copies_and_stops_calling(
    client: httpx.AsyncClient, runtime: Runtime, registry
) -> None:
    registry.osv_fail_with = None
    assert (await client.get("/api/check/npm/tiny-lib")).status_code == 200
    registry.fail_with = 503
    for path in (
        "/api/license/npm/tiny-lib",
        "/api/install/npm/tiny-lib",
        "/api/latest/npm/tiny-lib",
        "/api/pin_safe/npm/tiny-lib",
        "/api/check/npm/tiny-lib?version=1.0.0",
    ):
        await _forget(runtime)
        resp = await client.get(path)
        assert resp.status_code == 200, (path, resp.text)
        source = _registry_source(resp.json())
        assert source["status"] == "stale" and source["stale"] is True, path
        assert isinstance(source["age_s"], int) and source["age_s"] >= 0, path
    # By now the host's circuit is open: nothing more reaches the registry.
    hits = len(registry.hits)
    await _forget(runtime)
    resp = await client.get("/api/check/npm/tiny-lib")
    assert resp.status_code == 200 and resp.json()["_cache"] == "stale"
    assert "circuit_open" in _registry_source(resp.json())["detail"]
    missing = await client.get("/api/check/npm/never-stored-pkg")
    assert missing.status_code == 503
    assert missing.headers["content-type"] == "application/problem+json"
    assert missing.json()["reason"] == "circuit_open"
    assert int(missing.headers["retry-after"]) >= 1
    assert len(registry.hits) == hits


async def test_version_asked_during_outage_is_answered_from_the_copy(
    client: httpx.AsyncClient, runtime: Runtime, registry
) -> None:
    registry.osv_fail_with = None
    assert (await client.get("/api/check/npm/tiny-lib")).status_code == 200
    registry.fail_with = 503
    await _forget(runtime)
    resp = await client.get("/api/check/npm/tiny-lib", params={"version": "1.1.0"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["_cache"] == "stale"
    assert "lists 1.1.0" in _registry_source(body)["detail"]
    # A version the copy does not list is still not invented.
    gone = await client.get("/api/check/npm/tiny-lib", params={"version": "7.0.0"})
    assert gone.status_code in (404, 503)


async def test_fresh_answers_carry_age_and_stale_flag(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/license/npm/tiny-lib")).json()
    source = _registry_source(body)
    assert source["stale"] is False and source["age_s"] >= 0


async def test_fan_out_is_bounded_and_names_what_was_not_looked_up(
    settings: Settings, runtime: Runtime, registry
) -> None:
    registry.osv_fail_with = None
    bounded = settings.model_copy(update={"upstream_fanout_per_request": 3})
    app = create_app(bounded, runtime=runtime)
    packages = {f"pkg-{i}": "1.0.0" for i in range(8)}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        resp = await client.post("/api/scan", json={"ecosystem": "cargo", "packages": packages})
    assert resp.status_code == 200, resp.text
    meta = resp.json()["_meta"]
    assert len(meta["not_looked_up"]) == 5
    assert set(meta["not_looked_up"]) < set(packages)
    assert sum(1 for h in registry.hits if h.endswith("querybatch")) <= 3
