"""The MCP twins of `/api/typosquat` and `/api/check_bulk` flag a registered slopsquat with the same
evidence object as the HTTP doors (one answer function behind both)."""

from __future__ import annotations

import httpx

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.slopsquats import hallucinated
from pkgintel.runtime.container import Runtime
from tests.mcp.test_mcp_http import (  # noqa: F401 - fixtures used by name
    app_settings,
    connect,
    http,
    loaded,
    registry,
)


async def test_mcp_typosquat_and_bulk_flag_a_registered_slopsquat(
    http: httpx.AsyncClient,  # noqa: F811
    loaded: Runtime,  # noqa: F811
) -> None:
    listed = hallucinated(Ecosystem.NPM, "react-codeshift")
    assert listed is not None
    await loaded.names.ingest(
        Ecosystem.NPM,
        [
            NameEntry(Ecosystem.NPM, "jscodeshift", "jscodeshift", monthly_downloads=30_000_000),
            NameEntry(Ecosystem.NPM, "react-codeshift", "react-codeshift"),
        ],
        source="names",
    )
    async with connect(http) as mcp_client:
        one = await mcp_client.call_tool(
            "check_typosquat", {"ecosystem": "npm", "package": "react-codeshift"}
        )
        bulk = await mcp_client.call_tool(
            "check_bulk", {"items": [{"ecosystem": "npm", "package": "react-codeshift"}]}
        )
    assert not one.is_error and not bulk.is_error, (one.content, bulk.content)
    body = one.structured_content or {}
    assert body["is_suspected"] is True
    assert body["slopsquat"]["source"] == listed.source
    assert body["slopsquat"]["registered_on"] == "unknown"
    twin = (await http.get("/api/typosquat/npm/react-codeshift")).json()
    assert twin["slopsquat"] == body["slopsquat"]
    (row,) = (bulk.structured_content or {})["results"]
    assert row["status"] == "typosquat_suspect" and row["slopsquat"] == body["slopsquat"]
