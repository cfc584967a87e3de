"""`/api/stats` and `/api/savings`: figures from the usage log (every status recorded, crawlers
excluded from savings), served with stale-while-revalidate."""

from __future__ import annotations

import httpx

from pkgintel.domain.savings import ASSUMPTIONS
from pkgintel.domain.usage_figures import percentile_offset
from pkgintel.runtime.container import Runtime

AGENT = {"User-Agent": "claude-code/1.0"}
CRAWLER = {"User-Agent": "Googlebot/2.1 (+http://www.google.com/bot.html)"}


async def test_stats_count_calls_clients_packages_and_latency_from_the_usage_log(
    client: httpx.AsyncClient,
) -> None:
    for path in ["/api/exists/npm/tiny-lib"] * 3 + ["/api/check/npm/no-such-pkg-xyz"]:
        await client.get(path, headers=AGENT)
    resp = await client.get("/api/stats")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["calls"] == 4 and body["unique_clients"] == 1
    assert body["packages"] == 2 and body["ecosystems"] == 1
    assert body["calls_by_client_class"] == {"ai-agent": 4}
    assert body["top_endpoints"][0] == {
        "endpoint": "api:/api/exists/{ecosystem}/{package}",
        "calls": 3,
    }
    assert body["latency_ms"]["p50"] is not None and body["latency_ms"]["p95"] is not None
    assert body["_cache"] == "computed"
    assert "stale-while-revalidate=240" in resp.headers["cache-control"]
    again = (await client.get("/api/stats")).json()
    assert again["_cache"] == "fresh" and again["calls"] == 4  # the stats call itself: next minute


async def test_savings_count_answered_non_crawler_calls_with_published_assumptions(
    client: httpx.AsyncClient,
) -> None:
    await client.get("/api/exists/npm/tiny-lib", headers=AGENT)
    await client.get("/api/exists/npm/tiny-lib", headers=CRAWLER)
    await client.get("/api/check/npm/no-such-pkg-xyz", headers=AGENT)  # 404: saved nothing
    body = (await client.get("/api/savings")).json()
    exists = next(a for a in ASSUMPTIONS if a.group == "exists")
    assert body["calls_counted"] == 1
    assert body["tokens_saved"] == exists.instead_tokens - exists.answer_tokens
    assert body["energy_saved_wh"] > 0
    groups = {g["group"]: g for g in body["assumptions"]["groups"]}
    assert groups["exists"]["instead_tokens"] == exists.instead_tokens
    assert "crawler" in body["assumptions"]["counted"]


async def test_stale_figures_are_served_while_they_are_recomputed(runtime: Runtime) -> None:
    from pkgintel.cache.memory import MemoryCache
    from pkgintel.services.usage.figures import UsageFiguresService

    now = [1000.0]
    calls: list[int] = []

    class Reads:
        async def figures(self, start, end):  # type: ignore[no-untyped-def]
            raise AssertionError("not used")

        async def answered_calls_by_source(self, start, end):  # type: ignore[no-untyped-def]
            calls.append(1)
            return {"api:/api/exists/{ecosystem}/{package}": len(calls)}

    from datetime import UTC, datetime

    service = UsageFiguresService(
        Reads(),
        MemoryCache(clock=lambda: now[0]),
        flush=None,
        clock=lambda: datetime(2026, 11, 22, tzinfo=UTC),
    )
    service._savings._clock = lambda: now[0]  # the cache's clock
    first = await service.savings()
    assert (first.cache, first.value["calls_counted"]) == ("computed", 1)
    now[0] += 61  # past fresh, within hard: the old value at once, a recomputation behind it
    stale = await service.savings()
    assert (stale.cache, stale.value["calls_counted"]) == ("stale", 1)
    await service._savings._refresh  # type: ignore[misc]
    assert (await service.savings()).value["calls_counted"] == 2
    now[0] += 400  # past hard: recomputed before answering
    assert (await service.savings()).cache == "computed"


def test_percentile_offsets_are_nearest_rank() -> None:
    assert [percentile_offset(n, 0.5) for n in (1, 2, 3, 4)] == [0, 0, 1, 1]
    assert percentile_offset(20, 0.95) == 18 and percentile_offset(100, 0.95) == 94
