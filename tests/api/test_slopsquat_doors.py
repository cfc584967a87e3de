"""
Slopsquats in every door: a name language models were reported to invent, or one our own usage log
recorded as asked for while it did not exist, that is registered afterwards is flagged with the
evidence and the registration date, by `/api/typosquat`, `/api/check` (the report) and
`/api/check_bulk` alike (the MCP twins are in `tests/mcp/test_mcp_slopsquat.py`).
"""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.slopsquats import hallucinated
from pkgintel.runtime.container import Runtime
from tests.bodies import npm_packument
from tests.fake_registry import ReplayRegistry

AGENT = {"User-Agent": "claude-code/1.0"}
POPULAR = [
    NameEntry(Ecosystem.NPM, "jscodeshift", "jscodeshift", monthly_downloads=30_000_000),
    NameEntry(Ecosystem.NPM, "react", "react", monthly_downloads=300_000_000),
]


async def _bulk(client: httpx.AsyncClient, package: str) -> dict[str, object]:
    resp = await client.post(
        "/api/check_bulk", json={"items": [{"ecosystem": "npm", "package": package}]}
    )
    assert resp.status_code == 200, resp.text
    (result,) = resp.json()["results"]
    return dict(result)


async def test_a_reported_llm_invented_name_is_a_slopsquat_in_every_door(
    client: httpx.AsyncClient, runtime: Runtime, registry: ReplayRegistry
) -> None:
    listed = hallucinated(Ecosystem.NPM, "react-codeshift")
    assert listed is not None and listed.reported_in == "2026-01"
    registry.add(
        "https://registry.npmjs.org/react-codeshift",
        npm_packument("react-codeshift", {"0.0.1": "2026-02-14T09:00:00.000Z"}),
    )
    await runtime.names.ingest(
        Ecosystem.NPM,
        [*POPULAR, NameEntry(Ecosystem.NPM, "react-codeshift", "react-codeshift")],
        source="names",
    )
    # /api/typosquat: database only, so the registration date is unknown there.
    body = (await client.get("/api/typosquat/npm/react-codeshift")).json()
    slop = body["slopsquat"]
    assert body["is_suspected"] is True and slop["basis"] == "report"
    assert slop["source"] == listed.source and listed.source in slop["evidence"]
    assert "2026-01" in slop["evidence"] and slop["registered_on"] == "unknown"
    # The report reads the first release from the registry's metadata.
    report = await client.get("/api/check/npm/react-codeshift")
    assert report.status_code == 200, report.text
    slop = report.json()["typosquat"]["slopsquat"]
    assert slop["registered"] is True and slop["registered_on"] == "2026-02-14"
    assert slop["registered_after_report"] is True and slop["source"] == listed.source
    assert report.json()["typosquat"]["is_suspected"] is True
    # check_bulk: the same evidence object, not a bare flag.
    result = await _bulk(client, "react-codeshift")
    assert result["status"] == "typosquat_suspect"
    assert isinstance(result["slopsquat"], dict) and result["slopsquat"]["source"] == listed.source


async def test_a_name_first_asked_while_unknown_is_a_slopsquat_once_registered(
    client: httpx.AsyncClient, runtime: Runtime, registry: ReplayRegistry
) -> None:
    await runtime.names.ingest(Ecosystem.NPM, POPULAR, source="names")
    asked = await client.get("/api/exists/npm/react-slop-helper", headers=AGENT)
    assert asked.json()["exists"] is False
    # Not registered yet: the hallucination corpus's business, never a slopsquat.
    body = (await client.get("/api/typosquat/npm/react-slop-helper")).json()
    assert body["slopsquat"] is None and body["is_suspected"] is False
    registry.add(
        "https://registry.npmjs.org/react-slop-helper",
        npm_packument("react-slop-helper", {"1.0.0": "2026-11-25T08:00:00.000Z"}),
    )
    await runtime.names.ingest(
        Ecosystem.NPM,
        [*POPULAR, NameEntry(Ecosystem.NPM, "react-slop-helper", "react-slop-helper")],
        source="names",
    )
    body = (await client.get("/api/typosquat/npm/react-slop-helper")).json()
    slop = body["slopsquat"]
    assert body["is_suspected"] is True and slop["basis"] == "usage_log"
    assert (
        slop["first_asked"] == "2026-11-22" and "first asked for on 2026-11-22" in slop["evidence"]
    )
    assert slop["registered_on"] == "unknown" and slop["reported_as_llm_invented"] is False
    report = (await client.get("/api/check/npm/react-slop-helper")).json()["typosquat"]
    assert report["is_suspected"] is True
    assert report["slopsquat"]["registered_on"] == "2026-11-25"
    assert report["slopsquat"]["registered_after_report"] is True
    result = await _bulk(client, "react-slop-helper")
    assert result["status"] == "typosquat_suspect"
    assert result["slopsquat"]["basis"] == "usage_log"  # type: ignore[index]


async def test_a_name_released_before_it_was_first_asked_is_no_slopsquat(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    """`tiny-lib` was first released in 2024: asked for as unknown in 2026, it only means our
    index missed it, and the report (which reads the release dates) does not call it a slopsquat."""
    await runtime.names.ingest(Ecosystem.NPM, POPULAR, source="names")
    await client.get("/api/exists/npm/tiny-lib", headers=AGENT)
    await runtime.names.ingest(
        Ecosystem.NPM,
        [*POPULAR, NameEntry(Ecosystem.NPM, "tiny-lib", "tiny-lib")],
        source="names",
    )
    report = (await client.get("/api/check/npm/tiny-lib")).json()["typosquat"]
    assert report["slopsquat"] is None


async def test_first_asked_keeps_the_earliest_time_and_reads_history_once_per_interval() -> None:
    from pkgintel.services.names.first_asked import FirstAsked

    now = [0.0]
    reads: list[int] = []
    early = datetime(2026, 1, 5, tzinfo=UTC)

    async def history() -> dict[tuple[str, str], datetime]:
        reads.append(1)
        return {("npm", "from-history"): early}

    asked = FirstAsked(ttl_s=600, clock=lambda: now[0])
    asked.note("npm", "noted", datetime(2026, 3, 1, tzinfo=UTC))
    asked.note("npm", "noted", datetime(2026, 2, 1, tzinfo=UTC))
    asked.attach(history)
    assert await asked.get("npm", "noted") == datetime(2026, 2, 1, tzinfo=UTC)
    assert await asked.get("npm", "from-history") == early
    assert await asked.get("pypi", "from-history") is None
    assert len(reads) == 1  # one read for three lookups
    now[0] = 601.0
    await asked.get("npm", "noted")
    assert len(reads) == 2
