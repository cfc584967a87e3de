"""
The redesign of issue 29 changed no public interface: every HTTP operation, parameter, declared status
and schema property, and every MCP tool with its inputs and outputs, that existed before it still
exists with the same shape. Later changes may add (an operation, a status, a property, a tool); none
may take away or retype without updating the record on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.mcp.server import build_server
from tests.architecture.interface_shape import http_shape, mcp_shape

BEFORE = json.loads(
    (Path(__file__).parents[1] / "data" / "interface_before_redesign.json").read_text()
)


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    db = tmp_path_factory.mktemp("interface") / "interface.db"
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{db}"))
    return app.openapi()


def test_every_http_operation_keeps_its_shape(openapi: dict[str, Any]) -> None:
    now = http_shape(openapi)["operations"]
    missing = sorted(set(BEFORE["http"]["operations"]) - set(now))
    assert not missing, f"operations gone: {missing}"
    for key, before in BEFORE["http"]["operations"].items():
        assert now[key]["parameters"] == before["parameters"], key
        assert now[key]["body"] == before["body"], key
        gone = set(before["statuses"]) - set(now[key]["statuses"])
        assert not gone, f"{key}: statuses no longer declared: {sorted(gone)}"


def test_every_schema_keeps_its_properties(openapi: dict[str, Any]) -> None:
    now = http_shape(openapi)["schemas"]
    for name, props in BEFORE["http"]["schemas"].items():
        assert name in now, f"schema gone: {name}"
        for prop, typ in props.items():
            assert now[name].get(prop) == typ, f"{name}.{prop}: {typ} → {now[name].get(prop)}"


async def test_every_mcp_tool_keeps_its_shape() -> None:
    server = build_server(lambda: None, public_url="http://127.0.0.1:8000")  # type: ignore[arg-type,return-value]
    tools = [
        t.model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in await server.list_tools()
    ]
    now = mcp_shape(tools)
    for name, before in BEFORE["mcp"].items():
        assert name in now, f"MCP tool gone: {name}"
        assert now[name]["inputs"] == before["inputs"], name
        assert now[name]["required"] == before["required"], name
        assert set(before["outputs"]) <= set(now[name]["outputs"]), name
