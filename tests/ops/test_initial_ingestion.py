"""
First start on an empty database: the app's lifespan starts the embedded worker, which loads the
name lists, OSV exports, KEV and EPSS (local files here: no network) with progress in `/api/status`;
a second start does not queue it again; `initial_ingest=False` (air-gapped installs) never does.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx

from pkgintel.app import create_app
from pkgintel.config import Settings
from tests.osv_records import malicious, record, write_export

KEV = {
    "catalogVersion": "2026.11.20",
    "dateReleased": "2026-11-20T15:00:00.000Z",
    "vulnerabilities": [
        {
            "cveID": "CVE-2026-0001",
            "vendorProject": "Acme",
            "product": "Widget",
            "vulnerabilityName": "Acme Widget injection",
            "dateAdded": "2026-11-01",
            "dueDate": "2026-11-22",
            "knownRansomwareCampaignUse": "Unknown",
        }
    ],
}
EPSS = "#model_version:v2025.03.14,score_date:2026-11-20T00:00:00+0000\ncve,epss,percentile\nCVE-2026-0001,0.91,0.99\n"


def _sources(tmp_path: Path, settings: Settings, **extra: object) -> Settings:
    osv = tmp_path / "osv"
    write_export(
        osv,
        "npm",
        [
            record("GHSA-aaaa-bbbb-cccc", "npm", "left-pad", aliases=["CVE-2026-0001"]),
            malicious("MAL-2026-1", "npm", "evil-pkg"),
        ],
    )
    names = tmp_path / "npm.tsv"
    names.write_text("name\tversion\tdownloads_a_month\tsummary\nleft-pad\t1.3.0\t100\tpads\n")
    (tmp_path / "kev.json").write_text(json.dumps(KEV))
    (tmp_path / "epss.csv").write_text(EPSS)
    return settings.model_copy(
        update={
            "upstream_osv_export_url": str(osv),
            "osv_ecosystems": ["npm", "PyPI"],
            "name_lists": {"npm": str(names)},
            "upstream_kev_url": str(tmp_path / "kev.json"),
            "upstream_epss_url": str(tmp_path / "epss.csv"),
            "job_poll_s": 0.05,
            "worker_embedded": True,
            "initial_ingest": True,
            "curator_enabled": False,
            "cron_schedules": {},
            **extra,
        }
    )


async def _status_until_done(app: object, timeout: float = 30.0) -> dict[str, object]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://test",  # type: ignore[arg-type]
    ) as c:
        deadline = time.monotonic() + timeout
        seen_steps = set()
        while True:
            body = (await c.get("/api/status")).json()
            state = body["jobs"]["initial_ingestion"]
            if state and state["progress"]:
                seen_steps.add(state["progress"]["step"])
            if state and state["status"] in ("succeeded", "partial", "failed"):
                return {**state, "steps": seen_steps}
            assert time.monotonic() < deadline, body
            await asyncio.sleep(0.05)


async def test_first_start_ingests_everything_in_the_background(
    settings: Settings, tmp_path: Path
) -> None:
    app = create_app(_sources(tmp_path, settings))
    async with app.router.lifespan_context(app):
        state = await _status_until_done(app)
        assert state["status"] == "succeeded", state
        assert state["failed_feeds"] == [] and state["retry"] is None
        assert state["feed_counts"] == {"loaded": 4, "failed": 0, "skipped": 1}
        runtime = app.state.runtime
        assert [s.ecosystem.value for s in await runtime.names.index_states()] == ["npm"]
        summary = await runtime.advisories.summary()
        assert summary["ecosystems"]["npm"]["advisory_records"] == 1
        assert summary["ecosystems"]["npm"]["malicious_records"] == 1
        log = [e.data.get("line", "") for e in await runtime.ops.queue.events(state["job_id"])]
        assert any("PyPI: no export" in line for line in log)  # what is missing is said
        assert any(line.startswith("kev: ") for line in log)
        assert any(line.startswith("epss: ") for line in log)
    # A second start finds data: nothing is queued again.
    again = create_app(_sources(tmp_path, settings))
    async with again.router.lifespan_context(again):
        jobs = await again.state.runtime.ops.queue.list(kind="initial-ingestion")
        assert len(jobs) == 1


async def test_initial_ingestion_off_queues_nothing(settings: Settings, tmp_path: Path) -> None:
    app = create_app(_sources(tmp_path, settings, initial_ingest=False))
    async with app.router.lifespan_context(app):
        await asyncio.sleep(0.3)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as c:
            body = (await c.get("/api/status")).json()
        assert body["jobs"]["queue"] == {} and body["jobs"]["initial_ingestion"] is None, body
        assert body["jobs"]["ingestion"]["status"] is None  # nothing ran: no outcome claimed
