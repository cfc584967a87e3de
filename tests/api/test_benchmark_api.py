"""The hallucination benchmark: the corpus built from our usage log, verification, loaded results."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime

AGENT = {"User-Agent": "claude-code/1.0"}
NAMES = ("express", "lodash", "left-pad", "react")


async def _index(runtime: Runtime, *names: str) -> None:
    entries = [NameEntry(Ecosystem.NPM, n, n, latest_version="1.0.0") for n in names]
    await runtime.names.ingest(Ecosystem.NPM, entries, source="test")


async def test_a_name_asked_three_times_that_does_not_exist_is_in_the_corpus_and_hallucinated(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await _index(runtime, *NAMES)
    for _ in range(3):
        resp = await client.get("/api/exists/npm/expresss-validatorz", headers=AGENT)
        assert resp.json()["exists"] is False
    await client.get("/api/exists/npm/lodahs", headers=AGENT)
    await client.get("/api/exists/npm/express", headers=AGENT)  # real: never in the corpus
    corpus = await client.get("/api/benchmark/hallucinations", params={"ecosystem": "npm"})
    assert corpus.status_code == 200, corpus.text
    body = corpus.json()
    assert body["license"] == "CC-BY-NC-SA-4.0" and "non-commercial" in body["notice"]
    assert [(e["package"], e["hit_count"]) for e in body["entries"]] == [
        ("expresss-validatorz", 3),
        ("lodahs", 1),
    ]
    assert body["entries"][1]["nearest_real_name"] == "lodash"
    assert body["entries"][0]["registered_since"] is False
    verify = await client.get(
        "/api/benchmark/verify", params={"ecosystem": "npm", "package": "expresss-validatorz"}
    )
    assert verify.status_code == 200, verify.text
    v = verify.json()
    assert v["is_hallucinated"] is True and v["in_corpus"] is True and v["in_registry"] is False
    assert v["verdict"] == "hallucinated" and "3 time(s)" in v["evidence"]
    real = (
        await client.get("/api/benchmark/verify", params={"ecosystem": "npm", "package": "express"})
    ).json()
    assert real["is_hallucinated"] is False and real["in_registry"] is True
    assert real["verdict"] == "real" and real["likely_real_alternative"] is None


async def test_a_name_registered_after_agents_asked_for_it_is_flagged(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await _index(runtime, *NAMES)
    await client.get("/api/exists/npm/react-slop-helper", headers=AGENT)
    await _index(runtime, *NAMES, "react-slop-helper")
    [entry] = (await client.get("/api/benchmark/hallucinations")).json()["entries"]
    assert entry["package"] == "react-slop-helper" and entry["registered_since"] is True
    v = (
        await client.get(
            "/api/benchmark/verify", params={"ecosystem": "npm", "package": "react-slop-helper"}
        )
    ).json()
    assert v["is_hallucinated"] is False and v["verdict"] == "registered_after_hallucination"


@pytest.mark.parametrize("limit", [0, 201])
async def test_limit_outside_1_to_200_is_422(client: httpx.AsyncClient, limit: int) -> None:
    resp = await client.get("/api/benchmark/hallucinations", params={"limit": limit})
    assert resp.status_code == 422


async def test_verify_refuses_an_unknown_ecosystem(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/benchmark/verify", params={"ecosystem": "bower", "package": "x"})
    assert resp.status_code == 422 and "ecosystem" in resp.text


async def test_results_are_empty_with_an_explanation_until_loaded_then_hit_rates(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    empty = (await client.get("/api/benchmark/results")).json()
    assert empty["results"] == [] and "pkgintel benchmark load" in empty["explanation"]
    from pkgintel.cli.benchmark import load_file

    path = tmp_path / "run.json"
    path.write_text(
        json.dumps(
            {
                "run": "2026-11",
                "date": "2026-11-20",
                "results": [
                    {"model": "m1", "condition": "no-tools", "trials": 200, "hallucinated": 37},
                    {"model": "m1", "condition": "with-pkgintel", "trials": 200, "hallucinated": 2},
                ],
            }
        )
    )
    assert await load_file(runtime, path) == 2
    body = (await client.get("/api/benchmark/results")).json()
    assert body["run"] == "2026-11" and body["date"] == "2026-11-20"
    assert [(r["condition"], r["hit_rate"]) for r in body["results"]] == [
        ("no-tools", 0.185),
        ("with-pkgintel", 0.01),
    ]
