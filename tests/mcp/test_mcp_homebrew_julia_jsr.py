"""The MCP tools accept Homebrew, Julia and JSR and answer what the HTTP endpoints answer."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.mcp.args import ECOSYSTEM_IDS
from tests.mcp.test_mcp_http import (  # noqa: F401 - fixtures used by name
    app_settings,
    connect,
    http,
    loaded,
    registry,
    stable,
)
from tests.shared import requires_shared


def test_the_ecosystem_enum_names_the_three() -> None:
    assert {"homebrew", "julia", "jsr"} <= set(ECOSYSTEM_IDS)


@requires_shared
@pytest.mark.parametrize(
    ("ecosystem", "package", "path"),
    [
        ("homebrew", "abook", "homebrew/abook"),
        ("julia", "Inequality", "julia/Inequality"),
        ("jsr", "@std/path", "jsr/%40std%2Fpath"),
    ],
)
async def test_check_package_matches_the_http_report(
    http: httpx.AsyncClient,  # noqa: F811
    ecosystem: str,
    package: str,
    path: str,
) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(
            "check_package", {"ecosystem": ecosystem, "package": package}
        )
        assert not result.is_error, result.content
    resp = await http.get(f"/api/check/{path}")
    assert resp.status_code == 200, resp.text
    assert stable(result.structured_content or {}) == stable(resp.json())
