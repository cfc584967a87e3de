"""MCP `verify_package_name` answers what `GET /api/benchmark/verify` answers, and MCP calls for
names that do not exist feed the hallucination corpus (recorded by the client hash, with status)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select

from pkgintel.runtime.container import Runtime
from pkgintel.storage.tables import usage_event
from tests.mcp.test_mcp_http import (  # noqa: F401 - fixtures used by name
    app_settings,
    connect,
    http,
    loaded,
    registry,
)


def _without_meta(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "_meta"}


async def test_unknown_names_asked_over_mcp_are_hallucinations_the_tool_confirms(
    http: httpx.AsyncClient,  # noqa: F811
    loaded: Runtime,  # noqa: F811
) -> None:
    async with connect(http) as mcp_client:
        for _ in range(3):
            result = await mcp_client.call_tool(
                "package_exists", {"ecosystem": "npm", "package": "tiny-libb-helper"}
            )
            assert not result.is_error and result.structured_content["exists"] is False  # type: ignore[index]
        got = await mcp_client.call_tool(
            "verify_package_name", {"ecosystem": "npm", "package": "tiny-libb-helper"}
        )
        assert not got.is_error, got.content
    structured = got.structured_content or {}
    assert structured["is_hallucinated"] is True and structured["hit_count"] == 3
    resp = await http.get(
        "/api/benchmark/verify", params={"ecosystem": "npm", "package": "tiny-libb-helper"}
    )
    assert _without_meta(resp.json()) == _without_meta(structured)
    assert loaded.knowledge is not None
    await loaded.knowledge.usage.flush()
    engine = loaded.packages._store.engine  # type: ignore[attr-defined]
    async with engine.connect() as conn:
        rows = (
            await conn.execute(
                select(usage_event.c.source, usage_event.c.status, usage_event.c.found).where(
                    usage_event.c.source == "mcp:package_exists"
                )
            )
        ).all()
    assert [tuple(r) for r in rows] == [("mcp:package_exists", 200, False)] * 3
