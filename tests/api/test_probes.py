"""`/livez` and `/readyz`: status codes a load balancer can act on (`/api/health` stays 200);
`/api/status` shows the worker's warm-up."""

from __future__ import annotations

import httpx

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.readiness import WarmState


async def test_ready_when_the_database_answers_and_the_worker_is_warm(
    client: httpx.AsyncClient,
) -> None:
    live = await client.get("/livez")
    assert live.status_code == 200 and live.json() == {"live": True}
    ready = await client.get("/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json() == {"ready": True, "checks": {"database": "ok", "warm": "ok"}}
    assert ready.headers["cache-control"] == "no-store"


async def test_a_worker_still_warming_up_is_not_ready(settings: Settings, runtime: Runtime) -> None:
    app = create_app(settings, runtime=runtime)
    app.state.warm = WarmState(warm=False)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as client:
        ready = await client.get("/readyz")
        assert ready.status_code == 503
        assert ready.headers["content-type"] == "application/problem+json"
        body = ready.json()
        assert body["ready"] is False and body["checks"]["database"] == "ok"
        assert body["checks"]["warm"].startswith("warming up") and "warm" in body["detail"]
        assert int(ready.headers["retry-after"]) >= 1
        warming = (await client.get("/api/status")).json()["warm_up"]
        assert warming["done"] is False and warming["took_s"] is None
        app.state.warm.done()
        assert (await client.get("/readyz")).status_code == 200
        assert (await client.get("/api/health")).status_code == 200
        warm = (await client.get("/api/status")).json()["warm_up"]
        assert warm["done"] is True and warm["took_s"] >= 0
