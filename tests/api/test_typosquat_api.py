"""
`/api/typosquat` and the report's `typosquat` field on hand-made name indexes: the unavailable
answers (no index, no popularity data), slopsquats, bad input, the popularity gap in a report.
"""

from __future__ import annotations

import httpx
import pytest

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem, PackageInfo
from pkgintel.knowledge.slopsquats import all_hallucinated, hallucinated
from pkgintel.runtime.container import Runtime


async def test_no_name_index_is_unavailable_not_an_error(client: httpx.AsyncClient) -> None:
    resp = await client.get("/api/typosquat/npm/lodahs")
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["is_suspected"] is None and body["checked"] is False
    assert body["status"] == "unavailable" and "no npm name index is loaded" in body["reason"]
    assert body["exists"] is None
    (source,) = body["_meta"]["sources"]
    assert source["status"] == "unavailable" and source["kind"] == "name_index"


async def test_an_index_without_popularity_cannot_tell_the_original(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await runtime.names.ingest(
        Ecosystem.RUBYGEMS,
        [NameEntry(Ecosystem.RUBYGEMS, n, n) for n in ("rails", "rake", "nokogiri")],
        source="names",
    )
    body = (await client.get("/api/typosquat/rubygems/nokogiri2")).json()
    assert body["is_suspected"] is None and body["status"] == "unavailable"
    assert "no popularity data" in body["reason"]
    assert body["_meta"]["sources"][0]["status"] == "ok"  # the index is there; popularity is not


async def test_bad_names_are_422(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/typosquat/pypi/bad name!")).status_code == 422
    assert (await client.get("/api/typosquat/cobol/x")).status_code == 422


async def test_suspects_carry_technique_distance_and_popularity_delta(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    await runtime.names.ingest(
        Ecosystem.NPM,
        [
            NameEntry(Ecosystem.NPM, "lodash", "lodash", monthly_downloads=300_000_000),
            NameEntry(Ecosystem.NPM, "lodahs", "lodahs", monthly_downloads=900),
            NameEntry(Ecosystem.NPM, "lodash-js", "lodash-js", monthly_downloads=60_000_000),
        ],
        source="names",
    )
    body = (await client.get("/api/typosquat/npm/lodahs")).json()
    assert body["is_suspected"] is True and body["exists"] is True
    (target,) = [t for t in body["targets"] if t["suspected"]]
    assert target["name"] == "lodash" and target["technique"] == "transposition"
    assert target["edit_distance"] == 1
    assert target["popularity_delta"] == {"ratio": 333333.3, "basis": "downloads"}
    assert body["suspect_popularity"] == "900 downloads a month"
    # lodash-js is lodash with a suffix, but only 5 times less popular: never its suspect.
    body = (await client.get("/api/typosquat/npm/lodash-js")).json()
    assert body["is_suspected"] is False
    assert body["targets"][0]["name"] == "lodash" and not body["targets"][0]["suspected"]


async def test_the_report_uses_registry_downloads_for_the_gap(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    # tiny-lib has 250,000 downloads a week on the registry (about 1.09 million a month, so
    # established): a name one edit away must be at least 1,000 times as popular to make it a
    # suspect. The report takes the downloads from the registry, not from the index.
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "tiny-lid", "tiny-lid", monthly_downloads=5_000_000_000)],
        source="names",
    )
    squat = (await client.get("/api/check/npm/tiny-lib")).json()["typosquat"]
    assert squat["is_suspected"] is True and squat["established"] is not None
    (target,) = squat["targets"]
    assert target["name"] == "tiny-lid" and target["technique"] == "substitution"
    assert target["popularity_delta"]["basis"] == "downloads"
    assert target["popularity_delta"]["ratio"] > 1000

    # The same shape against a target only ~90 times as popular: not a suspect.
    await runtime.names.ingest(
        Ecosystem.NPM,
        [
            NameEntry(Ecosystem.NPM, "tiny-lid", "tiny-lid", monthly_downloads=100_000_000),
            NameEntry(Ecosystem.NPM, "tiny-lib", "tiny-lib", monthly_downloads=1_088_000),
        ],
        source="names",
    )
    body = (await client.get("/api/typosquat/npm/tiny-lib")).json()
    assert body["is_suspected"] is False and body["established"] is not None
    assert not body["targets"][0]["suspected"]


async def test_registered_llm_invented_names_are_flagged_as_slopsquats(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    assert all(e.source.startswith("https://") for e in all_hallucinated())
    listed = hallucinated(Ecosystem.PYPI, "HuggingFace_CLI")
    assert listed is not None and listed.meant == "huggingface-hub"
    await runtime.names.ingest(
        Ecosystem.PYPI,
        [
            NameEntry(Ecosystem.PYPI, "huggingface-hub", "huggingface-hub", popularity_rank=40),
            NameEntry(Ecosystem.PYPI, "huggingface-cli", "huggingface-cli"),
        ],
        source="names",
    )
    body = (await client.get("/api/typosquat/pypi/huggingface-cli")).json()
    assert body["is_suspected"] is True
    slop = body["slopsquat"]
    assert slop["registered"] is True and slop["source"] == listed.source
    assert "invent" in body["reason"]
    # Listed but not registered: reported, never suspected on that ground.
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "jscodeshift", "jscodeshift", monthly_downloads=30_000_000)],
        source="names",
    )
    body = (await client.get("/api/typosquat/npm/react-codeshift")).json()
    assert body["slopsquat"]["registered"] is False
    assert body["is_suspected"] is False
    assert "not registered" in body["reason"]


async def test_check_bulk_marks_slopsquats(client: httpx.AsyncClient, runtime: Runtime) -> None:
    await runtime.names.ingest(
        Ecosystem.PYPI,
        [
            NameEntry(Ecosystem.PYPI, "requests", "requests", popularity_rank=4),
            NameEntry(Ecosystem.PYPI, "huggingface-cli", "huggingface-cli"),
        ],
        source="names",
    )
    resp = await client.post(
        "/api/check_bulk",
        json={"items": [{"ecosystem": "pypi", "package": "huggingface-cli"}]},
    )
    (result,) = resp.json()["results"]
    assert result["status"] == "typosquat_suspect"
    # The evidence object of every door (it was a bare `true` before).
    slop = result["slopsquat"]
    assert slop["basis"] == "report" and slop["source"].startswith("https://")
    assert slop["registered"] is True and slop["registered_on"] == "unknown"


async def test_a_live_sighting_does_not_clear_a_suspect(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    """A name seen by a live report joins the index without popularity: that proves it exists,
    not that it is far less suspicious, so `check_bulk` keeps flagging it."""
    await runtime.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "lodash", "lodash", monthly_downloads=300_000_000)],
        source="names",
    )
    await runtime.names.record_seen(PackageInfo(Ecosystem.NPM, "lodahs", "1.0.0"), None)
    assert (await client.get("/api/exists/npm/lodahs")).json()["exists"] is True
    resp = await client.post(
        "/api/check_bulk", json={"items": [{"ecosystem": "npm", "package": "lodahs"}]}
    )
    assert resp.json()["results"][0]["status"] == "typosquat_suspect"


async def test_a_target_outside_the_popular_pool_says_so(
    client: httpx.AsyncClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pkgintel.services.names import pools as pools_module

    monkeypatch.setattr(pools_module, "POPULAR_POOL", 1)
    await runtime.names.ingest(
        Ecosystem.NPM,
        [
            NameEntry(Ecosystem.NPM, "lodash", "lodash", monthly_downloads=300_000_000),
            NameEntry(
                Ecosystem.NPM,
                "node-hide-console-window",
                "node-hide-console-window",
                monthly_downloads=1_867,
            ),
        ],
        source="names",
    )
    body = (await client.get("/api/typosquat/npm/node-hide-console-windows")).json()
    assert body["is_suspected"] is True and body["exists"] is False
    (target,) = body["targets"]
    assert target["name"] == "node-hide-console-window"
    assert target["outside_pool"] is True and target["suspected"] is True
    body = (await client.get("/api/typosquat/npm/lodahs")).json()
    assert body["targets"][0]["outside_pool"] is False
