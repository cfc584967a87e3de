"""
The hot lane answers an anonymous `GET /api/exists/...` before the middleware stack — with the
route's body, ETag, caching and `RateLimit-*` headers, the same rate-limit count as every other
path, a usage-log row, a fresh answer once the name index changes — and hands everything else on,
counted once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import orjson
import pytest

from pkgintel.api.hot_lane import HotLane, HotLaneApp
from pkgintel.application.packages import exists_body
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime

CHEAP = "/api/contact/types"


@pytest.fixture
def answered(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What the lane said for each request it was offered (True: it answered)."""
    app = client._transport.app  # type: ignore[attr-defined]
    assert isinstance(app, HotLaneApp) and app.hot_lane is not None
    seen: list[bool] = []
    lane_answer: Callable[..., Awaitable[bool]] = app.hot_lane.answer

    async def spy(*args: Any) -> bool:
        result = await lane_answer(*args)
        seen.append(result)
        return result

    monkeypatch.setattr(app.hot_lane, "answer", spy)
    return seen


async def _load(runtime: Runtime, *names: str) -> None:
    await runtime.names.ingest(
        Ecosystem.NPM, [NameEntry(Ecosystem.NPM, n, n) for n in names], source="names"
    )


async def test_the_lane_answers_with_the_routes_body_and_headers(
    client: httpx.AsyncClient, runtime: Runtime, answered: list[bool]
) -> None:
    await _load(runtime, "left-pad")
    resp = await client.get("/api/exists/npm/left-pad")
    assert answered == [True]
    assert resp.status_code == 200
    assert resp.content == orjson.dumps(await exists_body(runtime, Ecosystem.NPM, "left-pad"))
    assert resp.json()["exists"] is True
    assert resp.headers["content-type"] == "application/json"
    assert resp.headers["cache-control"] == "public, max-age=3600"
    assert resp.headers["vary"] == "Accept-Encoding"
    assert resp.headers["ratelimit-limit"] == "100"
    assert resp.headers["ratelimit-remaining"] == "99"
    again = await client.get(
        "/api/exists/npm/left-pad", headers={"If-None-Match": resp.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == resp.headers["etag"]
    assert again.headers["ratelimit-remaining"] == "98"


async def test_a_name_loaded_since_is_answered_fresh(
    client: httpx.AsyncClient, runtime: Runtime, answered: list[bool]
) -> None:
    await _load(runtime, "left-pad")
    assert (await client.get("/api/exists/npm/right-pad")).json()["exists"] is False
    await _load(runtime, "right-pad")
    assert (await client.get("/api/exists/npm/right-pad")).json()["exists"] is True
    assert answered == [True, True]


async def test_the_lane_counts_against_the_same_limit_as_every_path(
    client: httpx.AsyncClient, runtime: Runtime, answered: list[bool]
) -> None:
    await _load(runtime, "left-pad")
    for _ in range(99):
        assert (await client.get(CHEAP)).status_code == 200
    last = await client.get("/api/exists/npm/left-pad")
    assert last.status_code == 200 and last.headers["ratelimit-remaining"] == "0"
    refused = await client.get("/api/exists/npm/left-pad")
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert answered == [True, True]
    assert (await client.get(CHEAP)).status_code == 429


async def test_requests_handed_on_are_counted_once(
    client: httpx.AsyncClient, answered: list[bool]
) -> None:
    first = await client.get("/api/exists/npm/bad name!")
    second = await client.get("/api/exists/npm/bad name!")
    assert first.status_code == second.status_code == 422  # the route's validation answer
    assert answered == [False, False]
    assert first.headers["ratelimit-remaining"] == "99"
    assert second.headers["ratelimit-remaining"] == "98"


async def test_credentials_and_other_methods_go_to_the_full_stack(
    client: httpx.AsyncClient, runtime: Runtime, answered: list[bool]
) -> None:
    await _load(runtime, "left-pad")
    keyed = await client.get("/api/exists/npm/left-pad", headers={"X-API-Key": "pk_live_nope"})
    assert keyed.status_code == 401  # the accounts service judged the key
    assert (await client.head("/api/exists/npm/left-pad")).status_code == 405  # as the router says
    assert answered == [False]  # HEAD never reaches the lane


async def test_each_answer_is_a_usage_row(
    client: httpx.AsyncClient, runtime: Runtime, answered: list[bool]
) -> None:
    await _load(runtime, "left-pad")
    assert runtime.knowledge is not None
    await runtime.knowledge.usage.flush()
    await client.get("/api/exists/npm/left-pad")
    await client.get("/api/exists/npm/no-such-pad")
    assert answered == [True, True]
    assert await runtime.knowledge.usage.flush() == 2


def test_the_lane_is_in_front_of_the_stack(client: httpx.AsyncClient) -> None:
    app = client._transport.app  # type: ignore[attr-defined]
    assert isinstance(app.hot_lane, HotLane)
