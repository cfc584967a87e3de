"""
One bad package never stops the daily health snapshots: a tracked package its registry no longer has
is marked gone with the day (its history kept, unmarked when it answers again), a name the registry
never had is listed, an unexpected error in one report is listed, and the rest is recorded.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import httpx
import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from tests.api.test_graph_api import NPM, packument
from tests.fake_registry import ReplayRegistry


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    for name in ("lodash-like", "kept-lib", "buggy-lib"):
        registry.add(f"{NPM}/{name}", packument(name, {"1.0.0": {}}, "1.0.0"))
    return registry


async def _forget(runtime: Runtime, name: str) -> None:
    await runtime.packages._cache.delete(f"pkg:npm:{name}:")


async def test_gone_missing_and_broken_packages_do_not_stop_the_run(
    client: httpx.AsyncClient,
    runtime: Runtime,
    registry: ReplayRegistry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert runtime.graph is not None
    history = runtime.graph.history
    first = await history.run([(Ecosystem.NPM, "lodash-like"), (Ecosystem.NPM, "kept-lib")])
    assert first.recorded == 2 and not first.failed and not first.gone
    # The registry removes lodash-like; an agent once asked about a name that never existed; and
    # one report fails with an error nobody planned for.
    registry.add(f"{NPM}/lodash-like", {"error": "Not found"}, status=404)
    await _forget(runtime, "lodash-like")
    real = runtime.reports.get_report

    async def get_report(ecosystem: Ecosystem, name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "buggy-lib":
            raise RuntimeError("an unexpected bug in one report")
        return await real(ecosystem, name, *args, **kwargs)

    monkeypatch.setattr(runtime.reports, "get_report", get_report)
    run = await history.run(
        [
            (Ecosystem.NPM, "lodahs-never"),
            (Ecosystem.NPM, "lodash-like"),
            (Ecosystem.NPM, "buggy-lib"),
            (Ecosystem.NPM, "kept-lib"),
        ]
    )
    assert run.packages == 4 and run.recorded == 1
    assert run.gone == {"npm/lodash-like": "2026-11-22"}
    assert set(run.failed) == {"npm/lodahs-never", "npm/buggy-lib"}
    assert "RuntimeError" in run.failed["npm/buggy-lib"]
    body = (await client.get("/api/history/npm/lodash-like")).json()
    assert body["count"] == 1 and body["gone_since"] == "2026-11-22"  # history kept
    assert (await client.get("/api/history/npm/kept-lib")).json()["gone_since"] is None
    assert await history._store.gone_since("npm", "lodahs-never") is None
    # The package comes back: it is recorded and no longer marked gone.
    registry.add(f"{NPM}/lodash-like", packument("lodash-like", {"1.0.0": {}}, "1.0.0"))
    await _forget(runtime, "lodash-like")
    again = await history.run([(Ecosystem.NPM, "lodash-like")])
    assert again.recorded == 1 and not again.gone
    assert (await client.get("/api/history/npm/lodash-like")).json()["gone_since"] is None
    assert isinstance(date.fromisoformat(run.gone["npm/lodash-like"]), date)
