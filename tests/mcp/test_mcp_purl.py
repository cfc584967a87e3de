"""MCP tools naming one package take a `purl` instead of `ecosystem` + `package`, and aliases."""

from __future__ import annotations

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
    stable,
)

PACKAGE_TOOLS = {
    "check_package",
    "get_package_prompt",
    "get_health_score",
    "get_latest_version",
    "package_exists",
    "install_command",
    "pin_safe",
    "check_malicious",
    "check_typosquat",
    "get_trust_signals",
    "get_vulnerabilities",
    "find_alternatives",
    "get_breaking_changes",
    "get_known_bugs",
    "verify_package_name",
}


async def test_package_tools_publish_a_purl_argument(http: httpx.AsyncClient) -> None:  # noqa: F811
    async with connect(http) as mcp_client:
        listed = {t.name: t for t in (await mcp_client.list_tools()).tools}
    with_purl = {name for name, t in listed.items() if "purl" in t.input_schema["properties"]}
    assert with_purl == PACKAGE_TOOLS
    schema = listed["check_package"].input_schema
    assert "required" not in schema  # ecosystem + package, or purl
    assert schema["properties"]["purl"]["type"] == "string"
    bulk_item = listed["check_bulk"].input_schema["$defs"]["BulkItem"]["properties"]
    assert "purl" in bulk_item


async def test_check_package_by_purl_answers_what_the_http_twin_answers(
    http: httpx.AsyncClient,  # noqa: F811
) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool("check_package", {"purl": "pkg:pypi/demo-pkg@1.0.0"})
        assert not result.is_error, result.content
    body = result.structured_content or {}
    assert body["requested_version"] == "1.0.0" and body["purl"] == "pkg:pypi/demo-pkg@1.0.0"
    resp = await http.get("/api/check", params={"purl": "pkg:pypi/demo-pkg@1.0.0"})
    assert resp.status_code == 200, resp.text
    assert stable(body) == stable(resp.json())


async def test_aliases_and_purls_reach_the_same_answer(
    http: httpx.AsyncClient,  # noqa: F811
    loaded: Runtime,  # noqa: F811
) -> None:
    async with connect(http) as mcp_client:
        by_id = await mcp_client.call_tool(
            "package_exists", {"ecosystem": "npm", "package": "tiny-lib"}
        )
        by_alias = await mcp_client.call_tool(
            "package_exists", {"ecosystem": "NPM", "package": "tiny-lib"}
        )
        by_purl = await mcp_client.call_tool("package_exists", {"purl": "pkg:npm/tiny-lib"})
    answers = [r.structured_content for r in (by_id, by_alias, by_purl)]
    assert not any(r.is_error for r in (by_id, by_alias, by_purl))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0] is not None and answers[0]["purl"] == "pkg:npm/tiny-lib"
    # the usage log names the purl's package, like a call with ecosystem + package
    assert loaded.knowledge is not None
    await loaded.knowledge.usage.flush()
    async with loaded.packages._store.engine.connect() as conn:  # type: ignore[attr-defined]
        rows = (await conn.execute(select(usage_event.c.source, usage_event.c.package))).all()
    assert [r.package for r in rows if r.source == "mcp:package_exists"] == ["tiny-lib"] * 3


async def test_bad_purl_arguments_are_tool_errors_naming_the_field(
    http: httpx.AsyncClient,  # noqa: F811
) -> None:
    cases = [
        ({"purl": "pkg:nope/x"}, "purl"),
        ({"purl": "lodash"}, "purl"),
        ({"purl": "pkg:npm/tiny-lib", "ecosystem": "npm"}, "purl"),
        ({"purl": "pkg:npm/tiny-lib@1.0.0", "version": "1.1.0"}, "version"),
        ({"package": "tiny-lib"}, "ecosystem"),
        ({}, "ecosystem"),
    ]
    async with connect(http) as mcp_client:
        for arguments, field in cases:
            result = await mcp_client.call_tool("check_malicious", arguments)
            assert result.is_error, arguments
            assert (result.structured_content or {}).get("field") == field, arguments
        versioned = await mcp_client.call_tool(
            "get_vulnerabilities", {"purl": "pkg:npm/tiny-lib@1.0.0"}
        )
        assert versioned.is_error
        assert (versioned.structured_content or {}).get("field") == "purl"


async def test_check_bulk_tool_takes_purl_items(http: httpx.AsyncClient) -> None:  # noqa: F811
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(
            "check_bulk", {"items": [{"purl": "pkg:npm/tiny-lib@1.1.0"}, {"purl": "pkg:npm/fs"}]}
        )
    assert not result.is_error, result.content
    results = (result.structured_content or {})["results"]
    assert [(r["package"], r["version"], r["purl"]) for r in results] == [
        ("tiny-lib", "1.1.0", "pkg:npm/tiny-lib@1.1.0"),
        ("fs", None, "pkg:npm/fs"),
    ]
    assert results[0]["status"] == "malicious"


async def test_prompt_and_knowledge_tools_answer_with_the_purl(
    http: httpx.AsyncClient,  # noqa: F811
) -> None:
    async with connect(http) as mcp_client:
        prompt = await mcp_client.call_tool(
            "get_package_prompt", {"purl": "pkg:pypi/demo-pkg@1.0.0"}
        )
        latest = await mcp_client.call_tool(
            "get_package_prompt", {"ecosystem": "pypi", "package": "Demo_Pkg"}
        )
        bugs = await mcp_client.call_tool("get_known_bugs", {"purl": "pkg:npm/tiny-lib@1.1.0"})
        breaking = await mcp_client.call_tool("get_breaking_changes", {"purl": "pkg:npm/tiny-lib"})
    assert not any(r.is_error for r in (prompt, latest, bugs, breaking)), prompt.content
    assert (prompt.structured_content or {})["purl"] == "pkg:pypi/demo-pkg@1.0.0"
    body = latest.structured_content or {}
    assert body["purl"] == f"pkg:pypi/demo-pkg@{body['version']}"
    assert (bugs.structured_content or {})["purl"] == "pkg:npm/tiny-lib@1.1.0"
    assert (breaking.structured_content or {})["purl"] == "pkg:npm/tiny-lib"
