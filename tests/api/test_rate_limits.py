"""
Rate limits on every path: the 101st anonymous request within a minute is a 429 problem with
`Retry-After` (one app; two apps sharing Redis), a key raises the limit (on `/mcp` too), AI-agent
user agents get theirs, GDPR paths 10 per hour, health/status/probes/live feed unlimited, a bad or
revoked key is 401 (in another worker within the cache TTL), `X-Forwarded-For` only from trusted
proxies, and the `RateLimit-*` headers on every limited answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.accounts import SESSION_COOKIE
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from tests.api.test_accounts_api import sign_in
from tests.fake_registry import ReplayRegistry

CHEAP = "/api/contact/types"


async def _spend(client: httpx.AsyncClient, n: int, **kwargs: object) -> None:
    for _ in range(n):
        resp = await client.get(CHEAP, **kwargs)  # type: ignore[arg-type]
        assert resp.status_code == 200, resp.text


async def new_key(client: httpx.AsyncClient, runtime: Runtime) -> tuple[str, int, str]:
    cookie = await sign_in(client, runtime)
    client.cookies.clear()
    resp = await client.post(
        "/api/auth/keys", headers={"Cookie": f"{SESSION_COOKIE}={cookie}"}, json={}
    )
    assert resp.status_code == 201, resp.text
    return resp.json()["key"], resp.json()["id"], cookie


async def test_the_101st_anonymous_request_in_a_minute_is_429_with_retry_after(
    client: httpx.AsyncClient,
) -> None:
    first = await client.get(CHEAP)
    assert first.headers["ratelimit-limit"] == "100"
    assert first.headers["ratelimit-remaining"] == "99"
    assert 0 < int(first.headers["ratelimit-reset"]) <= 60
    await _spend(client, 99)
    refused = await client.get(CHEAP)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert refused.headers["ratelimit-remaining"] == "0"
    body = refused.json()
    assert body["status"] == 429 and body["limit"] == "100 per 1 minute"
    # Every path counts against the same limit, the MCP endpoint included.
    assert (await client.post("/mcp", json={})).status_code == 429
    assert (await client.get("/api/exists/npm/left-pad")).status_code == 429


async def test_health_status_probes_and_the_live_feed_are_not_limited(
    client: httpx.AsyncClient,
) -> None:
    await _spend(client, 100)
    assert (await client.get(CHEAP)).status_code == 429
    for path in ("/livez", "/readyz", "/api/status", "/api/health"):
        resp = await client.get(path)
        assert resp.status_code != 429, path
        assert "ratelimit-limit" not in resp.headers, path


async def test_a_key_raises_the_limit_and_lifts_it_on_mcp_too(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    key, _, _ = await new_key(client, runtime)  # three anonymous requests
    await _spend(client, 97)
    assert (await client.get(CHEAP)).status_code == 429
    with_key = await client.get(CHEAP, headers={"Authorization": f"Bearer {key}"})
    assert with_key.status_code == 200
    assert with_key.headers["ratelimit-limit"] == "1000"
    mcp = await client.post(
        "/mcp",
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert mcp.status_code != 429 and mcp.headers["ratelimit-limit"] == "1000"


async def test_ai_agents_get_a_higher_limit_not_a_bypass(client: httpx.AsyncClient) -> None:
    agent = {"User-Agent": "claude-code/1.0.3"}
    first = await client.get(CHEAP, headers=agent)
    assert first.headers["ratelimit-limit"] == "200"
    await _spend(client, 199, headers=agent)
    assert (await client.get(CHEAP, headers=agent)).status_code == 429


async def test_gdpr_paths_allow_ten_per_hour_per_client(client: httpx.AsyncClient) -> None:
    for _ in range(10):
        resp = await client.get("/api/gdpr/policy")
        assert resp.status_code != 429
    refused = await client.get("/api/gdpr/export")
    assert refused.status_code == 429
    assert refused.json()["limit"] == "10 per 1 hour"
    assert int(refused.headers["retry-after"]) > 60
    assert (await client.get(CHEAP)).status_code == 200  # other paths are not affected


async def test_bad_keys_are_401_and_other_bearer_values_are_left_alone(
    client: httpx.AsyncClient,
) -> None:
    for headers in (
        {"X-API-Key": "nonsense"},
        {"X-API-Key": "pk_live_" + "A" * 43},
        {"Authorization": "Bearer pk_live_" + "B" * 43},
    ):
        resp = await client.get(CHEAP, headers=headers)
        assert resp.status_code == 401, headers
        assert resp.headers["content-type"] == "application/problem+json"
        assert "bearer" in resp.headers["www-authenticate"].lower()
    # The admin API's Bearer token is not an API key: its own route judges it.
    assert (await client.get(CHEAP, headers={"Authorization": "Bearer admin"})).status_code == 200
    # Guessing keys spends the client's allowance: past it, 429 instead of a key lookup.
    guesses = [
        (await client.get(CHEAP, headers={"X-API-Key": f"pk_live_{i:043d}"})).status_code
        for i in range(100)
    ]
    assert guesses[:96] == [401] * 96 and guesses[-1] == 429


@pytest.fixture
async def second_worker(
    settings: Settings, registry: ReplayRegistry, runtime: Runtime
) -> AsyncIterator[httpx.AsyncClient]:
    """Another app with its own runtime (limiter, caches) on the same database and Redis."""
    transport = httpx.ASGITransport(app=registry.app)
    async with build_runtime(settings, transport=transport) as other:
        app = create_app(settings, runtime=other)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as c:
            yield c


async def test_two_workers_sharing_redis_share_the_count(
    settings: Settings, client: httpx.AsyncClient, second_worker: httpx.AsyncClient
) -> None:
    if not settings.redis_url:
        pytest.skip("needs Redis (PKGINTEL_TEST_REDIS_URL)")
    for i in range(100):
        resp = await (client if i % 2 else second_worker).get(CHEAP)
        assert resp.status_code == 200
    assert (await client.get(CHEAP)).status_code == 429
    assert (await second_worker.get(CHEAP)).status_code == 429


async def test_a_revoked_key_is_refused_by_another_worker_within_the_cache_ttl(
    settings: Settings,
    client: httpx.AsyncClient,
    runtime: Runtime,
    second_worker: httpx.AsyncClient,
) -> None:
    key, key_id, cookie = await new_key(client, runtime)
    headers = {"X-API-Key": key}
    assert (await second_worker.get(CHEAP, headers=headers)).status_code == 200  # now cached
    revoked = await client.delete(
        f"/api/auth/keys/{key_id}", headers={"Cookie": f"{SESSION_COOKIE}={cookie}"}
    )
    assert revoked.status_code == 200
    assert (await client.get(CHEAP, headers=headers)).status_code == 401  # this worker: at once
    ttl = settings.credential_cache_ttl_s
    assert ttl <= 5
    deadline = time.monotonic() + ttl + 0.5
    while (await second_worker.get(CHEAP, headers=headers)).status_code != 401:
        assert time.monotonic() < deadline, "the other worker still accepts the revoked key"
        await asyncio.sleep(0.25)


async def test_forwarded_addresses_count_only_from_trusted_proxies(
    settings: Settings, runtime: Runtime
) -> None:
    for trusted, separate in (([], False), (["127.0.0.1/32"], True)):
        app = create_app(settings.model_copy(update={"trusted_proxies": trusted}), runtime=runtime)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as c:
            a = await c.get(CHEAP, headers={"X-Forwarded-For": "203.0.113.1"})
            b = await c.get(CHEAP, headers={"X-Forwarded-For": "203.0.113.2"})
        remaining = int(a.headers["ratelimit-remaining"]), int(b.headers["ratelimit-remaining"])
        assert (remaining[0] == remaining[1]) is separate, (trusted, remaining)


async def test_the_mcp_manifest_states_the_enforced_limits_and_optional_keys(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/.well-known/mcp.json")).json()
    assert body["rate_limits"]["enforced"] is True
    assert body["rate_limits"]["anonymous"] == "100 per 1 minute"
    assert body["rate_limits"]["api_key"] == "1000 per 1 minute"
    assert body["auth"]["type"] == "optional" and "bearer" in body["auth"]["schemes"]
