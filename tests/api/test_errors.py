"""Bad input and failing upstreams: 422, 404 with suggestions, 503 with Retry-After, stale copies — never a 500."""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import ADAPTERS
from pkgintel.runtime.container import Runtime


@pytest.mark.parametrize(
    "path",
    [
        "/api/check/notaneco/lodash",
        "/api/check/npm/",
        "/api/check/npm/" + "a" * 215,
        "/api/check/npm/bad%20name",
        "/api/check/pypi/-leading-dash",
        "/api/check/npm/tiny-lib?version=not..a..version",
        "/api/check/pypi/demo-pkg?version=1.0.0.final.what",
        "/api/check/npm/tiny-lib?version=",
        "/api/health/npm/tiny-lib?version=%00",
        "/api/exists/cobol/anything",
        "/api/install/npm/tiny-lib?version=~1",
    ],
)
async def test_bad_input_is_422_with_fastapi_validation_body(
    client: httpx.AsyncClient, path: str
) -> None:
    resp = await client.get(path)
    assert resp.status_code == 422, resp.text
    detail = resp.json()["detail"]
    assert isinstance(detail, list) and detail
    assert {"loc", "msg", "type"} <= set(detail[0])


async def test_unknown_package_is_404_problem_with_suggestions(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "tiny-lib", "tiny-lib", monthly_downloads=1000000)],
        source="test",
    )
    resp = await client.get("/api/check/npm/tiny-lbi")
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert body["status"] == 404 and body["type"].endswith("package-not-found")
    assert body["did_you_mean"] == ["tiny-lib"]


async def test_unknown_version_is_404_listing_versions(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/check/npm/tiny-lib", params={"version": "9.9.9"})
    assert resp.status_code == 404
    body = resp.json()
    assert body["type"].endswith("version-not-found")
    assert body["available_versions"][0] == "2.0.0"


async def test_every_ecosystem_is_live_and_an_unknown_one_is_422(client: httpx.AsyncClient) -> None:
    """All 19 ecosystems have an adapter (none answers 501 any more); an identifier outside the 19
    is bad input, never a 500."""
    assert set(ADAPTERS) == set(Ecosystem)
    body = (await client.get("/api/ecosystems")).json()
    assert body["count"] == body["supported_count"] == 19
    assert all(e["features"]["report"] and e["registry_url"] for e in body["ecosystems"])
    resp = await client.get("/api/check/bower/foo")
    assert resp.status_code == 422


async def test_upstream_down_with_nothing_cached_is_503_with_retry_after(
    client: httpx.AsyncClient, registry
) -> None:
    registry.fail_with = 503
    resp = await client.get("/api/check/npm/tiny-lib")
    assert resp.status_code == 503
    assert int(resp.headers["retry-after"]) > 0
    assert resp.json()["type"].endswith("upstream-unavailable")


async def test_malformed_upstream_json_is_503_not_500(client: httpx.AsyncClient, registry) -> None:
    registry.add("https://registry.npmjs.org/broken-pkg", b"{not json")
    resp = await client.get("/api/check/npm/broken-pkg")
    assert resp.status_code == 503
    assert resp.json()["reason"] == "invalid_json"


async def test_upstream_down_serves_marked_stale_copy(
    client: httpx.AsyncClient, runtime: Runtime, registry
) -> None:
    fresh = await client.get("/api/check/npm/tiny-lib")
    assert fresh.status_code == 200
    # Forget the cached copy (as after the cache's lifetime), then break the registry.
    key = "pkg:npm:tiny-lib:"
    await runtime.packages._cache.delete(key)
    registry.fail_with = 502
    resp = await client.get("/api/check/npm/tiny-lib")
    assert resp.status_code == 200
    body = resp.json()
    assert body["_cache"] == "stale"
    registry_src = next(s for s in body["_meta"]["sources"] if s["kind"] == "registry")
    assert registry_src["status"] == "stale"
    assert "max-age=300" in resp.headers["cache-control"]
    assert body["health"]["score"] == fresh.json()["health"]["score"]


async def test_upstream_404_is_remembered(client: httpx.AsyncClient, registry) -> None:
    assert (await client.get("/api/check/npm/no-such-package-xyz")).status_code == 404
    hits = len(registry.hits)
    assert (await client.get("/api/check/npm/no-such-package-xyz")).status_code == 404
    assert len(registry.hits) == hits


def test_feed_errors_have_their_own_problem_answers() -> None:
    import orjson

    from pkgintel.api.errors import error_response
    from pkgintel.sources.errors import AdvisoryNotFound, InvalidSourceData

    missing = error_response(AdvisoryNotFound("api.osv.dev", "GHSA-xxxx"))
    body = orjson.loads(missing.body)
    assert missing.status_code == 404 and body["advisory_id"] == "GHSA-xxxx"
    assert body["type"].endswith("/advisory-not-found")
    unreadable = error_response(InvalidSourceData("cisa-kev", "no vulnerabilities array"))
    body = orjson.loads(unreadable.body)
    assert unreadable.status_code == 502 and body["source"] == "cisa-kev"
    assert unreadable.headers["content-type"] == "application/problem+json"
