"""The limits declared once in `domain/limits.py` are the ones both doors publish: the HTTP door's
OpenAPI parameters and bodies, and the MCP tools' input schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain import limits
from pkgintel.domain.names.rules import MAX_NAME_LENGTH
from pkgintel.domain.operations.contact import MAX_PACKAGE_CHARS
from pkgintel.mcp.server import build_server


@pytest.fixture(scope="module")
def openapi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    db: Path = tmp_path_factory.mktemp("limits") / "limits.db"
    return create_app(Settings(database_url=f"sqlite+aiosqlite:///{db}")).openapi()


def _param(openapi: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    for p in openapi["paths"][path]["get"]["parameters"]:
        if p["name"] == name:
            schema: dict[str, Any] = p["schema"]
            return schema.get("anyOf", [schema])[0]
    raise AssertionError(f"{path} has no parameter {name}")


async def _tool_inputs() -> dict[str, dict[str, Any]]:
    server = build_server(lambda: None, public_url="http://127.0.0.1:8000")  # type: ignore[arg-type,return-value]
    return {t.name: t.input_schema["properties"] for t in await server.list_tools()}


def test_the_name_rules_and_contact_use_the_one_name_limit() -> None:
    assert MAX_NAME_LENGTH == limits.MAX_NAME_CHARS
    assert MAX_PACKAGE_CHARS == limits.MAX_NAME_CHARS


def test_http_parameters_carry_the_declared_limits(openapi: dict[str, Any]) -> None:
    check = "/api/check/{ecosystem}/{package}"
    assert _param(openapi, check, "package")["maxLength"] == limits.MAX_NAME_CHARS
    assert _param(openapi, check, "version")["maxLength"] == limits.MAX_VERSION_CHARS
    pin = "/api/pin_safe/{ecosystem}/{package}"
    assert _param(openapi, pin, "constraint")["maxLength"] == limits.MAX_CONSTRAINT_CHARS
    assert _param(openapi, pin, "limit_checked")["maximum"] == limits.MAX_VERSIONS_CHECKED
    assert _param(openapi, pin, "min_severity")["pattern"] == limits.SEVERITY_PATTERN


async def test_mcp_arguments_carry_the_same_limits() -> None:
    tools = await _tool_inputs()
    assert tools["get_latest_version"]["package"]["maxLength"] == limits.MAX_NAME_CHARS
    version = tools["check_package"]["version"]
    assert limits.MAX_VERSION_CHARS in (
        version.get("maxLength"),
        version["anyOf"][0].get("maxLength"),
    )
    pin = tools["pin_safe"]
    assert pin["limit_checked"]["maximum"] == limits.MAX_VERSIONS_CHECKED
    assert pin["limit_checked"]["default"] == limits.DEFAULT_VERSIONS_CHECKED
    assert tuple(pin["min_severity"]["enum"]) == limits.SEVERITIES
    assert pin["min_severity"]["default"] == limits.DEFAULT_MIN_SEVERITY
    scan = tools["scan_project"]
    assert scan["packages"]["anyOf"][0]["maxProperties"] == limits.MAX_SCAN_PACKAGES


def test_the_scan_body_limit_reads_the_same_at_every_door() -> None:
    assert limits.body_limit_message(1_000_000) == "the scan body is limited to 1,000,000 bytes"
