"""
`/api/tree`, `/api/licenses` and `/api/history`: on recorded registry bodies (express from the shared
npm-live capture, requests and urllib3 from pypi-live) and on small hand-written packuments in the
registry's own format for the resolution rules (ranges, cycles, conflicts, limits, outages).
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.trees.resolution import TREE_ECOSYSTEMS
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.tasks import health_snapshots
from tests.fake_registry import ReplayRegistry
from tests.shared import read_shared_bytes

NPM = "https://registry.npmjs.org"


def packument(name: str, versions: dict[str, dict[str, Any]], latest: str) -> dict[str, Any]:
    """A minimal full packument (the fields the npm adapter reads)."""
    return {
        "name": name,
        "dist-tags": {"latest": latest},
        "versions": {
            v: {"name": name, "version": v, "license": "MIT", **manifest}
            for v, manifest in versions.items()
        },
        "time": {v: f"2024-0{i % 9 + 1}-01T00:00:00.000Z" for i, v in enumerate(versions)},
    }


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # No advisories ingested and no OSV API fallback: every node's counts are "unavailable" without
    # a call (the replay registry serves every upstream from one host, whose circuit would open).
    return settings.model_copy(update={"osv_api_fallback": False})


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    registry.add(
        f"{NPM}/express",
        read_shared_bytes("registry-fixtures", "npm-live", "registry.npmjs.org_express.json.gz"),
    )
    # app → lib-a ^1.0.0 (1.4.0; 2.0.0 and 1.5.0-beta.1 must not be chosen), lib-b ~2.1.0,
    # gone ^3.0.0 (nothing published satisfies), lib-a ↔ lib-c form a cycle.
    registry.add(
        f"{NPM}/tree-app",
        packument(
            "tree-app",
            {
                "1.0.0": {
                    "dependencies": {"lib-a": "^1.0.0", "lib-b": "~2.1.0", "gone": "^3.0.0"},
                    "license": "Apache-2.0",
                }
            },
            "1.0.0",
        ),
    )
    registry.add(
        f"{NPM}/lib-a",
        packument(
            "lib-a",
            {
                "1.0.0": {},
                "1.4.0": {"dependencies": {"lib-c": "1.x"}},
                "1.5.0-beta.1": {},
                "2.0.0": {},
            },
            "2.0.0",
        ),
    )
    registry.add(
        f"{NPM}/lib-b",
        packument(
            "lib-b",
            {"2.1.0": {}, "2.1.7": {"license": "GPL-3.0-only"}, "2.2.0": {}},
            "2.2.0",
        ),
    )
    registry.add(
        f"{NPM}/lib-c",
        packument("lib-c", {"1.0.0": {"dependencies": {"lib-a": "^1.2.0"}}}, "1.0.0"),
    )
    registry.add(f"{NPM}/gone", packument("gone", {"1.0.0": {}, "2.0.0": {}}, "2.0.0"))
    return registry


def _node(body: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(n for n in body["nodes"] if n["id"] == node_id)


async def test_npm_ranges_resolve_to_published_versions_with_cycles_and_unresolved(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/tree/npm/tree-app")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    ids = {n["id"] for n in body["nodes"]}
    # newest in range, never a pre-release or the next major; the tilde stays on 2.1.x
    assert ids == {"tree-app@1.0.0", "lib-a@1.4.0", "lib-b@2.1.7", "lib-c@1.0.0"}
    assert _node(body, "lib-c@1.0.0")["depth"] == 2
    assert _node(body, "lib-a@1.4.0")["requirement"] == "^1.0.0"
    assert _node(body, "lib-c@1.0.0")["dependencies"] == ["lib-a@1.4.0"]
    assert body["cycles"] == [["lib-a@1.4.0", "lib-c@1.0.0", "lib-a@1.4.0"]]
    [gone] = body["unresolved"]
    assert gone["name"] == "gone" and gone["reason"] == "no_matching_version"
    assert gone["required_by"] == "tree-app@1.0.0"
    assert body["truncated"] is False and body["total_dependencies"] == 3
    lib_b = _node(body, "lib-b@2.1.7")
    assert lib_b["license"] == "GPL-3.0-only" and lib_b["copyleft"] == "GPL"
    assert isinstance(lib_b["health_score"], int)
    # OSV is down and nothing is ingested: counts are unknown, never zero
    assert lib_b["vulnerabilities"]["count"] is None
    assert body["summary"]["vulnerabilities_total"] is None
    names = {s["name"] for s in body["_meta"]["sources"]}
    assert {"dependency-tree", "registry.npmjs.org"} <= names
    assert all("age_s" in s for s in body["_meta"]["sources"])


async def test_depth_and_size_limits_are_reported(client: httpx.AsyncClient) -> None:
    shallow = (await client.get("/api/tree/npm/tree-app?max_depth=1")).json()
    assert {n["id"] for n in shallow["nodes"]} == {"tree-app@1.0.0", "lib-a@1.4.0", "lib-b@2.1.7"}
    assert shallow["truncated"] is True
    assert _node(shallow, "lib-a@1.4.0")["not_expanded"] == 1
    small = (await client.get("/api/tree/npm/tree-app?max_deps=1")).json()
    assert small["total_dependencies"] == 1 and small["truncated"] is True
    assert any("max_deps 1" in t for t in small["truncation"])


async def test_tree_is_cached_and_the_second_answer_makes_no_registry_call(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    first = await client.get("/api/tree/npm/lib-c")
    assert first.json()["_cache"] == "miss"
    # no advisory data here: kept 5 minutes rather than 24 hours, so counts follow an ingestion
    assert first.json()["vulnerabilities_known"] is False
    assert "max-age=300" in first.headers["cache-control"]
    before = len(registry.hits)
    second = await client.get("/api/tree/npm/lib-c")
    assert second.json()["_cache"] == "hit" and len(registry.hits) == before
    assert second.json()["nodes"] == first.json()["nodes"]


async def test_express_from_the_recorded_registry(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/tree/npm/express")).json()
    root = _node(body, body["root"])
    assert root["name"] == "express" and root["depth"] == 0 and root["license"] == "MIT"
    declared = {u["name"] for u in body["unresolved"]} | {
        n["name"] for n in body["nodes"] if n["depth"] == 1
    }
    assert {"body-parser", "cookie", "debug", "send"} <= declared
    # the replay registry has no bodies for most: named as not found, never invented
    reasons = {u["name"]: u["reason"] for u in body["unresolved"]}
    assert reasons["body-parser"] == "not_found"
    # the recorded etag packument is an old capture without a release in ^1.8.1: unresolved
    assert reasons["etag"] == "no_matching_version"
    assert not any(n["name"] == "etag" for n in body["nodes"])
    assert body["complete"] is True


async def test_pypi_markers_and_extras_follow_pep_508(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/tree/pypi/requests")).json()
    assert body["environment"]["python_version"]
    urllib3 = next(n for n in body["nodes"] if n["name"] == "urllib3")
    assert urllib3["depth"] == 1 and urllib3["requirement"]
    skipped = {s["name"]: s["why"] for s in body["skipped"]}
    assert "only with the extra [socks]" in skipped["PySocks"]
    with_socks = (await client.get("/api/tree/pypi/requests?extras=socks")).json()
    assert "PySocks" not in {s["name"] for s in with_socks["skipped"]}


async def test_one_dependency_down_is_named_unavailable_and_not_cached(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.add(f"{NPM}/lib-b", b"upstream failure", status=503)
    body = (await client.get("/api/tree/npm/tree-app")).json()
    down = next(u for u in body["unresolved"] if u["name"] == "lib-b")
    assert down["reason"] == "unavailable" and down["detail"]
    assert body["complete"] is False
    again = await client.get("/api/tree/npm/tree-app")
    assert again.json()["_cache"] == "miss"
    lic = (await client.get("/api/licenses/npm/tree-app")).json()
    assert lic["compatibility"]["verdict"] == "unknown"
    assert "could not be resolved" in lic["compatibility"]["reason"]


async def test_root_registry_down_is_a_503_problem(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    for path in ("/api/tree/npm/tree-app", "/api/licenses/npm/tree-app"):
        resp = await client.get(path)
        assert resp.status_code == 503, resp.text
        assert resp.headers["content-type"].startswith("application/problem+json")


async def test_ecosystem_without_tree_semantics_is_422(client: httpx.AsyncClient) -> None:
    # any ecosystem whose dependency semantics are not implemented yet (none once all are)
    for eco in sorted(e.value for e in Ecosystem if e not in TREE_ECOSYSTEMS)[:1]:
        resp = await client.get(f"/api/tree/{eco}/some-package")
        assert resp.status_code == 422
        assert resp.json()["detail"]  # the reason (semantics not implemented, or Swift's why)
    assert (await client.get("/api/tree/npm/tree-app?max_depth=0")).status_code == 422


async def test_licences_flag_gpl_and_judge_against_root_and_target(
    client: httpx.AsyncClient,
) -> None:
    body = (await client.get("/api/licenses/npm/tree-app?target=MIT")).json()
    assert body["license"] == "Apache-2.0"
    assert body["flagged"] == [
        {"id": "lib-b@2.1.7", "license": "GPL-3.0-only", "family": "GPL", "depth": 1}
    ]
    assert body["compatibility"]["verdict"] == "incompatible"
    assert "GPL-3.0-only" in body["compatibility"]["reason"]
    assert body["target"] == "MIT"
    assert body["target_compatibility"]["verdict"] == "incompatible"
    assert body["by_license"]["MIT"] == 2
    gpl = (await client.get("/api/licenses/npm/tree-app?target=GPL-3.0-or-later")).json()
    assert gpl["target_compatibility"]["verdict"] == "compatible"


async def test_history_records_the_report_health_and_computes_a_trend(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    empty = (await client.get("/api/history/npm/lib-c")).json()
    assert empty["snapshots"] == [] and empty["trend"] is None
    assert empty["_meta"]["sources"][0]["status"] == "unavailable"
    assert runtime.graph is not None
    snap = await runtime.graph.history.record(Ecosystem.NPM, "lib-c")
    report = await runtime.reports.get_report(Ecosystem.NPM, "lib-c")
    assert snap.score == report.health.score and snap.latest_version == "1.0.0"
    body = (await client.get("/api/history/npm/lib-c?days=30")).json()
    [one] = body["snapshots"]
    assert one["score"] == report.health.score
    assert one["vulnerabilities"]["status"] == "unavailable"
    assert one["vulnerabilities"]["total"] is None  # unknown, never zero
    assert body["trend"] is None and body["count"] == 1
    assert (await client.get("/api/history/npm/lib-c?days=366")).status_code == 422


async def test_cron_task_snapshots_asked_and_tracked_packages(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    assert (await client.get("/api/check/npm/lib-a")).status_code == 200
    assert runtime.knowledge is not None
    await runtime.knowledge.usage.flush()
    assert runtime.ops is not None
    seen: list[str] = []

    class Ctx:
        async def log(self, line: str) -> None:
            seen.append(line)

        async def progress(self, step: str, done: int, total: int) -> None:
            return None

    deps = _task_deps(runtime)
    out = await health_snapshots(deps, Ctx())  # type: ignore[arg-type]
    assert out["recorded"] >= 1
    body = (await client.get("/api/history/npm/lib-a")).json()
    assert body["count"] == 1 and body["snapshots"][0]["latest_version"] == "2.0.0"


def _task_deps(runtime: Runtime) -> Any:
    from dataclasses import dataclass

    @dataclass
    class Deps:
        history: Any

    assert runtime.graph is not None
    return Deps(runtime.graph.history)


async def test_pypi_licences_and_history_on_recorded_bodies(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    lic = (await client.get("/api/licenses/pypi/requests?target=GPL-3.0-only")).json()
    assert lic["license"] == "Apache-2.0"
    urllib3 = next(p for p in lic["packages"] if p["name"] == "urllib3")
    assert urllib3["license"] == "MIT" and urllib3["vs_root"]["verdict"] == "compatible"
    # requests' other dependencies are not recorded here: the tree is incomplete, so no "compatible"
    assert lic["compatibility"]["verdict"] == "unknown"
    assert lic["target_compatibility"]["license"] == "GPL-3.0-only"
    assert {s["name"] for s in lic["_meta"]["sources"]} >= {"dependency-tree", "pypi.org"}
    assert runtime.graph is not None
    await runtime.graph.history.record(Ecosystem.PYPI, "Requests")
    body = (await client.get("/api/history/pypi/requests")).json()
    assert body["package"] == "requests" and body["count"] == 1
    assert body["snapshots"][0]["latest_version"] == "2.34.2"
    assert body["_meta"]["sources"][0]["status"] == "ok"
    assert body["_meta"]["sources"][0]["age_s"] is not None


async def test_snapshot_job_with_the_registry_down_records_nothing_and_says_why(
    client: httpx.AsyncClient, runtime: Runtime, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    assert runtime.graph is not None
    run = await runtime.graph.history.run([(Ecosystem.NPM, "lib-a"), (Ecosystem.PYPI, "requests")])
    assert run.recorded == 0 and set(run.failed) == {"npm/lib-a", "pypi/requests"}
    assert all(why for why in run.failed.values())
    body = (await client.get("/api/history/npm/lib-a")).json()
    assert body["snapshots"] == [] and body["trend"] is None


def pypi_project(name: str, versions: dict[str, list[str]], latest: str) -> dict[str, Any]:
    """A minimal PyPI JSON body (`/pypi/<name>/json`) whose latest release requires `versions[latest]`."""
    files = [{"upload_time_iso_8601": "2025-01-01T00:00:00.000000Z", "yanked": False}]
    return {
        "info": {
            "name": name,
            "version": latest,
            "license_expression": "MIT",
            "requires_dist": versions[latest],
            "yanked": False,
        },
        "releases": dict.fromkeys(versions, files),
        "urls": [],
        "vulnerabilities": [],
    }


async def test_pypi_keeps_one_version_per_name_and_reports_the_clash(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    pypi = "https://pypi.org/pypi"
    registry.add(
        f"{pypi}/clash-app/json", pypi_project("clash-app", {"1.0": ["left", "right"]}, "1.0")
    )
    registry.add(f"{pypi}/left/json", pypi_project("left", {"1.0": ["shared>=2"]}, "1.0"))
    registry.add(f"{pypi}/right/json", pypi_project("right", {"1.0": ["shared<2"]}, "1.0"))
    registry.add(f"{pypi}/shared/json", pypi_project("shared", {"1.5": [], "2.1": []}, "2.1"))
    body = (await client.get("/api/tree/pypi/clash-app")).json()
    shared = [n["id"] for n in body["nodes"] if n["name"] == "shared"]
    assert shared == ["shared@2.1"]  # one version per name, as pip installs
    [clash] = body["conflicts"]
    assert clash["package"] == "shared" and clash["requirement"] == "<2"
    assert clash["kept"] == "shared@2.1" and clash["required_by"] == "right@1.0"


async def test_npm_specs_that_name_no_registry_version_are_not_looked_up(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.add(
        f"{NPM}/alias-app",
        packument(
            "alias-app",
            {"1.0.0": {"dependencies": {"x": "npm:lib-a@^1.0.0", "y": "github:a/b", "lib-c": "*"}}},
            "1.0.0",
        ),
    )
    body = (await client.get("/api/tree/npm/alias-app")).json()
    reasons = {u["name"]: u["reason"] for u in body["unresolved"]}
    assert reasons == {"x": "unevaluable", "y": "unevaluable"}
    assert not any(h.rstrip("/").endswith(("/npm/x", "/npm/y")) for h in registry.hits)
    assert any(n["id"] == "lib-c@1.0.0" for n in body["nodes"])
