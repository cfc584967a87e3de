"""
Issue 32, item 7: deprecated, renamed and superseded packages get their curated replacement from
every door — JSON API, MCP tool, web page and the briefs — through the same answer function, even
when the registry cannot be read (a mirror that strips npm's notice, or an outage). A healthy
package is never called one to replace. Built-in replacements (`unittest.mock`) are never looked up
on the registry.
"""

from __future__ import annotations

import json

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from tests.bodies import npm_packument
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.mcp.test_mcp_http import connect


@pytest.fixture
async def curated(runtime: Runtime) -> Runtime:
    assert runtime.knowledge is not None
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)
    return runtime


REPLACED = [
    ("npm/babel-eslint", "@babel/eslint-parser"),
    ("npm/jade", "pug"),
    ("npm/gulp-util", "plugin-error"),
    ("pypi/sklearn", "scikit-learn"),
    ("pypi/PEP8", "pycodestyle"),  # PyPI names fold
    ("cargo/failure", "thiserror"),
    ("go/github.com/pkg/errors", "errors"),
    ("maven/log4j:log4j", "org.apache.logging.log4j:log4j-core"),
]


async def test_registry_down_the_curated_replacement_answers(
    client: httpx.AsyncClient, curated: Runtime, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    for path, expected in REPLACED:
        r = await client.get(f"/api/alternatives/{path}")
        assert r.status_code == 200, (path, r.text)
        body = r.json()
        assert body["needs_replacement"] is True, path
        assert body["current"] is None
        assert body["reason"].startswith("curated: ")
        assert body["curated_reason"] and body["sources"][0].startswith("https://")
        assert expected in [a["name"] for a in body["alternatives"]], path


async def test_registry_down_and_nothing_curated_is_still_a_503(
    client: httpx.AsyncClient, curated: Runtime, registry: ReplayRegistry
) -> None:
    """A healthy package is never guessed to need a replacement because the registry is away."""
    registry.fail_with = 503
    r = await client.get("/api/alternatives/npm/react")
    assert r.status_code == 503
    assert r.headers["content-type"].startswith("application/problem+json")


async def test_builtin_replacement_is_named_without_a_registry_lookup(
    client: httpx.AsyncClient, curated: Runtime, registry: ReplayRegistry
) -> None:
    registry.add(
        "https://pypi.org/pypi/mock/json",
        json.dumps(
            {
                "info": {"name": "mock", "version": "5.1.0", "summary": "Rolling backport"},
                "releases": {"5.1.0": [{"upload_time_iso_8601": "2023-07-10T00:00:00Z"}]},
            }
        ).encode(),
    )
    body = (await client.get("/api/alternatives/pypi/mock")).json()
    assert body["needs_replacement"] is True
    builtin = next(a for a in body["alternatives"] if a["name"] == "unittest.mock")
    assert builtin["builtin"] is True and builtin["status"] == "builtin"
    assert builtin["purl"] is None and builtin["health_score"] is None
    assert not any("unittest" in hit for hit in registry.hits)

    migration = (await client.get("/api/migration/pypi/mock/unittest.mock")).json()
    assert migration["kind"] == "curated"
    assert migration["to"]["status"] == "builtin"
    assert "from unittest import mock" in migration["after"]
    assert not any("unittest" in hit for hit in registry.hits)


async def test_healthy_packages_need_no_replacement(
    client: httpx.AsyncClient, curated: Runtime, registry: ReplayRegistry
) -> None:
    for name in ("lodash", "axios"):
        registry.add(
            f"https://registry.npmjs.org/{name}",
            npm_packument(name, {"4.17.21": "2025-01-01T00:00:00.000Z"}),
        )
        body = (await client.get(f"/api/alternatives/npm/{name}")).json()
        assert body["needs_replacement"] is False, body["reason"]
        assert body["alternatives"] == []


def test_popular_healthy_packages_are_not_curated_as_replaceable() -> None:
    k = load_curated()

    healthy = {
        Ecosystem.NPM: ["react", "lodash", "express", "axios", "typescript", "vite", "sass", "pug"],
        Ecosystem.PYPI: [
            "requests",
            "django",
            "flask",
            "numpy",
            "pytest",
            "scikit-learn",
            "pillow",
        ],
        Ecosystem.CARGO: ["serde", "tokio", "clap", "thiserror", "anyhow", "once_cell"],
        Ecosystem.GO: ["github.com/gin-gonic/gin", "google.golang.org/protobuf"],
        Ecosystem.MAVEN: ["org.apache.logging.log4j:log4j-core", "com.google.guava:guava"],
        Ecosystem.NUGET: ["Newtonsoft.Json", "Serilog"],
        Ecosystem.RUBYGEMS: ["rails", "factory_bot"],
    }
    for eco, names in healthy.items():
        for name in names:
            assert k.alternatives_for(eco, name) is None, (eco, name)


async def test_mcp_tool_answers_what_the_api_answers(
    settings: Settings, curated: Runtime, registry: ReplayRegistry
) -> None:
    registry.fail_with = 503
    app = create_app(settings.model_copy(update={"public_url": "http://test"}), runtime=curated)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as http:
        http.app = app  # type: ignore[attr-defined]
        api = (await http.get("/api/alternatives/npm/istanbul")).json()
        async with connect(http) as mcp_client:
            result = await mcp_client.call_tool(
                "find_alternatives", {"ecosystem": "npm", "package": "istanbul"}
            )
    assert not result.is_error, result.content
    tool = result.structured_content or {}
    assert tool["needs_replacement"] is True and tool["current"] is None
    assert [a["name"] for a in tool["alternatives"]] == [a["name"] for a in api["alternatives"]]
    assert {"nyc", "c8"} <= {a["name"] for a in tool["alternatives"]}


async def test_brief_and_report_name_the_curated_replacement(
    client: httpx.AsyncClient, curated: Runtime, registry: ReplayRegistry
) -> None:
    """A mirror without npm's notice: the report and the briefs still say what to use instead."""
    registry.add(
        "https://registry.npmjs.org/babel-eslint",
        npm_packument("babel-eslint", {"10.1.0": "2020-02-26T00:00:00.000Z"}),
    )
    report = (await client.get("/api/check/npm/babel-eslint")).json()
    assert report["metadata"]["deprecated"] is True
    assert report["metadata"]["deprecated_replacements"] == ["@babel/eslint-parser"]
    for path in ("/api/prompt/npm/babel-eslint", "/api/ai/brief/npm/babel-eslint"):
        text = (await client.get(path)).text
        assert "Use instead: @babel/eslint-parser" in text, text
