"""The MCP tools accept Hackage, CRAN and Conda and answer what the HTTP endpoints answer."""

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
    assert {"hackage", "cran", "conda"} <= set(ECOSYSTEM_IDS)


@requires_shared
@pytest.mark.parametrize(
    ("ecosystem", "package", "path"),
    [
        ("hackage", "aeson", "hackage/aeson"),
        ("cran", "readxl", "cran/readxl"),
        ("conda", "pytest", "conda/pytest"),
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
