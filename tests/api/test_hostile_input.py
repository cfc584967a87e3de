"""
The inputs that once answered 500 (or nothing): each is now a 4xx naming what was wrong, with
FastAPI's validation body or problem+json. Also: the OpenAPI document has no dangling `$ref` and
declares the problem answers of every operation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import httpx
import pytest

from pkgintel.application.schemas.wire import report_wire
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.reports.briefs import render_prompt


def _loc(resp: httpx.Response) -> list[Any]:
    detail = resp.json()["detail"]
    assert isinstance(detail, list) and detail, resp.text
    return list(detail[0]["loc"])


async def test_scan_body_that_is_not_utf8_is_422_naming_the_body(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.post(
        "/api/scan",
        content=b'{"lockfile": "\xff\xfe not utf-8"}',
        headers={"content-type": "application/json"},
    )
    assert resp.status_code == 422, resp.text
    assert _loc(resp) == ["body", "body"]
    assert "UTF-8" in resp.json()["detail"][0]["msg"]


@pytest.mark.parametrize("path", ["/api/check_bulk", "/api/ai/stack"])
async def test_lone_surrogate_in_a_name_is_422_not_a_broken_handler(
    client: httpx.AsyncClient, path: str
) -> None:
    key = "items" if path == "/api/check_bulk" else "packages"
    # A JSON escape for a lone surrogate: valid JSON text, but not a Unicode string.
    raw = '{"' + key + '": [{"ecosystem": "cargo", "package": "a\\ud800b"}]}'
    resp = await client.post(path, content=raw, headers={"content-type": "application/json"})
    assert resp.status_code == 422, resp.text
    assert _loc(resp) == ["body", key, 0, "package"]
    msg = resp.json()["detail"][0]["msg"].lower()
    assert "unicode" in msg or "surrogate" in msg


async def test_body_that_cannot_be_decoded_is_problem_json(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/check_bulk", content=b"\xff\x00garbage", headers={"content-type": "application/json"}
    )
    assert 400 <= resp.status_code < 500, resp.text
    if resp.status_code == 400:
        assert resp.headers["content-type"] == "application/problem+json"
        assert resp.json()["status"] == 400


async def test_garbage_version_in_stack_is_422_naming_the_field(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.post(
        "/api/ai/stack",
        json={"packages": [{"ecosystem": "npm", "package": "tiny-lib", "version": "garbage"}]},
    )
    assert resp.status_code == 422, resp.text
    assert _loc(resp) == ["body", "packages", 0, "version"]
    assert "garbage" in resp.json()["detail"][0]["msg"]


async def test_garbage_version_in_check_bulk_is_422(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/api/check_bulk",
        json={"items": [{"ecosystem": "pypi", "package": "requests", "version": "1.0.0.final.x"}]},
    )
    assert resp.status_code == 422
    assert _loc(resp) == ["body", "items", 0, "version"]


@pytest.mark.parametrize("name", ["tiny-lib%0A", "tiny%0Alib", "%0A", "tiny-lib%0D%0A"])
async def test_name_with_newline_is_422_saying_why(client: httpx.AsyncClient, name: str) -> None:
    resp = await client.get(f"/api/check/npm/{name}")
    assert resp.status_code == 422, resp.text
    assert _loc(resp)[0] == "path"
    msg = resp.json()["detail"][0]["msg"]
    assert "line feed" in msg or "carriage return" in msg


async def test_pin_safe_constraint_error_names_the_query_parameter(
    client: httpx.AsyncClient,
) -> None:
    resp = await client.get("/api/pin_safe/npm/tiny-lib", params={"constraint": "^banana"})
    assert resp.status_code == 422, resp.text
    assert _loc(resp) == ["query", "constraint"]
    assert resp.json()["detail"][0]["input"] == "^banana"


@pytest.mark.parametrize(
    "event_id", ["é1", "12a", "-1", "99999999999999999999", "9223372036854775808"]
)
async def test_unusable_last_event_id_is_422_naming_the_header(
    client: httpx.AsyncClient, event_id: str
) -> None:
    resp = await client.get(
        "/api/live/malicious", headers=[(b"Last-Event-ID", event_id.encode("utf-8"))]
    )
    assert resp.status_code == 422, resp.text
    assert _loc(resp)[0] == "header"


async def test_unknown_route_is_problem_json(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/no-such-thing")
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "application/problem+json"


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


async def test_openapi_refs_resolve_and_problems_are_declared(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    document = (await client.get("/openapi.json")).json()
    schemas = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in schemas, ref
    scan = document["paths"]["/api/scan"]["post"]
    assert "Ecosystem" in str(scan["requestBody"])
    assert {"413", "422", "400", "500"} <= set(scan["responses"])
    check = document["paths"]["/api/check/{ecosystem}/{package}"]["get"]
    assert {"404", "422", "500", "501", "503"} <= set(check["responses"])
    problem = check["responses"]["503"]
    assert "application/problem+json" in problem["content"]
    assert "Retry-After" in problem["headers"]


async def test_unknown_dependency_count_is_unknown_not_zero(runtime: Runtime) -> None:
    """When the registry answer does not list a version's dependencies, briefs and reports say
    unknown, not 0."""
    report = await runtime.reports.get_report(Ecosystem.NPM, "tiny-lib", None)
    assert "Dependencies (2.0.0): 1 runtime" in render_prompt(report)
    info = replace(report.info, dependencies=(), dependencies_version=None)
    unknown = replace(report, snapshot=replace(report.snapshot, info=info))
    assert "Dependencies: unknown" in render_prompt(unknown)
    assert report_wire(unknown, public_url="http://t")["metadata"]["dependencies_count"] is None
