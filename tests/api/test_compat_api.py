"""Stack compatibility on recorded registry bodies (react-dom and next from the shared npm-live
mirror capture, react from tests/recordings): declared peer conflicts, compatible stacks, runtimes,
suggestions from the resolver, and input errors."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest

from tests.fake_registry import ReplayRegistry
from tests.shared import read_shared_bytes

REACT = Path(__file__).resolve().parents[1] / "recordings" / "npm" / "react.json.gz"


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    registry.add("https://registry.npmjs.org/react", gzip.decompress(REACT.read_bytes()))
    for name in ("react-dom", "next"):
        registry.add(
            f"https://registry.npmjs.org/{name}",
            read_shared_bytes(
                "registry-fixtures", "npm-live", f"registry.npmjs.org_{name}.json.gz"
            ),
        )
    return registry


async def test_react_18_with_react_dom_17_is_incompatible(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/compat", params={"stack": "react@18.2.0,react-dom@17.0.2"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["compatible"] is False
    assert body["ecosystem"] == "npm" and body["ecosystem_detected"] is True
    [conflict] = body["conflicts"]
    assert conflict["package"] == "react-dom" and conflict["version"] == "17.0.2"
    assert conflict["requires"] == "react" and conflict["constraint"] == "17.0.2"
    assert conflict["found_version"] == "18.2.0" and conflict["kind"] == "peer"
    assert conflict["origin"] == "declared"
    assert "peerDependencies" in conflict["source"]
    suggestions = body["suggested_versions"]
    assert {
        "keep": "react",
        "versions": {"react": "18.2.0", "react-dom": "18.2.0"},
        "changes": {"react-dom": "18.2.0"},
    } in suggestions
    assert any(s["keep"] == "react-dom" and s["versions"]["react"] == "17.0.2" for s in suggestions)


async def test_next_14_with_react_18_is_compatible(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/compat",
        json={
            "packages": {
                "next": "14.2.0",
                "react": "18.2.0",
                "react-dom": "18.2.0",
                "node": "18.17.0",
            }
        },
    )
    body = resp.json()
    assert resp.status_code == 200, body
    assert body["compatible"] is True
    assert body["conflicts"] == [] and body["suggested_versions"] == []
    assert body["runtimes"] == {"node": "18.17.0"}
    assert {s["package"] for s in body["_meta"]["sources"]} == {"next", "react", "react-dom"}


async def test_node_runtime_is_checked_against_engines(client: httpx.AsyncClient) -> None:
    resp = await client.get(
        "/api/compat", params={"packages": "next@14.2.0,react@18.2.0,react-dom@18.2.0,node@16.20.0"}
    )
    body = resp.json()
    assert body["compatible"] is False
    [engine] = body["conflicts"]
    assert engine["kind"] == "engine" and engine["requires"] == "node"
    assert engine["constraint"] == ">=18.17.0" and engine["found_version"] == "16.20.0"


async def test_next_14_with_react_17_names_both_peers(client: httpx.AsyncClient) -> None:
    body = (
        await client.post(
            "/api/compat",
            json={
                "packages": {"next": "14.2.0", "react": "17.0.2", "react-dom": "17.0.2"},
                "ecosystem": "npm",
            },
        )
    ).json()
    assert body["compatible"] is False
    assert {(c["package"], c["requires"], c["constraint"]) for c in body["conflicts"]} == {
        ("next", "react", "^18.2.0"),
        ("next", "react-dom", "^18.2.0"),
    }
    assert body["ecosystem_detected"] is False and body["detection"] == "given"
    for s in body["suggested_versions"]:
        assert s["versions"]["react"].startswith("18.") or s["versions"]["next"] != "14.2.0"


async def test_unpublished_version_gives_null_never_true(client: httpx.AsyncClient) -> None:
    body = (
        await client.get(
            "/api/compat", params={"stack": "react@18.2.0,react-dom@99.0.0", "ecosystem": "npm"}
        )
    ).json()
    assert body["compatible"] is None
    assert body["unavailable"][0]["reason"] == "version_not_found"


async def test_upstream_down_gives_null(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    body = (
        await client.get(
            "/api/compat", params={"stack": "react@18.2.0,react-dom@18.2.0", "ecosystem": "npm"}
        )
    ).json()
    assert body["compatible"] is None
    assert {u["reason"] for u in body["unavailable"]} == {"upstream_unavailable"}


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"stack": "react"},
        {"stack": "react@"},
        {"stack": "node@18"},
        {"stack": "react@^18", "ecosystem": "npm"},
    ],
)
async def test_bad_stacks_are_422(client: httpx.AsyncClient, params: dict) -> None:
    assert (await client.get("/api/compat", params=params)).status_code == 422


async def test_ai_stack_includes_compatibility_conflicts(client: httpx.AsyncClient) -> None:
    """Issue 17: the stack audit turns the peer conflict into an upgrade to the resolver's fix."""
    body = {
        "packages": [
            {"ecosystem": "npm", "package": "react", "version": "18.2.0"},
            {"ecosystem": "npm", "package": "react-dom", "version": "17.0.2"},
        ]
    }
    resp = await client.post("/api/ai/stack", json=body)
    assert resp.status_code == 200, resp.text
    out = resp.json()
    [entry] = out["compatibility"]
    assert {k: v for k, v in entry.items() if k != "details"} == {
        "ecosystem": "npm",
        "compatible": False,
        "conflicts": 1,
        "unavailable": [],
    }
    [detail] = entry["details"]
    assert (detail["package"], detail["requires"], detail["origin"]) == (
        "react-dom",
        "react",
        "declared",
    )
    assert detail["fix"] is None
    item = next(
        a for a in out["action_items"] if a["package"] == "react-dom" and a["action"] == "upgrade"
    )
    assert item["to"] == "18.2.0" and "compatibility" in item["detail"]
    assert item["origin"] == "declared" and "peerDependencies" in item["source"]
    assert out["_meta"]["database_only"] is False
