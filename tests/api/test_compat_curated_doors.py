"""
One curated breakage through every door: `GET`/`POST /api/compat`, the MCP tool
`check_compatibility` and `POST /api/ai/stack` name the same conflict, its source and its fix. Cargo
stacks are checked against the curated matrix alone, so no registry body is needed.
"""

from __future__ import annotations

import httpx

from pkgintel.domain.packages import Ecosystem
from pkgintel.mcp.render import compat as render_compat
from pkgintel.mcp.tools import check_compatibility
from pkgintel.runtime.container import Runtime

STACK = {"axum": "0.6.20", "hyper": "1.0.0"}


def essentials(conflicts: list[dict]) -> list[tuple[str, str, str, str, str]]:
    return [(c["package"], c["requires"], c["origin"], c["source"], c["fix"]) for c in conflicts]


async def test_every_door_names_the_curated_breakage_with_its_fix(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    get = await client.get(
        "/api/compat", params={"stack": "axum@0.6.20,hyper@1.0.0", "ecosystem": "cargo"}
    )
    post = await client.post("/api/compat", json={"ecosystem": "cargo", "packages": STACK})
    assert get.status_code == post.status_code == 200, get.text
    bodies = [get.json(), post.json()]
    # The MCP tool's own function (its transport is covered by tests/mcp).
    bodies.append(await check_compatibility(runtime, packages=STACK, ecosystem=Ecosystem.CARGO))
    expected = essentials(bodies[0]["conflicts"])
    assert expected and expected[0][:3] == ("axum", "hyper", "curated")
    assert expected[0][3].startswith("https://") and "axum to 0.7" in expected[0][4]
    for body in bodies:
        assert body["compatible"] is False
        assert essentials(body["conflicts"]) == expected
    text = render_compat(bodies[2])
    assert "(curated)" in text and expected[0][4] in text and expected[0][3] in text

    stack = await client.post(
        "/api/ai/stack",
        json={
            "packages": [
                {"ecosystem": "cargo", "package": n, "version": v} for n, v in STACK.items()
            ]
        },
    )
    assert stack.status_code == 200, stack.text
    out = stack.json()
    [entry] = out["compatibility"]
    assert entry["ecosystem"] == "cargo" and entry["compatible"] is False
    assert entry["conflicts"] == 1 and entry["checked"] == "curated breakages only"
    [detail] = entry["details"]
    assert (detail["package"], detail["requires"], detail["origin"]) == ("axum", "hyper", "curated")
    assert detail["source"] == expected[0][3] and detail["fix"] == expected[0][4]
    # Nothing is said "unknown" for each package of a curated-only ecosystem.
    assert not any("compatibility unknown" in a["detail"] for a in out["action_items"])


async def test_a_curated_only_stack_without_a_breakage_is_unknown_not_compatible(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get(
        "/api/compat", params={"stack": "axum@0.7.4,hyper@1.1.0", "ecosystem": "cargo"}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["compatible"] is None and body["conflicts"] == []
    assert [u["reason"] for u in body["unavailable"]] == ["unsupported", "unsupported"]
