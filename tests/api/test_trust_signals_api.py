"""
`GET /api/trust/...` (the HTTP twin of the MCP tool `get_trust_signals`): each part is exactly its own
endpoint's answer, an outage of one upstream leaves only that part unavailable, and a domain error is
the same problem its endpoints give.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from pkgintel.mcp import render
from tests.fake_registry import ReplayRegistry
from tests.shared import requires_shared
from tests.supply_chain_bodies import SUPPLY_CHAIN_RECORDINGS

pytestmark = requires_shared

VOLATILE = ("_response_ms", "_cache")


@pytest.fixture(autouse=True)
def _bodies(registry: ReplayRegistry) -> None:
    for url, body in SUPPLY_CHAIN_RECORDINGS:
        registry.add(url, body)


def _part(body: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in body.items() if k not in VOLATILE}
    meta = dict(out.get("_meta") or {})
    meta["sources"] = [
        {k: v for k, v in s.items() if k not in ("age_s", "stale")} for s in meta.get("sources", [])
    ]
    return {**out, "_meta": meta}


@pytest.mark.parametrize(("ecosystem", "package"), [("npm", "sigstore"), ("pypi", "sigstore")])
async def test_each_part_is_its_own_endpoints_answer(
    client: httpx.AsyncClient, ecosystem: str, package: str
) -> None:
    resp = await client.get(f"/api/trust/{ecosystem}/{package}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["ecosystem"], body["package"]) == (ecosystem, package)
    for part in ("maintainers", "scorecard", "quality", "provenance"):
        alone = (await client.get(f"/api/{part}/{ecosystem}/{package}")).json()
        assert _part(body[part]) == _part(alone), part
    names = {(s["name"], s["kind"]) for s in body["_meta"]["sources"]}
    for part in ("maintainers", "scorecard", "quality", "provenance"):
        assert {(s["name"], s["kind"]) for s in body[part]["_meta"]["sources"]} <= names
    assert all("age_s" in s for s in body["_meta"]["sources"])
    if ecosystem == "pypi":  # its declared repository is the recorded ossf/scorecard result
        assert body["scorecard"]["available"] is True
    text = render.trust(body)
    assert f"{ecosystem}/{package}" in text and "scorecard" in text


async def test_scorecard_down_leaves_the_other_parts_standing(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_prefixes = {"/scorecard": 503}
    resp = await client.get("/api/trust/pypi/sigstore")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["scorecard"]["available"] is False and body["scorecard"]["reason"]
    assert body["provenance"]["available"] is True and body["maintainers"]["count"] is not None
    assert "max-age=300" in resp.headers["cache-control"]  # only as fresh as its stalest part


async def test_unknown_package_is_the_404_problem_of_its_endpoints(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/trust/npm/no-such-package-zz")
    assert resp.status_code == 404
    assert resp.headers["content-type"].startswith("application/problem+json")
    alone = await client.get("/api/maintainers/npm/no-such-package-zz")
    assert resp.json()["detail"] == alone.json()["detail"]


async def test_registry_down_with_nothing_stored_is_503(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    resp = await client.get("/api/trust/npm/sigstore")
    assert resp.status_code == 503
    assert int(resp.headers["retry-after"]) > 0
