"""
Issue 28, item 8: every composite answer asks the registry once per package and per version
document, however many rules, candidates or nodes need it — `/api/compat` (detection, loading,
suggestions), `/api/ai/stack`, `/api/tree`, `/api/compare`, `/api/scan`, `/api/check_bulk` and the
MCP tool mirroring compat.

The replay registry counts every request by path (`ReplayRegistry.hits`); each test asserts the
exact count per URL. The PyPI bodies are small hand-written ones in PyPI's JSON API shape, with the
per-version documents PyPI serves (`/pypi/<name>/<version>/json`); the npm ones are packuments.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.mcp.tools import check_compatibility
from pkgintel.runtime.container import Runtime
from tests.fake_registry import ReplayRegistry
from tests.osv_records import record

PYPI = "https://pypi.org/pypi"
NPM = "https://registry.npmjs.org"


@pytest.fixture
def osv_fallback() -> bool:
    """Off unless a test parametrizes it: the counts are then the registries' alone (and every
    upstream shares the replay registry's host, whose circuit the fallback's failures would open)."""
    return False


@pytest.fixture
def settings(settings: Settings, osv_fallback: bool) -> Settings:
    return settings.model_copy(update={"osv_api_fallback": osv_fallback})


def pypi_project(registry: ReplayRegistry, name: str, versions: dict[str, list[str]]) -> None:
    """`/pypi/<name>/json` (the last of `versions` is the latest) and one release document per
    version, each stating its own `requires_dist`."""
    latest = list(versions)[-1]
    files = [
        {
            "filename": f"{name}-{v}-py3-none-any.whl",
            "url": f"https://files.pythonhosted.org/packages/{name}-{v}-py3-none-any.whl",
            "requires_python": ">=3.8",
            "upload_time_iso_8601": f"2025-0{i + 1}-01T00:00:00.000000Z",
            "yanked": False,
        }
        for i, v in enumerate(versions)
    ]
    info = {"name": name, "summary": f"{name} for tests", "license_expression": "MIT"}
    registry.add(
        f"{PYPI}/{name}/json",
        {
            "info": {
                **info,
                "version": latest,
                "requires_python": ">=3.8",
                "requires_dist": versions[latest],
            },
            "releases": {v: [files[i]] for i, v in enumerate(versions)},
            "urls": [],
            "vulnerabilities": [],
        },
    )
    for i, (version, requires) in enumerate(versions.items()):
        registry.add(
            f"{PYPI}/{name}/{version}/json",
            {
                "info": {
                    **info,
                    "version": version,
                    "requires_python": ">=3.8",
                    "requires_dist": requires,
                },
                "urls": [files[i]],
                "vulnerabilities": [],
            },
        )


def packument(name: str, versions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A small full packument; the last of `versions` is the latest."""
    return {
        "name": name,
        "dist-tags": {"latest": list(versions)[-1]},
        "versions": {
            v: {"name": name, "version": v, "license": "MIT", **manifest}
            for v, manifest in versions.items()
        },
        "time": {v: f"2025-0{i + 1}-01T00:00:00.000Z" for i, v in enumerate(versions)},
    }


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    # web 1.x needs orm < 2, web 2.x needs orm >= 2: web@1.0 with orm@2.0 conflicts, and both
    # "move web up" and "move orm down" resolve it, so the resolver reads many versions of each.
    pypi_project(
        registry,
        "web",
        {"1.0": ["orm<2"], "1.1": ["orm<2"], "1.2": ["orm<2", "tool>=1"], "2.0": ["orm>=2"]},
    )
    pypi_project(registry, "orm", {"1.0": [], "1.5": [], "2.0": [], "2.1": []})
    pypi_project(registry, "tool", {"1.0": [], "1.1": []})
    # The same shape on npm, as peer dependencies.
    registry.add(
        f"{NPM}/ui-kit",
        packument(
            "ui-kit",
            {
                "1.0.0": {"peerDependencies": {"ui-core": "^1.0.0"}},
                "1.1.0": {"peerDependencies": {"ui-core": "^1.0.0"}},
                "2.0.0": {"peerDependencies": {"ui-core": "^2.0.0"}},
            },
        ),
    )
    registry.add(
        f"{NPM}/ui-core",
        packument("ui-core", {"1.0.0": {}, "1.2.0": {}, "2.0.0": {}, "2.1.0": {}}),
    )
    registry.add(
        f"{NPM}/ui-app",
        packument(
            "ui-app",
            {"1.0.0": {"dependencies": {"ui-kit": "^1.0.0", "ui-core": "^1.0.0"}}, "2.0.0": {}},
        ),
    )
    return registry


def asked(registry: ReplayRegistry) -> Counter[str]:
    """Requests per path since the last call, then forgotten."""
    counts = Counter(registry.hits)
    registry.hits.clear()
    return counts


def pypi_urls(versions: dict[str, tuple[str, ...]]) -> Counter[str]:
    """Once each: the project documents, the pypistats counts and the named release documents."""
    out: Counter[str] = Counter()
    for name, wanted in versions.items():
        out[f"/pypi/pypi/{name}/json"] = 1
        out[f"/pypistats/api/packages/{name}/recent"] = 1
        out.update(f"/pypi/pypi/{name}/{v}/json" for v in wanted)
    return out


PYPI_CONFLICT = {"web": "1.0", "orm": "2.0"}
PYPI_READ = pypi_urls({"web": ("1.0", "1.1", "1.2", "2.0"), "orm": ("1.0", "1.5", "2.0", "2.1")})
"""The documents a PyPI compat check of `PYPI_CONFLICT` with suggestions reads, once each."""


async def test_compat_pypi_with_suggestions_asks_each_document_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """On main: `web`'s project document 5 times (detection, loading, the suggestions' listing and
    each candidate version's snapshot), pypistats as often."""
    registry.hits.clear()
    resp = await client.post("/api/compat", json={"packages": PYPI_CONFLICT})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["ecosystem"] == "pypi" and body["ecosystem_detected"] is True
    assert body["compatible"] is False and body["suggested_versions"], body
    counts = asked(registry)
    # Detection asked npm too: once per package, 404.
    assert counts == PYPI_READ + Counter({"/npm/web": 1, "/npm/orm": 1})


async def test_compat_mcp_tool_asks_each_document_once(
    runtime: Runtime, registry: ReplayRegistry
) -> None:
    registry.hits.clear()
    tool = await check_compatibility(runtime, packages=PYPI_CONFLICT, ecosystem=Ecosystem.PYPI)
    assert tool["compatible"] is False and tool["suggested_versions"]
    assert asked(registry) == PYPI_READ


async def test_compat_npm_detected_asks_each_packument_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.hits.clear()
    resp = await client.post(
        "/api/compat", json={"packages": {"ui-kit": "1.0.0", "ui-core": "2.0.0"}}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["ecosystem"] == "npm" and body["compatible"] is False
    assert body["suggested_versions"], body
    # Detection asked PyPI too: each name's project and release document and pypistats, 404.
    assert asked(registry) == Counter(
        {
            "/npm/ui-kit": 1,
            "/npm/ui-core": 1,
            "/pypi/pypi/ui-kit/json": 1,
            "/pypi/pypi/ui-kit/1.0.0/json": 1,
            "/pypi/pypi/ui-core/json": 1,
            "/pypi/pypi/ui-core/2.0.0/json": 1,
            "/pypistats/api/packages/ui-kit/recent": 1,
            "/pypistats/api/packages/ui-core/recent": 1,
        }
    )


async def test_ai_stack_asks_each_document_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.hits.clear()
    resp = await client.post(
        "/api/ai/stack",
        json={
            "packages": [
                {"ecosystem": "pypi", "package": name, "version": version}
                for name, version in PYPI_CONFLICT.items()
            ]
            + [
                {"ecosystem": "npm", "package": "ui-kit", "version": "1.0.0"},
                {"ecosystem": "npm", "package": "ui-core", "version": "2.0.0"},
            ]
        },
    )
    assert resp.status_code == 200, resp.text
    compat = {c["ecosystem"]: c for c in resp.json()["compatibility"]}
    assert compat["pypi"]["conflicts"] == 1 and compat["npm"]["conflicts"] == 1
    assert any(a["action"] == "upgrade" for a in resp.json()["action_items"])
    assert asked(registry) == PYPI_READ + Counter({"/npm/ui-kit": 1, "/npm/ui-core": 1})


async def test_tree_pypi_asks_each_document_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """web 1.2 → orm<2 (1.5, not the latest) and tool>=1 (1.1, the latest). On main: orm's project
    document and pypistats twice (its release list, then the report of 1.5)."""
    registry.hits.clear()
    resp = await client.get("/api/tree/pypi/web", params={"version": "1.2"})
    assert resp.status_code == 200, resp.text
    assert {n["id"] for n in resp.json()["nodes"]} == {"web@1.2", "orm@1.5", "tool@1.1"}
    assert asked(registry) == pypi_urls({"web": ("1.2",), "orm": ("1.5",), "tool": ()})


async def test_tree_npm_asks_each_packument_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """ui-app 1.0.0 → ui-kit ^1 (1.1.0) and ui-core ^1 (1.2.0), neither the latest. On main: each
    packument twice (the release list, then the report of the chosen version)."""
    registry.hits.clear()
    resp = await client.get("/api/tree/npm/ui-app", params={"version": "1.0.0"})
    assert resp.status_code == 200, resp.text
    assert {n["id"] for n in resp.json()["nodes"]} == {
        "ui-app@1.0.0",
        "ui-kit@1.1.0",
        "ui-core@1.2.0",
    }
    counts = asked(registry)
    assert counts == Counter(
        {
            "/npm/ui-app": 1,
            "/npm/ui-kit": 1,
            "/npm/ui-core": 1,
            "/npm-downloads/downloads/point/last-week/ui-app": 1,
            "/npm-downloads/downloads/point/last-week/ui-kit": 1,
            "/npm-downloads/downloads/point/last-week/ui-core": 1,
        }
    )


async def test_compare_asks_each_document_once(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.hits.clear()
    resp = await client.get("/api/compare/pypi/web,orm,tool")
    assert resp.status_code == 200, resp.text
    assert asked(registry) == pypi_urls({"web": (), "orm": (), "tool": ()})


async def test_scan_and_check_bulk_ask_no_registry(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    """With advisories loaded or the OSV API fallback off, both answer from the database only:
    no upstream request at all."""
    registry.hits.clear()
    scan = await client.post("/api/scan", json={"ecosystem": "pypi", "packages": PYPI_CONFLICT})
    assert scan.status_code == 200, scan.text
    bulk = await client.post(
        "/api/check_bulk",
        json={
            "items": [
                {"ecosystem": "pypi", "package": n, "version": v} for n, v in PYPI_CONFLICT.items()
            ]
        },
    )
    assert bulk.status_code == 200, bulk.text
    assert asked(registry) == Counter()


@pytest.mark.parametrize("osv_fallback", [True])
async def test_scan_asks_the_osv_api_once_per_package(
    client: httpx.AsyncClient, registry: ReplayRegistry, osv_fallback: bool
) -> None:
    """No npm advisories are loaded, so the scan asks the OSV API on demand: once for left-pad,
    although the lockfile holds two versions of it. On main: two batch queries for left-pad and
    each of its advisories fetched twice."""
    registry.osv_fail_with = None
    registry.osv_records += [
        record("GHSA-aaaa", "npm", "left-pad", events=[{"introduced": "0"}, {"fixed": "2.0.0"}]),
        record("GHSA-bbbb", "npm", "left-pad", events=[{"introduced": "0"}, {"fixed": "2.0.0"}]),
        record("GHSA-cccc", "npm", "wrap", events=[{"introduced": "0"}, {"fixed": "2.0.0"}]),
    ]
    lock = {
        "name": "app",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "packages": {
            "": {
                "name": "app",
                "version": "1.0.0",
                "dependencies": {"left-pad": "^1", "wrap": "1"},
            },
            "node_modules/left-pad": {"version": "1.0.0"},
            "node_modules/wrap": {"version": "1.0.0"},
            "node_modules/wrap/node_modules/left-pad": {"version": "1.1.0"},
        },
    }
    registry.hits.clear()
    resp = await client.post(
        "/api/scan", json={"lockfile": json.dumps(lock), "filename": "package-lock.json"}
    )
    assert resp.status_code == 200, resp.text
    found = {
        (p["name"], p["version"]): [v["id"] for v in p["vulnerabilities"]]
        for p in resp.json()["packages"]
    }
    assert (
        found[("left-pad", "1.0.0")] == found[("left-pad", "1.1.0")] == ["GHSA-aaaa", "GHSA-bbbb"]
    )
    assert asked(registry) == Counter(
        {
            "/osv-api/v1/querybatch": 2,  # left-pad, wrap: one query each
            "/osv-api/v1/vulns/GHSA-aaaa": 1,
            "/osv-api/v1/vulns/GHSA-bbbb": 1,
            "/osv-api/v1/vulns/GHSA-cccc": 1,
        }
    )
