"""
A first start on an empty database with no network (every upstream is an unresolvable host): the
app's lifespan loads the curated knowledge and the popularity snapshot shipped in the package, so
`resolve_error` answers the cv2 error from curated data, `lodahs` (npm) and `reqeusts` (PyPI) are
typosquat suspects in `/api/typosquat`, MCP and `check_bulk`, and a real name outside the partial
snapshot is not said to be missing. A second start with the same shipped revision loads nothing.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.popularity import snapshot_entries
from pkgintel.mcp import tools
from pkgintel.runtime.container import Runtime

CV2 = """Traceback (most recent call last):
  File "app.py", line 1, in <module>
    import cv2
ModuleNotFoundError: No module named 'cv2'
"""


async def _loaded(runtime: Runtime, timeout: float = 600.0) -> None:
    """Wait for the background load (seconds on an idle machine; more on a busy CI runner)."""
    assert runtime.shipped is not None
    deadline = time.monotonic() + timeout
    while True:
        states = {s.ecosystem for s in await runtime.names.index_states()}
        if runtime.shipped.state.status == "ok" and {Ecosystem.NPM, Ecosystem.PYPI} <= states:
            return
        assert runtime.shipped.state.status != "failed", runtime.shipped.state
        assert time.monotonic() < deadline, (runtime.shipped.state, states)
        await asyncio.sleep(0.2)


@pytest.mark.slow
async def test_first_start_without_network_answers_from_the_shipped_knowledge(
    settings: Settings,
) -> None:
    offline = settings.model_copy(
        update={"shipped_popularity": True, "worker_embedded": False, "initial_ingest": False}
    )
    app = create_app(offline)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as c,
    ):
        runtime: Runtime = app.state.runtime
        await _loaded(runtime)

        body = (await c.post("/api/error/resolve", json={"error": CV2})).json()
        assert body["status"] == "match", body
        assert "opencv" in body["solutions"][0]["title"].lower()
        assert body["_meta"]["sources"][0]["status"] == "ok"
        assert (await tools.resolve_error(runtime, CV2))["status"] == "match"

        for eco, name, target in (("npm", "lodahs", "lodash"), ("pypi", "reqeusts", "requests")):
            typo = (await c.get(f"/api/typosquat/{eco}/{name}")).json()
            assert typo["is_suspected"] is True and typo["status"] == "ok", typo
            assert target in [t["name"] for t in typo["targets"] if t["suspected"]]
            (source,) = typo["_meta"]["sources"]
            assert "partial" in source["detail"]
            mcp = await tools.check_typosquat(runtime, Ecosystem(eco), name)
            assert mcp["is_suspected"] is True

        bulk = (
            await c.post(
                "/api/check_bulk",
                json={
                    "items": [
                        {"ecosystem": "npm", "package": "lodahs"},
                        {"ecosystem": "pypi", "package": "reqeusts"},
                        {"ecosystem": "pypi", "package": "requests"},
                    ]
                },
            )
        ).json()
        assert [r["status"] for r in bulk["results"]] == [
            "typosquat_suspect",
            "typosquat_suspect",
            "exists",
        ]

        # A real PyPI project outside the snapshot (unranked): unknown, never "does not exist".
        ranked = {e.name for e in snapshot_entries(Ecosystem.PYPI)}
        assert "django-absoluteuri" not in ranked
        exists = (await c.get("/api/exists/pypi/django-absoluteuri")).json()
        assert exists["exists"] is None, exists
        assert (await c.get("/api/exists/pypi/requests")).json()["exists"] is True

        # The status says where each index came from (the `ingest-names` job replaces it).
        status = (await c.get("/api/status")).json()
        sources = {i["ecosystem"]: i["source"] for i in status["stats"]["name_indexes"]}
        assert sources == {"npm": "shipped snapshot 2026-11", "pypi": "shipped snapshot 2026-11"}

    # A restart with the same shipped revision finds everything current: nothing is reloaded.
    again = create_app(offline)
    async with again.router.lifespan_context(again):
        rt: Runtime = again.state.runtime
        assert rt.shipped is not None
        load = await rt.shipped.ensure()
        assert load.curated == "current"
        assert load.popularity == {
            "npm": "kept shipped snapshot 2026-11",
            "pypi": "kept shipped snapshot 2026-11",
        }
        assert load.seconds < 5
