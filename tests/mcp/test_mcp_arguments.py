"""A tool call with a wrong argument is a tool error agents can act on: structured content shaped like
the JSON API's 422 problem, naming each field and the rule it broke (not the SDK's raw
`1 validation error for check_packageArguments` text)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime


@asynccontextmanager
async def connect(settings: Settings, runtime: Runtime) -> AsyncIterator[Client]:
    app = create_app(settings.model_copy(update={"public_url": "http://test"}), runtime=runtime)
    async with (
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://test") as h2,
        Client(streamable_http_client("http://test/mcp", http_client=h2)) as client,
    ):
        yield client


def _fields(result: Any) -> list[str]:
    return [e["field"] for e in (result.structured_content or {})["errors"]]


@pytest.mark.parametrize(
    ("tool", "arguments", "field", "rule"),
    [
        ("check_package", {"ecosystem": "npm", "package": "a" * 215}, "package", "string_too_long"),
        ("check_package", {"ecosystem": "cobol", "package": "x"}, "ecosystem", "enum"),
        # `package` may be left out for a `purl`: the tool itself says one of them is needed.
        ("check_package", {"ecosystem": "npm"}, "package", "value_error"),
        ("get_latest_version", {"ecosystem": "npm", "package": 7}, "package", "string_type"),
    ],
)
async def test_wrong_argument_is_a_422_problem_naming_the_field_and_rule(
    settings: Settings,
    runtime: Runtime,
    tool: str,
    arguments: dict[str, Any],
    field: str,
    rule: str,
) -> None:
    async with connect(settings, runtime) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error
    problem = result.structured_content
    assert problem is not None, result.content
    assert problem["status"] == 422 and problem["title"] == "Invalid input"
    assert problem["type"].endswith("/invalid-input")
    assert problem["field"] == field
    [error] = [e for e in problem["errors"] if e["field"] == field]
    assert error["loc"] == [field] and error["type"] == rule and error["msg"]
    assert field in problem["detail"]
    text = result.content[0].text  # type: ignore[union-attr]
    assert text and "validation error for" not in text


async def test_every_wrong_argument_is_listed(settings: Settings, runtime: Runtime) -> None:
    async with connect(settings, runtime) as client:
        result = await client.call_tool("check_package", {"ecosystem": "cobol", "package": ""})
    assert result.is_error
    assert sorted(_fields(result)) == ["ecosystem", "package"]


async def test_a_rejected_value_is_not_echoed(settings: Settings, runtime: Runtime) -> None:
    secret = "x" * 300
    async with connect(settings, runtime) as client:
        result = await client.call_tool("check_package", {"ecosystem": "npm", "package": secret})
    assert secret not in str(result.structured_content)
