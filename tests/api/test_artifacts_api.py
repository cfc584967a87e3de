"""
`/api/scorecard` and `/api/provenance` over the replay registry (hand-written registry bodies
pointing at the real recorded Scorecard and attestation bodies), and the report's `scorecard`,
`bundle` and `typescript`: answers with sources and ages, "unavailable" with a reason (never a 500,
never a zero) when an upstream is down.
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pkgintel.runtime.container import Runtime
from tests.fake_registry import ReplayRegistry
from tests.shared import read_shared_json, requires_shared
from tests.supply_chain_bodies import NPM_ATTESTATIONS, SUPPLY_CHAIN_RECORDINGS

pytestmark = requires_shared


@pytest.fixture(autouse=True)
def _bodies(registry: ReplayRegistry) -> None:
    for url, body in SUPPLY_CHAIN_RECORDINGS:
        registry.add(url, body)
    # 0.3.0 was published by the same workflow: the real 0.4.0 body stands in for it.
    real = read_shared_json(
        "registry-fixtures",
        "provenance",
        "registry.npmjs.org_-_npm_v1_attestations_sigstore@0.4.0.json",
    )
    registry.add(NPM_ATTESTATIONS.format("0.3.0"), real)


def _source(body: dict, name: str) -> dict:
    return next(s for s in body["_meta"]["sources"] if s["name"] == name)


# -- scorecard ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ecosystem", "package"), [("npm", "scorecard-demo"), ("pypi", "sigstore")]
)
async def test_scorecard_of_the_declared_repository(
    client: httpx.AsyncClient, ecosystem: str, package: str
) -> None:
    resp = await client.get(f"/api/scorecard/{ecosystem}/{package}")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["available"] is True and body["status"] == "ok"
    assert body["project"] == "github.com/ossf/scorecard"
    assert body["score"] == 9.7 and body["max_score"] == 10
    assert body["signed_releases"]["score"] == 10
    assert body["pinned_dependencies"]["score"] == 9
    # Scorecard's -1 is "could not tell", shown as null with its reason, never as 0.
    assert body["branch_protection"]["score"] is None
    assert body["branch_protection"]["inconclusive"] is True
    assert len(body["checks"]) == 18
    src = _source(body, "api.scorecard.dev")
    assert src["status"] == "ok" and src["age_s"] >= 0
    assert src["data_as_of"].startswith("2025-11-15")


async def test_scorecard_down_is_unavailable_with_reason(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_prefixes["/scorecard"] = 503
    resp = await client.get("/api/scorecard/npm/scorecard-demo")
    assert resp.status_code == 200
    body = resp.json()
    assert body["available"] is False and body["status"] == "unavailable"
    assert "score" not in body
    assert "Scorecard API failed" in body["reason"]
    assert _source(body, "api.scorecard.dev")["status"] == "unavailable"
    assert "max-age=300" in resp.headers["cache-control"]


async def test_scorecard_cached_copy_survives_an_outage(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    assert (await client.get("/api/scorecard/npm/scorecard-demo")).json()["available"]
    registry.fail_prefixes["/scorecard"] = 503
    body = (await client.get("/api/scorecard/npm/scorecard-demo")).json()
    assert body["available"] is True and body["score"] == 9.7


async def test_repository_not_scanned(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/scorecard/npm/tiny-lib")).json()
    assert body["available"] is False and body["status"] == "not_scanned"
    assert body["project"] == "github.com/example/tiny-lib"
    assert "no result" in body["reason"]


async def test_scorecard_unknown_package_is_404(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/scorecard/npm/no-such-package-here")
    assert resp.status_code == 404
    assert resp.headers["content-type"] == "application/problem+json"


# -- provenance --------------------------------------------------------------------------------


async def test_npm_release_that_lost_provenance(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/provenance/npm/sigstore")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["version"] == "0.5.0" and body["is_latest"]
    assert body["available"] is True
    assert body["attested"] is False
    assert body["lost_provenance"] is True
    assert body["last_attested_version"] == "0.4.0"
    assert body["predecessors"]["compared"] == ["0.4.0", "0.3.0"]
    assert body["current"]["bundles"] == []
    assert body["verified_by_us"] is False
    src = _source(body, "registry.npmjs.org")
    assert src["status"] == "ok"
    index = next(s for s in body["_meta"]["sources"] if s["kind"] == "attestations")
    assert index["status"] == "ok" and index["fetched_at"]


async def test_npm_attested_release_facts(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/provenance/npm/sigstore", params={"version": "0.4.0"})).json()
    assert body["attested"] is True and body["lost_provenance"] is False
    current = body["current"]
    assert current["facts_status"] == "ok"
    slsa = current["bundles"][0]
    assert slsa["issuer"] == "https://token.actions.githubusercontent.com"
    assert slsa["repository"] == "https://github.com/sigstore/sigstore-js"
    assert slsa["commit"] == "8a2ee2fd20dda58ffa4a8d808a65cb1e04711c03"
    assert slsa["workflow"].startswith("sigstore/sigstore-js/.github/workflows/publish.yml")
    # The nearest attested predecessor was fetched too (bounded: two bodies), same publisher.
    assert body["publisher_changed"] is False
    assert body["predecessors"]["versions"][0]["facts_status"] == "ok"
    assert _source(body, "registry.npmjs.org/-/npm/v1/attestations")["status"] == "ok"


async def test_pypi_provenance_and_loss(client: httpx.AsyncClient) -> None:
    latest = (await client.get("/api/provenance/pypi/sigstore")).json()
    assert latest["version"] == "3.6.2"
    assert latest["lost_provenance"] is True and latest["last_attested_version"] == "3.6.1"
    assert latest["current"]["files"] == 1 and latest["current"]["attested_files"] == 0
    pinned = (await client.get("/api/provenance/pypi/sigstore?version=3.6.1")).json()
    assert pinned["attested"] is True
    facts = pinned["current"]["bundles"][0]
    assert facts["publisher_kind"] == "GitHub"
    assert facts["repository"] == "https://github.com/sigstore/sigstore-python"
    assert facts["commit"] == "896cfe13105495e6dc6f8faf23e1007da35edeeb"
    assert facts["signed_at"].startswith("2024-12-19")


async def test_attestation_index_down_is_unavailable(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_prefixes["/pypi/simple"] = 503
    resp = await client.get("/api/provenance/pypi/sigstore")
    assert resp.status_code == 200
    body = resp.json()
    assert body["available"] is False
    assert "pypi.org/simple failed" in body["reason"]
    assert "lost_provenance" not in body
    index = next(s for s in body["_meta"]["sources"] if s["kind"] == "attestations")
    assert index["status"] == "unavailable"


async def test_attestation_bodies_down_keep_the_flags(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_prefixes["/pypi/integrity"] = 503
    body = (await client.get("/api/provenance/pypi/sigstore?version=3.6.1")).json()
    assert body["available"] is True and body["attested"] is True
    assert body["current"]["facts_status"] == "unavailable"
    assert "pypi.org/integrity failed" in body["current"]["facts_reason"]
    assert _source(body, "pypi.org/integrity")["status"] == "unavailable"


async def test_ecosystem_without_attestations(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/provenance/cargo/regex")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["available"] is False and "crates.io" in body["reason"]
    assert body["version"]  # the registry still answered: the package and its latest are named
    assert _source(body, "crates.io")["status"] == "ok"


async def test_provenance_unknown_version_is_404(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/provenance/npm/sigstore", params={"version": "9.9.9"})
    assert resp.status_code == 404


# -- report fields -----------------------------------------------------------------------------


async def test_report_carries_scorecard_bundle_and_typescript(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/check/npm/scorecard-demo")).json()
    assert body["scorecard"]["available"] is True and body["scorecard"]["score"] == 9.7
    bundle = body["bundle"]
    assert bundle["unpacked_size_bytes"] == 48213 and bundle["file_count"] == 12
    assert bundle["dependencies_count"] == 1  # left-pad; the react peer is not counted
    assert bundle["minified_size_bytes"] is None and bundle["gzip_size_bytes"] is None
    ts = body["typescript"]
    assert ts["bundled_types"] is True and ts["declared_by"] == "exports"
    assert ts["types_entry"] == "./dist/index.d.mts"
    dt = ts["definitely_typed"]
    assert dt["name"] == "@types/scorecard-demo" and dt["exists"] is True
    assert dt["latest_version"] == "1.0.1" and dt["deprecated"] is True
    names = {(s["name"], s["kind"]) for s in body["_meta"]["sources"]}
    assert ("api.scorecard.dev", "scorecard") in names
    assert ("registry.npmjs.org", "definitely_typed") in names


async def test_report_without_declared_types_or_sizes(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/check/npm/tiny-lib")).json()
    assert body["bundle"]["unpacked_size_bytes"] is None
    assert "no unpacked size" in body["bundle"]["reason"]
    ts = body["typescript"]
    assert ts["bundled_types"] is False and ts["note"]
    assert ts["definitely_typed"]["exists"] is False


async def test_pypi_report_nulls_have_reasons(client: httpx.AsyncClient) -> None:
    body = (await client.get("/api/check/pypi/sigstore")).json()
    assert body["bundle"] is None and body["typescript"] is None
    assert "only npm" in body["null_reasons"]["bundle"]
    assert body["scorecard"]["available"] is True


async def test_a_slow_scorecard_is_answered_as_still_being_fetched(
    client: httpx.AsyncClient, registry: ReplayRegistry, runtime: Runtime
) -> None:
    registry.slow_prefixes["/scorecard"] = 1.0
    runtime.reports._signal_wait_s = 0.2  # PKGINTEL_REPORT_SIGNAL_WAIT_S
    body = (await client.get("/api/check/npm/scorecard-demo")).json()
    card = body["scorecard"]
    assert card["available"] is False and card["status"] == "unavailable"
    assert "still being fetched" in card["reason"]
    assert card["project"] == "github.com/ossf/scorecard"
    # What the packument says is all there; the DefinitelyTyped lookup waits with the rest.
    assert body["bundle"]["unpacked_size_bytes"] == 48213
    ts = body["typescript"]
    assert ts["bundled_types"] is True and ts["declared_by"] == "exports"
    assert ts["definitely_typed"]["exists"] is None
    assert _source(body, "api.scorecard.dev")["status"] == "unavailable"
    await asyncio.sleep(1.2)
    again = (await client.get("/api/check/npm/scorecard-demo")).json()
    assert again["scorecard"]["available"] is True and again["scorecard"]["score"] == 9.7
    assert again["health"] == body["health"]


async def test_report_survives_scorecard_outage(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    registry.fail_prefixes["/scorecard"] = 503
    resp = await client.get("/api/check/npm/scorecard-demo")
    assert resp.status_code == 200
    body = resp.json()
    assert body["scorecard"]["available"] is False
    assert body["scorecard"]["status"] == "unavailable"
    del registry.fail_prefixes["/scorecard"]
    again = (await client.get("/api/check/npm/scorecard-demo")).json()
    assert again["scorecard"]["available"] is True
    # Scorecard is shown, not scored: its outage moves no number (docs/scoring.md).
    assert again["health"] == body["health"]


async def test_package_missing_from_the_attestation_index(client: httpx.AsyncClient) -> None:
    # demo-pkg's JSON API answers, its simple page does not: unknown, not "no attestations".
    resp = await client.get("/api/provenance/pypi/demo-pkg")
    assert resp.status_code == 200
    body = resp.json()
    assert body["available"] is False
    assert "does not list 1.2.0" in body["reason"]
    assert "lost_provenance" not in body


async def test_only_the_full_report_asks_for_artifacts(
    client: httpx.AsyncClient, registry: ReplayRegistry
) -> None:
    # Health (and trees, history, compare) need no Scorecard or @types lookups: none moves the score.
    assert (await client.get("/api/health/npm/scorecard-demo")).status_code == 200
    assert not any(h.startswith(("/scorecard", "/npm/@types")) for h in registry.hits)
    assert (await client.get("/api/check/npm/scorecard-demo")).status_code == 200
    assert any(h.startswith("/scorecard") for h in registry.hits)
    assert any(h.startswith("/npm/@types") for h in registry.hits)
