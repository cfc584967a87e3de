"""
The MCP server end to end with the official SDK client over streamable HTTP, against the ASGI app
(`create_app(settings, runtime=...)`, no lifespan: the session manager starts on first use). Every
registered tool is listed with its schemas, called, and its structured content compared with the JSON
of the HTTP endpoint for the same input.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import httpx2
import jsonschema
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.mcp.args import ECOSYSTEM_IDS
from pkgintel.mcp.tools import TOOLS
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from pkgintel.storage.tables import usage_event
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.knowledge_data import add_github_business, add_npm_live
from tests.osv_records import ingest_records, malicious, record
from tests.shared import SHARED_DATA, read_shared_bytes

VOLATILE = ("_response_ms", "_cache")
"""Per-call fields: server time and cache marker (a second call is a cache hit)."""

REQUIREMENTS = "demo-pkg==1.0.0\n"
PIP_DISTUTILS = """Traceback (most recent call last):
  File "/tmp/pip-install-abc123/legacy-lib_1f2e/setup.py", line 2, in <module>
    from distutils.core import setup
ModuleNotFoundError: No module named 'distutils'
"""
REACT = Path(__file__).resolve().parents[1] / "recordings" / "npm" / "react.json.gz"


def stable(body: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in body.items() if k not in VOLATILE}
    meta = out.get("_meta")
    if isinstance(meta, dict) and isinstance(meta.get("sources"), list):
        # `age_s` ticks between the two calls; everything else about a source must agree.
        sources = [{k: v for k, v in s.items() if k != "age_s"} for s in meta["sources"]]
        out["_meta"] = {**meta, "sources": sources}
    return out


@pytest.fixture
def registry(registry: ReplayRegistry) -> ReplayRegistry:
    """React (tests/recordings) and react-dom (the shared npm-live capture) for the compat case."""
    registry.add("https://registry.npmjs.org/react", gzip.decompress(REACT.read_bytes()))
    if SHARED_DATA.is_dir():
        registry.add(
            "https://registry.npmjs.org/react-dom",
            read_shared_bytes(
                "registry-fixtures", "npm-live", "registry.npmjs.org_react-dom.json.gz"
            ),
        )
    return registry


@pytest.fixture
async def loaded(runtime: Runtime, tmp_path: Path) -> Runtime:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [
            record(
                "DEMO-A",
                "PyPI",
                "demo-pkg",
                events=[{"introduced": "0"}, {"fixed": "1.2.0"}],
                severity="HIGH",
            )
        ],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "npm",
        [malicious("MAL-2099-1", "npm", "tiny-lib", versions=["1.1.0"])],
    )
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "tiny-lib", "tiny-lib", monthly_downloads=1_000_000)],
        source="test",
    )
    assert runtime.errors is not None
    await runtime.errors.load_knowledge()
    return runtime


@pytest.fixture
def app_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"public_url": "http://test"})


@pytest.fixture
async def http(app_settings: Settings, loaded: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(app_settings, runtime=loaded)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        c.app = app  # type: ignore[attr-defined]
        yield c


@asynccontextmanager
async def connect(http: httpx.AsyncClient) -> AsyncIterator[Client]:
    """The SDK client over streamable HTTP into the ASGI app (entered inside the test's own task:
    the client's task groups cannot span a fixture's setup and teardown)."""
    app = http.app  # type: ignore[attr-defined]
    async with (
        httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://test") as h2,
        Client(streamable_http_client("http://test/mcp", http_client=h2)) as client,
    ):
        yield client


# tool name → (arguments, HTTP request giving the same answer)
CASES: dict[str, tuple[dict[str, Any], tuple[str, str, dict[str, Any] | None]]] = {
    "check_package": (
        {"ecosystem": "pypi", "package": "demo-pkg", "version": "1.0.0"},
        ("GET", "/api/check/pypi/demo-pkg?version=1.0.0", None),
    ),
    "get_health_score": (
        {"ecosystem": "npm", "package": "tiny-lib"},
        ("GET", "/api/health/npm/tiny-lib", None),
    ),
    "get_latest_version": (
        {"ecosystem": "npm", "package": "@acme/widget"},
        ("GET", "/api/latest/npm/%40acme%2Fwidget", None),
    ),
    "package_exists": (
        {"ecosystem": "npm", "package": "tiny-lbi"},
        ("GET", "/api/exists/npm/tiny-lbi", None),
    ),
    "check_bulk": (
        {
            "items": [
                {"ecosystem": "npm", "package": "fs"},
                {"ecosystem": "npm", "package": "tiny-lib", "version": "1.1.0"},
                {"ecosystem": "pypi", "package": "never-heard-of"},
            ]
        },
        (
            "POST",
            "/api/check_bulk",
            {
                "items": [
                    {"ecosystem": "npm", "package": "fs"},
                    {"ecosystem": "npm", "package": "tiny-lib", "version": "1.1.0"},
                    {"ecosystem": "pypi", "package": "never-heard-of"},
                ]
            },
        ),
    ),
    "install_command": (
        {"ecosystem": "pypi", "package": "demo-pkg", "version": "1.0.0"},
        ("GET", "/api/install/pypi/demo-pkg?version=1.0.0", None),
    ),
    "pin_safe": (
        {"ecosystem": "pypi", "package": "demo-pkg", "min_severity": "medium"},
        ("GET", "/api/pin_safe/pypi/demo-pkg?min_severity=medium", None),
    ),
    "check_malicious": (
        {"ecosystem": "npm", "package": "tiny-lib", "version": "1.1.0"},
        ("GET", "/api/malicious/npm/tiny-lib?version=1.1.0", None),
    ),
    "get_trust_signals": (
        {"ecosystem": "npm", "package": "tiny-lib"},
        ("GET", "/api/trust/npm/tiny-lib", None),
    ),
    "check_typosquat": (
        {"ecosystem": "npm", "package": "tiny-lbi"},
        ("GET", "/api/typosquat/npm/tiny-lbi", None),
    ),
    "get_vulnerabilities": (
        {"ecosystem": "pypi", "package": "demo-pkg"},
        ("GET", "/api/vulns/pypi/demo-pkg", None),
    ),
    "scan_project": (
        {"lockfile": REQUIREMENTS, "filename": "requirements.txt"},
        ("POST", "/api/scan", {"lockfile": REQUIREMENTS, "filename": "requirements.txt"}),
    ),
    "resolve_error": (
        {"error": PIP_DISTUTILS, "limit": 3},
        ("POST", "/api/error/resolve", {"error": PIP_DISTUTILS, "limit": 3}),
    ),
    "check_compatibility": (
        {"packages": {"react": "18.2.0", "react-dom": "17.0.2"}},
        ("POST", "/api/compat", {"packages": {"react": "18.2.0", "react-dom": "17.0.2"}}),
    ),
    # -- package knowledge (issue 18); data loaded by `load_knowledge`
    "find_alternatives": (
        {"ecosystem": "npm", "package": "request"},
        ("GET", "/api/alternatives/npm/request", None),
    ),
    "get_migration_path": (
        {"ecosystem": "npm", "from_package": "request", "to_package": "axios"},
        ("GET", "/api/migration/npm/request/axios", None),
    ),
    "get_breaking_changes": (
        {
            "ecosystem": "rubygems",
            "package": "business",
            "from_version": "1.17.0",
            "to_version": "2.3.0",
        },
        ("GET", "/api/breaking/rubygems/business?from_version=1.17.0&to_version=2.3.0", None),
    ),
    "get_known_bugs": (
        {"ecosystem": "rubygems", "package": "business", "version": "2.3.0"},
        ("GET", "/api/bugs/rubygems/business?version=2.3.0", None),
    ),
    "compare_packages": (
        {"ecosystem": "npm", "packages": ["axios", "request", "no-such-pkg-zz"]},
        ("GET", "/api/compare/npm/axios,request,no-such-pkg-zz", None),
    ),
    "get_trending": (
        {"ecosystem": "npm", "limit": 5},
        ("GET", "/api/trending?ecosystem=npm&limit=5", None),
    ),
}
SPEC_TOOLS = {
    "check_package",
    "get_package_prompt",
    "get_health_score",
    "get_latest_version",
    "package_exists",
    "check_bulk",
    "install_command",
    "pin_safe",
    "check_malicious",
    "check_typosquat",
    "get_trust_signals",
    "get_vulnerabilities",
    "find_alternatives",
    "compare_packages",
    "scan_project",
    "get_trending",
    "get_breaking_changes",
    "get_known_bugs",
    "check_compatibility",
    "resolve_error",
    "get_migration_path",
    "contact",
}
"""The tools the specification names (issue 13): its MCP server offers exactly these 22."""
NEEDS_SHARED = {"check_compatibility"}
"""Cases whose registry bodies come from ../shared/data (skipped when it is absent)."""

KNOWLEDGE_TOOLS = (
    "find_alternatives",
    "get_migration_path",
    "get_breaking_changes",
    "get_known_bugs",
    "compare_packages",
    "get_trending",
)


async def load_knowledge(
    tool: str, runtime: Runtime, registry: ReplayRegistry, http: httpx.AsyncClient
) -> None:
    """What the knowledge tools answer from, as in tests/api/test_knowledge_api.py: the curated
    knowledge, the npm mirror packuments, gocardless/business harvested from its recorded GitHub
    bodies, and a week of agent queries in the usage log."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set PKGINTEL_SHARED_DATA)")
    assert runtime.knowledge is not None
    add_npm_live(registry)
    add_github_business(registry)
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)
    if tool in ("get_breaking_changes", "get_known_bugs"):
        await runtime.knowledge.harvest.harvest(
            Ecosystem.RUBYGEMS, "business", repository="gocardless/business"
        )
    if tool == "get_trending":
        # Both names exist (in the name index): a name that does not is the hallucination
        # corpus (issue 30), never a trend.
        await runtime.names.ingest(
            Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "left-pad", "left-pad")], source="test"
        )
        agent = {"User-Agent": "claude-code/1.0"}
        for path in ["/api/exists/npm/tiny-lib"] * 3 + ["/api/exists/npm/left-pad"]:
            assert (await http.get(path, headers=agent)).status_code == 200


def _one_more_hit(answer: dict[str, Any]) -> dict[str, Any]:
    """A resolution as the next call sees it: the best match was counted once more."""
    solutions = [dict(s) for s in answer["solutions"]]
    solutions[0]["hits"] += 1
    return {**answer, "solutions": solutions}


SECOND_CALL: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "resolve_error": _one_more_hit
}
"""Tools that write (counters): how their answer changes by the tool call itself, which the HTTP
call made after it sees."""


async def test_lists_every_tool_with_schemas_and_annotations(http: httpx.AsyncClient) -> None:
    async with connect(http) as mcp_client:
        listed = {t.name: t for t in (await mcp_client.list_tools()).tools}
        assert list(listed) == [t.name for t in TOOLS]
        # verify_package_name: tests/mcp/test_mcp_benchmark.py
        assert set(CASES) | {"get_package_prompt", "contact", "verify_package_name"} == set(listed)
        # The specification's 22, plus the benchmark verification (issue 30: a new capability
        # gets its tool).
        assert set(listed) == SPEC_TOOLS | {"verify_package_name"}
        for tool in listed.values():
            assert tool.description and tool.title
            jsonschema.Draft202012Validator.check_schema(tool.input_schema)
            assert tool.output_schema is not None and tool.output_schema["type"] == "object"
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            ann = tool.annotations
            assert ann is not None and ann.destructive_hint is False
            if tool.name not in ("resolve_error", "contact"):
                assert ann.read_only_hint is True and ann.idempotent_hint is True
            props = tool.input_schema["properties"]
            if "ecosystem" in props:
                eco = props["ecosystem"]
                enum = eco.get("enum") or eco["anyOf"][0]["enum"]
                assert enum == ECOSYSTEM_IDS and len(enum) == 19
            if "package" in props and tool.name != "contact":  # contact: optional, checked below
                assert (props["package"]["minLength"], props["package"]["maxLength"]) == (1, 214)
        assert listed["package_exists"].annotations.open_world_hint is False  # type: ignore[union-attr]
        assert listed["check_package"].annotations.open_world_hint is True  # type: ignore[union-attr]
        # ecosystem + package, or purl (tests/mcp/test_mcp_purl.py)
        assert "required" not in listed["check_package"].input_schema
        items = listed["check_bulk"].input_schema["properties"]["items"]
        assert (items["minItems"], items["maxItems"]) == (1, 100)
        limit = listed["pin_safe"].input_schema["properties"]["limit_checked"]
        assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 500, 50)
        compared = listed["compare_packages"].input_schema["properties"]["packages"]
        assert (compared["minItems"], compared["maxItems"]) == (2, 10)
        assert (compared["items"]["minLength"], compared["items"]["maxLength"]) == (1, 214)
        trend = listed["get_trending"].input_schema["properties"]
        assert (trend["limit"]["minimum"], trend["limit"]["maximum"]) == (1, 100)
        assert trend["ecosystem"]["anyOf"][0]["enum"] == ECOSYSTEM_IDS
        for name in ("get_trending", "get_breaking_changes", "get_known_bugs"):
            assert listed[name].annotations.open_world_hint is False  # type: ignore[union-attr]
        for name in ("find_alternatives", "get_migration_path", "compare_packages"):
            assert listed[name].annotations.open_world_hint is True  # type: ignore[union-attr]
        resolve = listed["resolve_error"]
        ann = resolve.annotations
        assert ann is not None and (ann.read_only_hint, ann.idempotent_hint) == (False, False)
        assert ann.open_world_hint is False  # the error database only; it records misses
        error = resolve.input_schema["properties"]["error"]
        assert (error["minLength"], error["maxLength"]) == (1, 200_000)
        assert resolve.input_schema["required"] == ["error"]
        limit = resolve.input_schema["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 20, 5)
        compat = listed["check_compatibility"]
        assert compat.annotations.read_only_hint is True  # type: ignore[union-attr]
        assert compat.annotations.open_world_hint is True  # type: ignore[union-attr]
        props = compat.input_schema["properties"]
        assert set(props) == {"packages", "stack", "ecosystem", "python", "node"}
        assert (props["packages"]["anyOf"][0]["maxProperties"]) == 100
        assert "required" not in compat.input_schema
        contact = listed["contact"]
        ann = contact.annotations
        assert ann is not None and (ann.read_only_hint, ann.idempotent_hint) == (False, False)
        assert ann.open_world_hint is False
        assert set(contact.input_schema["properties"]) == {
            "type",
            "message",
            "email",
            "ecosystem",
            "package",
        }  # the caller is filled by the server, never an argument
        assert contact.input_schema["required"] == ["type", "message"]
        assert "false-positive" in contact.input_schema["properties"]["type"]["enum"]
        package = contact.input_schema["properties"]["package"]["anyOf"][0]
        assert (package["minLength"], package["maxLength"]) == (1, 214)


@pytest.mark.parametrize("tool", list(CASES))
async def test_tool_answers_what_the_http_endpoint_answers(
    tool: str, http: httpx.AsyncClient, loaded: Runtime, registry: ReplayRegistry
) -> None:
    if tool in KNOWLEDGE_TOOLS:
        await load_knowledge(tool, loaded, registry, http)
    async with connect(http) as mcp_client:
        if tool in NEEDS_SHARED and not SHARED_DATA.is_dir():
            pytest.skip(f"shared data not found at {SHARED_DATA}")
        arguments, (method, path, body) = CASES[tool]
        result = await mcp_client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        resp = await http.request(method, path, json=body)
        assert resp.status_code == 200, resp.text
        expected = resp.json()
        got = SECOND_CALL.get(tool, lambda d: d)(result.structured_content or {})
        assert stable(got) == stable(expected)
        assert result.content and result.content[0].type == "text" and result.content[0].text
        listed = {t.name: t for t in (await mcp_client.list_tools()).tools}
        jsonschema.validate(
            expected, listed[tool].output_schema
        )  # the HTTP JSON fits the schema too


@pytest.mark.parametrize("tool", KNOWLEDGE_TOOLS)
async def test_knowledge_tools_answer_from_the_loaded_knowledge(
    tool: str, http: httpx.AsyncClient, loaded: Runtime, registry: ReplayRegistry
) -> None:
    """Not only the same JSON as HTTP: the answer carries the loaded facts, and the text says them."""
    await load_knowledge(tool, loaded, registry, http)
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(tool, CASES[tool][0])
    data, text = result.structured_content or {}, result.content[0].text  # type: ignore[union-attr]

    if tool == "find_alternatives":
        assert data["needs_replacement"] is True
        assert "axios" in [a["name"] for a in data["alternatives"]]
        assert text.startswith("npm/request: needs replacement") and "- axios " in text
    elif tool == "get_migration_path":
        assert data["kind"] == "curated" and data["estimated_minutes"] > 0
        assert text.startswith("npm: request → axios (curated, about ")
    elif tool == "get_breaking_changes":
        assert [v["version"] for v in data["versions"]] == ["1.18.0", "2.0.0", "2.3.0"]
        assert text.startswith(
            f"rubygems/business 1.17.0 → 2.3.0: {data['breaking_count']} breaking changes"
        )
        assert "2.0.0: " in text
    elif tool == "get_known_bugs":
        assert [b["number"] for b in data["bugs"]] == [121, 120]
        assert text.startswith("rubygems/business@2.3.0: 2 known bugs (open 2)")
        assert "#121 [open, " in text
    elif tool == "compare_packages":
        rows = {p["name"]: p for p in data["packages"]}
        assert rows["no-such-pkg-zz"]["status"] == "not_found"
        assert data["best_fit"] in ("axios", "request") and data["best_fit"] in data["verdict"]
        assert "- no-such-pkg-zz: not_found" in text
    else:
        assert [(p["package"], p["queries_this_week"]) for p in data["packages"]] == [
            ("tiny-lib", 3),
            ("left-pad", 1),
        ]
        assert "- npm/tiny-lib: 3 queries (0 the week before), 1 clients" in text


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("compare_packages", {"ecosystem": "npm", "packages": ["axios"]}),
        ("compare_packages", {"ecosystem": "npm", "packages": [f"p{i}" for i in range(11)]}),
        ("compare_packages", {"ecosystem": "npm", "packages": ["axios", "a,b"]}),
        ("compare_packages", {"ecosystem": "npm", "packages": ["axios", "AXIOS BAD"]}),
        (
            "get_migration_path",
            {"ecosystem": "npm", "from_package": "axios", "to_package": "axios"},
        ),
        (
            "get_breaking_changes",
            {"ecosystem": "npm", "package": "x", "from_version": "2.0.0", "to_version": "1.0.0"},
        ),
        ("get_known_bugs", {"ecosystem": "npm", "package": "x", "version": "%%%"}),
        ("get_trending", {"limit": 101}),
        ("get_trending", {"ecosystem": "cobol"}),
    ],
)
async def test_knowledge_tools_refuse_bad_input(
    tool: str, arguments: dict[str, Any], http: httpx.AsyncClient
) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(tool, arguments)
    assert result.is_error and result.content[0].text  # type: ignore[union-attr]


async def test_prompt_tool_returns_the_brief_text(http: httpx.AsyncClient) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(
            "get_package_prompt", {"ecosystem": "npm", "package": "tiny-lib"}
        )
        text = (await http.get("/api/prompt/npm/tiny-lib")).text
        assert not result.is_error
        assert result.content[0].text == text  # type: ignore[union-attr]
        assert result.structured_content == {
            "ecosystem": "npm",
            "package": "tiny-lib",
            "purl": "pkg:npm/tiny-lib@2.0.0",
            "version": "2.0.0",
            "prompt": text,
        }


async def test_tools_say_stale_with_the_date_in_json_and_text(http: httpx.AsyncClient) -> None:
    """Issue 27: the fixture's records are of 2026-01-01, the clock says 2026-11-22. The tools
    answer what HTTP answers (`stale`, with the date), and their text says it too."""
    async with connect(http) as mcp_client:
        scan = await mcp_client.call_tool(
            "scan_project", {"lockfile": REQUIREMENTS, "filename": "requirements.txt"}
        )
        summary = (scan.structured_content or {})["summary"]
        assert summary["vulnerability_data"] == "stale"
        assert summary["vulnerability_data_as_of"] == "2026-01-01T00:00:00Z"
        text = scan.content[0].text  # type: ignore[union-attr]
        assert "vulnerability data: stale as of 2026-01-01 (osv:PyPI)" in text
        pin = await mcp_client.call_tool("pin_safe", {"ecosystem": "pypi", "package": "demo-pkg"})
        # No malicious reports for PyPI here: partial (worse than stale), the stale feed still named.
        assert (pin.structured_content or {})["status"] == "partial"
        assert (pin.structured_content or {})["data_as_of"] == "2026-01-01T00:00:00Z"
        text = pin.content[0].text  # type: ignore[union-attr]
        assert "data partial)" in text
        assert "computed on vulnerability data stale, as of 2026-01-01 (osv:PyPI)" in text
        bulk = await mcp_client.call_tool(
            "check_bulk", {"items": [{"ecosystem": "npm", "package": "tiny-lib"}]}
        )
        assert (bulk.structured_content or {})["malicious_data"] == "stale"
        text = bulk.content[0].text  # type: ignore[union-attr]
        assert "malicious-package data: stale as of 2026-01-01 (osv-malicious:npm)" in text
        vulns = await mcp_client.call_tool(
            "get_vulnerabilities", {"ecosystem": "pypi", "package": "demo-pkg"}
        )
        assert (vulns.structured_content or {})["status"] == "stale"
        text = vulns.content[0].text  # type: ignore[union-attr]
        assert "vulnerabilities (stale)" in text and "data stale as of 2026-01-01" in text
        prompt = await mcp_client.call_tool(
            "get_package_prompt", {"ecosystem": "pypi", "package": "demo-pkg"}
        )
        text = prompt.content[0].text  # type: ignore[union-attr]
        assert "vulnerability data stale, as of 2026-01-01 (osv:PyPI)" in text


async def test_sbom_format_matches_http(http: httpx.AsyncClient) -> None:
    async with connect(http) as mcp_client:
        args = {"lockfile": REQUIREMENTS, "filename": "requirements.txt", "format": "cyclonedx"}
        result = await mcp_client.call_tool("scan_project", args)
        expected = (await http.post("/api/scan", json=args)).json()
        got = result.structured_content or {}
        assert got["bomFormat"] == expected["bomFormat"] == "CycloneDX"
        assert [c["purl"] for c in got["components"]] == [c["purl"] for c in expected["components"]]


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        ("check_package", {"ecosystem": "npm", "package": "tiny-lbi"}, "/api/check/npm/tiny-lbi"),
        (
            "check_package",
            {"ecosystem": "npm", "package": "tiny-lib", "version": "9.9.9"},
            "/api/check/npm/tiny-lib?version=9.9.9",
        ),
        (
            "get_latest_version",
            {"ecosystem": "cargo", "package": "serde"},
            "/api/latest/cargo/serde",
        ),
        (
            "install_command",
            {"ecosystem": "pypi", "package": "demo-pkg", "version": "7.0"},
            "/api/install/pypi/demo-pkg?version=7.0",
        ),
    ],
)
async def test_domain_errors_are_tool_errors_with_the_problem_detail(
    tool: str, arguments: dict[str, Any], path: str, http: httpx.AsyncClient
) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(tool, arguments)
        problem = (await http.get(path)).json()
        assert result.is_error
        assert result.content[0].text == problem["detail"]  # type: ignore[union-attr]
        assert result.structured_content == problem


async def test_upstream_down_is_a_tool_error_with_the_503_detail(
    http: httpx.AsyncClient, registry: Any
) -> None:
    async with connect(http) as mcp_client:
        registry.fail_with = 503
        result = await mcp_client.call_tool(
            "get_latest_version", {"ecosystem": "npm", "package": "left-pad"}
        )
        resp = await http.get("/api/latest/npm/left-pad")
        assert resp.status_code == 503
        # The tool's failure opened the host's circuit, so the HTTP call that follows is refused by the
    # breaker without asking: both are the same 503 problem about the same upstream.
    assert result.is_error and resp.status_code == 503  # type: ignore[union-attr]
    assert result.content[0].text.startswith("registry.npmjs.org")  # type: ignore[union-attr]
    assert resp.json()["detail"].startswith("registry.npmjs.org")


async def test_bad_input_is_a_tool_error(http: httpx.AsyncClient) -> None:
    async with connect(http) as mcp_client:
        unknown_eco = await mcp_client.call_tool(
            "package_exists", {"ecosystem": "cobol", "package": "x"}
        )
        assert unknown_eco.is_error
        too_long = await mcp_client.call_tool(
            "package_exists", {"ecosystem": "npm", "package": "a" * 215}
        )
        assert too_long.is_error
        bad_name = await mcp_client.call_tool(
            "package_exists", {"ecosystem": "npm", "package": "Bad Name"}
        )
        assert bad_name.is_error and bad_name.content[0].text  # type: ignore[union-attr]


async def test_calls_are_counted_as_mcp_tool(http: httpx.AsyncClient, loaded: Runtime) -> None:
    async with connect(http) as mcp_client:
        await mcp_client.call_tool("package_exists", {"ecosystem": "npm", "package": "tiny-lib"})
        assert loaded.status.stats.requests["mcp:package_exists"] == 1
    # ... and in the usage log (trending, agents-by-range), with the tool's package and a client hash.
    assert loaded.knowledge is not None
    await loaded.knowledge.usage.flush()
    async with loaded.packages._store.engine.connect() as conn:  # type: ignore[attr-defined]
        rows = (
            await conn.execute(
                select(usage_event.c.source, usage_event.c.package, usage_event.c.client)
            )
        ).all()
    mcp_rows = [r for r in rows if r.source == "mcp:package_exists"]
    assert len(mcp_rows) == 1 and mcp_rows[0].package == "tiny-lib"
    assert mcp_rows[0].client not in ("stdio", "", None)


async def test_get_mcp_describes_the_server(http: httpx.AsyncClient) -> None:
    resp = await http.get("/mcp")
    assert resp.status_code == 200
    body = resp.json()
    assert body["name"] == "pkgintel" and body["tool_count"] == len(TOOLS)
    assert body["url"] == "http://test/mcp"
    assert body["config"]["cursor"] == {"mcpServers": {"pkgintel": {"url": "http://test/mcp"}}}
    assert "/mcp" not in (await http.get("/openapi.json")).json()["paths"]


async def test_foreign_host_and_origin_are_refused(http: httpx.AsyncClient) -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    headers = {"accept": "application/json, text/event-stream"}
    evil = await http.post("/mcp", json=ping, headers={**headers, "host": "evil.example"})
    assert evil.status_code == 421
    origin = await http.post(
        "/mcp", json=ping, headers={**headers, "origin": "http://evil.example"}
    )
    assert origin.status_code == 403


async def test_discovery_documents(http: httpx.AsyncClient) -> None:
    manifest = (await http.get("/.well-known/mcp.json")).json()
    assert manifest["transport"] == {
        "type": "streamable-http",
        "url": "http://test/mcp",
        "stateless": True,
    }
    assert [t["name"] for t in manifest["tools"]] == [t.name for t in TOOLS]
    assert manifest["install"]["claude_code"].endswith("http://test/mcp")
    assert manifest["links"]["openapi"] == "http://test/openapi.json"
    plugin = (await http.get("/.well-known/ai-plugin.json")).json()
    assert plugin["schema_version"] == "v1"
    assert plugin["api"] == {"type": "openapi", "url": "http://test/openapi.json"}
    llms = await http.get("/llms.txt")
    assert llms.headers["content-type"].startswith("text/plain")
    paths = json.loads((await http.get("/openapi.json")).text)["paths"]
    for path in paths:  # generated from the route table: every path this instance serves is listed
        listed = f"[{path}](http://test{path})" in llms.text
        assert listed is not path.startswith("/api/admin"), path  # the admin API is closed here
    assert "- [/api/exists/{ecosystem}/{package}]" in llms.text


async def test_mcp_url_setting_is_used(settings: Settings, loaded: Runtime) -> None:
    custom = settings.model_copy(
        update={"public_url": "http://test", "mcp_url": "https://mcp.example.org"}
    )
    app = create_app(custom, runtime=loaded)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        manifest = (await c.get("/.well-known/mcp.json")).json()
    assert manifest["transport"]["url"] == "https://mcp.example.org/mcp"


async def test_resolve_error_records_a_miss_like_the_http_endpoint(http: httpx.AsyncClient) -> None:
    unknown = "zork: the frobnicator 0x7ffee3 refused to quux at /opt/x/y.c:12"
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool("resolve_error", {"error": unknown})
        assert not result.is_error
        got = result.structured_content or {}
        assert got["status"] == "no_match" and got["solutions"] == []
        assert got["miss"] == {"recorded": True, "count": 1}
        assert "no_match" in result.content[0].text  # type: ignore[union-attr]
        again = (await http.post("/api/error/resolve", json={"error": unknown})).json()
        assert again["miss"] == {"recorded": True, "count": 2}  # the tool call was counted


async def test_check_compatibility_takes_a_stack_string_and_runtimes(
    http: httpx.AsyncClient,
) -> None:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool(
            "check_compatibility", {"stack": "react@18.2.0,react-dom@17.0.2", "node": "18.17.0"}
        )
        expected = (
            await http.get(
                "/api/compat", params={"stack": "react@18.2.0,react-dom@17.0.2,node@18.17.0"}
            )
        ).json()
        assert stable(result.structured_content or {}) == stable(expected)
        assert expected["compatible"] is False and expected["runtimes"] == {"node": "18.17.0"}
        text = result.content[0].text  # type: ignore[union-attr]
        assert "conflict: react-dom@17.0.2 needs react 17.0.2, found 18.2.0 (peer)" in text


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"packages": {"react": "18.2.0"}, "stack": "react@18.2.0"},
        {"stack": "react"},
        {"packages": {"node": "18.17.0"}},
    ],
)
async def test_check_compatibility_bad_input_is_a_tool_error(
    arguments: dict[str, Any], http: httpx.AsyncClient
) -> None:
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool("check_compatibility", arguments)
        assert result.is_error and result.content[0].text  # type: ignore[union-attr]
        assert (result.structured_content or {}).get("status") == 422


async def test_contact_stores_what_post_api_contact_stores(
    http: httpx.AsyncClient, loaded: Runtime
) -> None:
    """The tool and `POST /api/contact` give the same acknowledgement (but for the id and time) and
    store the same request, keyed by the same client hash; the source tells the doors apart."""
    request = {
        "type": "false-positive",
        "message": "tiny-lib 1.2.0 is clean; only 1.1.0 was in the report.",
        "ecosystem": "npm",
        "package": "tiny-lib",
    }
    async with connect(http) as mcp_client:
        result = await mcp_client.call_tool("contact", request)
        assert not result.is_error, result.content
        bad = await mcp_client.call_tool("contact", {**request, "package": "x", "ecosystem": None})
        assert bad.is_error and "package" in bad.content[0].text  # type: ignore[union-attr]
    resp = await http.post("/api/contact", json=request)
    assert resp.status_code == 201, resp.text

    def without_ids(body: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in body.items() if k not in ("id", "received_at", "_meta")}
        out["sources"] = [s["name"] for s in body["_meta"]["sources"]]
        return out

    assert without_ids(result.structured_content or {}) == without_ids(resp.json())
    assert loaded.contact is not None
    stored = await loaded.contact.newest()
    assert {c.request.source for c in stored} == {"api", "mcp"}
    assert len({c.request.client for c in stored}) == 1 and len(stored[0].request.client) == 32
