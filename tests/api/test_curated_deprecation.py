"""
One truth per package (issue 27): a deprecation the curated knowledge records reaches the report,
the score and the briefs when the registry does not say it, and the report and `/api/alternatives`
agree. On the recorded npm packument of `request` (../shared/data npm-live: a registry mirror that
strips npm's deprecation notice), compared with the same packument carrying the registry's notice.
"""

from __future__ import annotations

import gzip
import json

import httpx
import pytest

from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.knowledge_data import NPM_LIVE
from tests.shared import requires_shared

pytestmark = requires_shared

ISSUE = "https://github.com/request/request/issues/3142"
TWIN = "request-twin"
"""The same packument under another name, with the registry's own deprecation notice."""


def _request_body() -> dict[str, object]:
    body: dict[str, object] = json.loads(
        gzip.decompress((NPM_LIVE / "registry.npmjs.org_request.json.gz").read_bytes())
    )
    return body


@pytest.fixture
def packuments(registry: ReplayRegistry) -> None:
    body = _request_body()
    assert "deprecated" not in body["versions"]["2.88.2"]  # type: ignore[index]
    registry.add("https://registry.npmjs.org/request", json.dumps(body).encode())
    twin = json.loads(json.dumps(body))
    twin["name"] = twin["_id"] = TWIN
    twin["versions"]["2.88.2"]["deprecated"] = "request has been deprecated"
    registry.add(f"https://registry.npmjs.org/{TWIN}", json.dumps(twin).encode())


async def test_without_curated_facts_the_mirror_says_nothing(
    client: httpx.AsyncClient, packuments: None
) -> None:
    """The starting point: the mirror strips the notice, and nothing else is known."""
    body = (await client.get("/api/check/npm/request")).json()
    assert body["metadata"]["deprecated"] is False
    assert body["metadata"]["deprecation_source"] is None
    assert body["health"]["deprecated"] is False
    assert (await client.get("/api/latest/npm/request")).json()["deprecated"] is False


async def test_curated_deprecation_reaches_report_score_briefs_and_alternatives(
    client: httpx.AsyncClient, runtime: Runtime, packuments: None
) -> None:
    assert runtime.knowledge is not None
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)

    body = (await client.get("/api/check/npm/request")).json()
    meta = body["metadata"]
    assert meta["deprecated"] is True
    assert "deprecated request in February 2020" in meta["deprecated_message"]
    assert meta["deprecation_source"] == {"origin": "curated", "url": ISSUE}
    curated = [s for s in body["_meta"]["sources"] if s["name"] == "curated:alternatives"]
    assert curated and curated[0]["kind"] == "deprecation" and ISSUE in curated[0]["detail"]

    # The score and the verdict move exactly as the registry's own notice moves them.
    twin = (await client.get(f"/api/check/npm/{TWIN}")).json()
    assert twin["metadata"]["deprecation_source"] == {"origin": "registry"}
    assert body["health"]["deprecated"] is True and twin["health"]["deprecated"] is True
    assert body["health"]["breakdown"] == twin["health"]["breakdown"]
    assert body["health"]["breakdown"]["maintenance"] == 0
    assert body["health"]["score"] == twin["health"]["score"]
    assert body["recommendation"]["action"] == twin["recommendation"]["action"]
    assert body["recommendation"]["action"] == "find_alternative"
    health = (await client.get("/api/health/npm/request")).json()["health"]
    assert health["score"] == body["health"]["score"] and health["deprecated"] is True

    # A report built from the cached snapshot carries it too.
    again = (await client.get("/api/check/npm/request")).json()
    assert again["_cache"] == "hit" and again["metadata"]["deprecated"] is True

    for path in ("/api/prompt/npm/request", "/api/ai/brief/npm/request"):
        text = (await client.get(path)).text
        assert "FIND AN ALTERNATIVE" in text and "deprecated request in February 2020" in text
    assert f"(source: {ISSUE})" in (await client.get("/api/prompt/npm/request")).text

    latest = (await client.get("/api/latest/npm/request")).json()
    assert latest["deprecated"] is True
    assert any(s["name"] == "curated:alternatives" for s in latest["_meta"]["sources"])
    assert (await client.get("/api/versions/npm/request")).json()["deprecated"] is True

    alternatives = (await client.get("/api/alternatives/npm/request")).json()
    assert alternatives["needs_replacement"] is True
    assert alternatives["reason"].startswith("deprecated: The maintainers deprecated request")


async def test_a_curated_entry_without_a_deprecation_marks_nothing(
    client: httpx.AsyncClient, runtime: Runtime, registry: ReplayRegistry
) -> None:
    """moment is curated as legacy (maintenance mode), not deprecated: the report does not say so."""
    from tests.bodies import npm_packument

    assert runtime.knowledge is not None
    await ingest_curated(runtime.knowledge.store, load_curated(), NOW)
    registry.add(
        "https://registry.npmjs.org/moment",
        npm_packument("moment", {"2.30.1": "2024-01-01T00:00:00.000Z"}),
    )
    body = (await client.get("/api/check/npm/moment")).json()
    assert body["metadata"]["deprecated"] is False
    assert body["metadata"]["deprecation_source"] is None
