"""HTTP behaviour: Cache-Control, ETag/304, gzip and brotli, OpenAPI, install commands, service endpoints."""

from __future__ import annotations

import gzip

import brotli
import httpx
import orjson
import pytest
from starlette.requests import Request

from pkgintel.api.http import large_json
from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.runtime.container import Runtime


async def test_cache_control_and_etag_revalidation(client: httpx.AsyncClient) -> None:
    first = await client.get("/api/check/npm/tiny-lib")
    assert first.headers["cache-control"] == "public, max-age=21600, stale-while-revalidate=86400"
    etag = first.headers["etag"]
    again = await client.get("/api/check/npm/tiny-lib", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    other = await client.get(
        "/api/check/npm/tiny-lib", headers={"If-None-Match": '"something-else"'}
    )
    assert other.status_code == 200


@pytest.mark.parametrize("encoding", ["br", "gzip"])
async def test_compression(client: httpx.AsyncClient, encoding: str) -> None:
    resp = await client.get("/api/check/npm/tiny-lib", headers={"Accept-Encoding": encoding})
    assert resp.headers["content-encoding"] == encoding
    assert resp.json()["package"] == "tiny-lib"  # httpx decodes both
    assert len(resp.content) > int(resp.headers.get("content-length", "0") or 0)


async def test_openapi_document(client: httpx.AsyncClient) -> None:
    doc = (await client.get("/openapi.json")).json()
    assert doc["openapi"] == "3.1.0"
    assert doc["info"]["version"] == "0.7.0"
    for path in (
        "/api/check/{ecosystem}/{package}",
        "/api/health/{ecosystem}/{package}",
        "/api/prompt/{ecosystem}/{package}",
        "/api/ai/brief/{ecosystem}/{package}",
        "/api/exists/{ecosystem}/{package}",
        "/api/latest/{ecosystem}/{package}",
        "/api/versions/{ecosystem}/{package}",
        "/api/license/{ecosystem}/{package}",
        "/api/install/{ecosystem}/{package}",
        "/api/ecosystems",
        "/api/status",
        "/api/health",
        "/api/now",
        "/",
    ):
        assert path in doc["paths"], path
    assert (await client.get("/docs")).status_code == 200


async def test_install_commands(client: httpx.AsyncClient) -> None:
    npm = (await client.get("/api/install/npm/@acme/widget")).json()
    assert npm["version"] == "0.2.0"
    assert npm["commands"] == {
        "npm": "npm install @acme/widget@0.2.0",
        "yarn": "yarn add @acme/widget@0.2.0",
        "pnpm": "pnpm add @acme/widget@0.2.0",
        "bun": "bun add @acme/widget@0.2.0",
    }
    assert any("deprecated" in n for n in npm["notes"])
    py = (await client.get("/api/install/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert py["commands"]["pip"] == "pip install Demo_Pkg==1.0.0"
    assert set(py["commands"]) == {"pip", "uv", "poetry", "pipenv"}
    yanked = (await client.get("/api/install/pypi/demo-pkg", params={"version": "1.1.0"})).json()
    assert any("yanked" in n for n in yanked["notes"])


async def test_latest_versions_license(client: httpx.AsyncClient) -> None:
    latest = (await client.get("/api/latest/npm/tiny-lib")).json()
    assert latest["latest_version"] == "2.0.0" and latest["published_at"] == "2026-10-01T10:00:00Z"
    versions = (await client.get("/api/versions/pypi/demo-pkg")).json()
    assert versions["latest"] == "1.2.0" and versions["total_count"] == 3
    assert [v["version"] for v in versions["versions"]] == ["1.2.0", "1.1.0", "1.0.0"]
    assert versions["versions"][1]["yanked"] is True
    lic = (await client.get("/api/license/pypi/demo-pkg")).json()
    assert lic == lic | {
        "license": "Apache-2.0",
        "class": "permissive",
        "commercial_safe": True,
        "copyleft": False,
    }


async def test_exists_is_null_until_the_index_is_loaded(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    before = (await client.get("/api/exists/npm/tiny-lib")).json()
    assert before["exists"] is None and "no npm name index is loaded" in before["reason"]
    await runtime.names.ingest(
        Ecosystem.PYPI,
        [
            NameEntry(Ecosystem.PYPI, "demo-pkg", "Demo_Pkg", popularity_rank=5),
            NameEntry(Ecosystem.PYPI, "requests", "requests", popularity_rank=1),
        ],
        source="test",
    )
    found = (await client.get("/api/exists/pypi/Demo.Pkg")).json()
    assert found["exists"] is True and found["normalized"] == "demo-pkg"
    missing = (await client.get("/api/exists/pypi/reqeusts")).json()
    assert missing["exists"] is False
    assert missing["did_you_mean"] == ["requests"]


async def test_live_report_joins_the_index(client: httpx.AsyncClient) -> None:
    await client.get("/api/check/npm/tiny-lib")
    seen = (await client.get("/api/exists/npm/tiny-lib")).json()
    assert seen["exists"] is True and seen["source"] == "live"


async def test_service_endpoints(client: httpx.AsyncClient) -> None:
    eco = (await client.get("/api/ecosystems")).json()
    assert eco["count"] == 19 and len(eco["ecosystems"]) == 19
    supported = {e["id"] for e in eco["ecosystems"] if e["supported"]}
    assert supported == {e.value for e in ADAPTERS}  # live exactly where an adapter exists
    assert {"npm", "pypi", "rubygems", "composer", "pub", "hex"} <= supported
    status = (await client.get("/api/status")).json()
    assert status["ok"] is True and status["version"] == "0.7.0"
    assert {"uptime_s", "components", "stats"} <= set(status)
    assert status["components"]["database"] == "ok"
    health = (await client.get("/api/health")).json()
    assert health["status"] == "ok" and health["subsystems"]["cache"] == "ok"
    now = (await client.get("/api/now")).json()
    assert now["utc"].endswith("Z")
    root = (await client.get("/")).json()
    assert root["docs"].endswith("/docs")


async def test_exists_answers_are_reused_but_cleared_by_ingest(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await runtime.names.ingest(
        Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "alpha", "alpha")], source="t1"
    )
    assert (await client.get("/api/exists/npm/beta")).json()["exists"] is False
    await runtime.names.ingest(
        Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "beta", "beta")], source="t2"
    )
    assert (await client.get("/api/exists/npm/beta")).json()["exists"] is True


async def test_install_matches_the_version_by_ecosystem_equality(client: httpx.AsyncClient) -> None:
    # PEP 440: 1.0 is the published 1.0.0.
    body = (await client.get("/api/install/pypi/demo-pkg", params={"version": "1.0"})).json()
    assert body["version"] == "1.0.0"
    assert body["commands"]["pip"] == "pip install Demo_Pkg==1.0.0"


@pytest.mark.parametrize(
    ("accept", "encoding"), [("gzip, deflate, br", "br"), ("gzip", "gzip"), ("", None)]
)
async def test_a_large_answer_is_compressed_as_the_client_accepts(
    accept: str, encoding: str | None
) -> None:
    payload = {"packages": [{"name": f"dep-{i}", "version": "1.0.0"} for i in range(5000)]}
    scope = {"type": "http", "headers": [(b"accept-encoding", accept.encode())] if accept else []}
    response = await large_json(Request(scope), payload)
    assert response.headers.get("content-encoding") == encoding
    assert response.headers["vary"] == "Accept-Encoding"
    body = bytes(response.body)
    plain = {"br": brotli.decompress, "gzip": gzip.decompress}.get(encoding or "", lambda b: b)(
        body
    )
    assert orjson.loads(plain) == payload
