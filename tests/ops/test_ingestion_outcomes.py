"""
Ingestion runs tell what they did, feed by feed (issue 27, item 1): a first start where every feed is
unreachable (each on its own host, behind an `httpx.MockTransport`) ends `failed`, one where some
feeds load ends `partial`; `/api/status`, `/api/health`, the admin jobs list and the cron list say
so with each failed feed and why; each failure is logged at WARNING; the failed feeds, and only
those, are retried on a backoff until they load.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.operations.ingestion import IngestReport
from pkgintel.domain.operations.ops import Job, JobStatus
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.worker_host import maybe_initial_ingestion
from pkgintel.services.advisories.ingest_status import INGEST_RETRY
from pkgintel.services.operations.jobs import Worker
from pkgintel.services.operations.ops import INITIAL_INGESTION, Ops
from tests.ops.test_initial_ingestion import EPSS, KEV
from tests.osv_records import record, write_export

OSV = "http://osv-exports.test"
KEV_URL = "http://kev.test/feeds/kev.json"
EPSS_URL = "http://epss.test/epss_scores-current.csv.gz"
NAMES_URL = "http://names.test/simple/"
TOKEN = "ingest-admin"
EVERY_HOST = {"osv-exports.test", "kev.test", "epss.test", "names.test"}


@dataclass
class Upstream:
    """Answers from `bodies` by URL; a host in `down` refuses the connection; 503 for the rest."""

    bodies: dict[str, bytes] = field(default_factory=dict)
    down: set[str] = field(default_factory=set)
    seen: list[httpx.URL] = field(default_factory=list)

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request.url)
        if request.url.host in self.down:
            raise httpx.ConnectError("connection refused", request=request)
        body = self.bodies.get(str(request.url))
        if body is None:
            return httpx.Response(503, text="unavailable")
        return httpx.Response(200, content=body)

    def hits(self, host: str) -> int:
        return sum(1 for u in self.seen if u.host == host)


@pytest.fixture
def upstream() -> Upstream:
    return Upstream()


def _settings(settings: Settings, **extra: Any) -> Settings:
    return settings.model_copy(
        update={
            "upstream_osv_export_url": OSV,
            "upstream_kev_url": KEV_URL,
            "upstream_epss_url": EPSS_URL,
            "name_lists": {"pypi": NAMES_URL},
            "initial_ingest": True,
            "worker_embedded": False,
            "curator_enabled": False,
            "cron_schedules": {},
            "admin_token": TOKEN,
            **extra,
        }
    )


def _serve_feeds(upstream: Upstream, tmp_path: Path) -> None:
    """npm's OSV export and EPSS answer; everything else is a 503 unless a test changes it."""
    npm = write_export(tmp_path / "osv", "npm", [record("GHSA-1111-2222-3333", "npm", "left-pad")])
    upstream.bodies[f"{OSV}/npm/all.zip"] = npm.read_bytes()
    upstream.bodies[EPSS_URL] = gzip.compress(EPSS.encode())


@asynccontextmanager
async def _runtime(settings: Settings, upstream: Upstream) -> AsyncIterator[tuple[Runtime, Ops]]:
    async with build_runtime(settings, transport=httpx.MockTransport(upstream.handler)) as rt:
        assert rt.ops is not None and rt.ops.ingestion is not None
        yield rt, rt.ops


def _worker(ops: Ops, *kinds: str) -> Worker:
    return Worker(ops.queue, kinds=list(kinds), heartbeat_s=0.1, poll_s=0.05, lease_s=30)


async def _first_start(settings: Settings, runtime: Runtime) -> Job:
    assert await maybe_initial_ingestion(settings, runtime) is not None
    assert runtime.ops is not None
    job = await _worker(runtime.ops, INITIAL_INGESTION).run_one()
    assert job is not None and job.kind == INITIAL_INGESTION
    return job


async def _get(settings: Settings, runtime: Runtime, path: str) -> dict[str, Any]:
    app = create_app(settings, runtime=runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://test",
        headers={"Authorization": f"Bearer {TOKEN}"},
    ) as c:
        resp = await c.get(path)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


async def _retries(ops: Ops, status: str | None = None) -> list[Job]:
    return await ops.queue.list(kind=INGEST_RETRY, status=status)


async def _run_when_due(ops: Ops, timeout: float = 15.0) -> Job:
    """Run the next retry as soon as it is due (it is not claimed before)."""
    worker = _worker(ops, INGEST_RETRY)
    deadline = asyncio.get_running_loop().time() + timeout
    while (job := await worker.run_one()) is None:
        assert asyncio.get_running_loop().time() < deadline, "no retry became due"
        await asyncio.sleep(0.05)
    return job


async def test_offline_first_start_fails_and_says_every_feed(
    settings: Settings, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = _settings(settings)
    upstream.down = set(EVERY_HOST)
    feeds = {"names:pypi", "kev", "epss", *(f"osv:{e}" for e in cfg.osv_ecosystems)}
    assert len(feeds) == 17  # 14 OSV exports, KEV, EPSS and the PyPI name list
    caplog.set_level(logging.INFO)
    async with _runtime(cfg, upstream) as (rt, _):
        job = await _first_start(cfg, rt)
        assert job.status is JobStatus.FAILED, job
        assert job.result is not None and job.result["outcome"] == "failed"
        assert {f["feed"] for f in job.result["failed_feeds"]} == feeds
        assert job.error is not None and job.error.startswith("0 loaded, 17 failed")

        status = await _get(cfg, rt, "/api/status")
        first = status["jobs"]["initial_ingestion"]
        assert first["status"] == "failed" and first["error"] == job.error
        assert first["feed_counts"] == {"loaded": 0, "failed": 17, "skipped": 0}
        reasons = {f["feed"]: f["reason"] for f in first["failed_feeds"]}
        assert set(reasons) == feeds
        assert reasons["kev"] == f"{KEV_URL}: download failed (ConnectError)"
        assert all("download failed" in why for why in reasons.values()), reasons
        assert first["retry"]["attempt"] == 1 and set(first["retry"]["feeds"]) == feeds
        state = status["jobs"]["ingestion"]
        assert state["status"] == "failed"
        assert {f["feed"] for f in state["failed_feeds"]} == feeds
        assert state["next_retry"]["attempt"] == 1
        assert state["runs"][INITIAL_INGESTION]["outcome"] == "failed"

        health = await _get(cfg, rt, "/api/health")
        assert health["status"] == "degraded" and health["ready"] is True
        assert health["subsystems"]["database"] == "ok"
        assert health["subsystems"]["ingestion"].startswith("error: 17 feeds failed to load: ")
        assert health["subsystems"]["ingestion"].endswith(", kev, epss")
        assert health["ingestion"]["status"] == "failed"
        assert {f["feed"]: f["reason"] for f in health["ingestion"]["failed_feeds"]} == reasons

    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    for feed in feeds:  # one line per failed feed, without a traceback
        lines = [r for r in warnings if f"): {feed}: failed: " in r.getMessage()]
        assert len(lines) == 1, (feed, [r.getMessage() for r in warnings])
        assert lines[0].exc_info is None
    assert any("): failed: 0 loaded, 17 failed" in r.getMessage() for r in warnings)


async def test_partial_first_start_and_scheduled_run_are_partial_in_every_door(
    settings: Settings, upstream: Upstream, tmp_path: Path
) -> None:
    names = tmp_path / "npm.tsv"
    names.write_text("name\tversion\tdownloads_a_month\tsummary\nleft-pad\t1.3.0\t100\tpads\n")
    cfg = _settings(settings, osv_ecosystems=["npm", "PyPI"], name_lists={"npm": str(names)})
    _serve_feeds(upstream, tmp_path)
    upstream.down = {"kev.test"}
    async with _runtime(cfg, upstream) as (rt, ops):
        job = await _first_start(cfg, rt)
        assert job.status is JobStatus.PARTIAL, job
        assert job.result is not None
        assert [f["feed"] for f in job.result["failed_feeds"]] == ["osv:PyPI", "kev"]
        assert job.result["counts"] == {"loaded": 3, "failed": 2, "skipped": 0}
        loaded = {f["feed"]: f for f in job.result["feeds"] if f["status"] == "loaded"}
        assert set(loaded) == {"names:npm", "osv:npm", "epss"} and loaded["osv:npm"]["records"] == 1
        summary = await rt.advisories.summary()
        assert summary["ecosystems"]["npm"]["advisory_records"] == 1  # what loaded is kept

        status = await _get(cfg, rt, "/api/status")
        first = status["jobs"]["initial_ingestion"]
        assert first["status"] == "partial"
        assert first["failed_feeds"] == [
            {"feed": "osv:PyPI", "reason": f"{OSV}/PyPI/all.zip: HTTP 503"},
            {"feed": "kev", "reason": f"{KEV_URL}: download failed (ConnectError)"},
        ]
        assert status["jobs"]["ingestion"]["status"] == "partial"
        assert status["jobs"]["queue"] == {"partial": 1, "queued": 1}  # the run and its retry

        listed = await _get(cfg, rt, f"/api/admin/jobs?kind={INITIAL_INGESTION}")
        assert [j["status"] for j in listed["jobs"]] == ["partial"]
        assert listed["jobs"][0]["result"]["failed_feeds"][1]["feed"] == "kev"
        assert len((await _get(cfg, rt, "/api/admin/jobs?status=partial"))["jobs"]) == 1

        # A scheduled run: one OSV export still fails, so it is partial too, in the cron list.
        scheduled = await ops.cron.run("ingest-advisories")
        done = await _worker(ops, "ingest-advisories").run_one()
        assert done is not None and done.id == scheduled.id
        assert done.status is JobStatus.PARTIAL
        assert done.error == "1 loaded, 1 failed, 0 skipped of 2 feeds; failed: osv:PyPI"
        cron = {c["slug"]: c for c in (await _get(cfg, rt, "/api/admin/cron/list"))["jobs"]}
        assert cron["ingest-advisories"]["last_status"] == "partial"
        state = (await _get(cfg, rt, "/api/status"))["jobs"]["ingestion"]
        assert state["runs"]["ingest-advisories"]["outcome"] == "partial"
        assert [f["feed"] for f in state["failed_feeds"]] == ["osv:PyPI", "kev"]
        # A retry was already waiting: it takes every failing feed, no second one is queued.
        assert len(await _retries(ops)) == 1


async def test_failed_feeds_are_retried_on_a_backoff_until_they_load(
    settings: Settings, upstream: Upstream, tmp_path: Path
) -> None:
    cfg = _settings(
        settings,
        osv_ecosystems=["npm"],
        name_lists={},
        ingest_retry_base_s=0.3,
        ingest_retry_max_s=0.5,
    )
    _serve_feeds(upstream, tmp_path)
    upstream.down = {"kev.test"}
    async with _runtime(cfg, upstream) as (rt, ops):
        assert ops.ingestion is not None
        first = await _first_start(cfg, rt)
        assert first.status is JobStatus.PARTIAL
        [retry] = await _retries(ops, "queued")
        assert retry.payload == {
            "feeds": ["kev"],
            "attempt": 1,
            "chain": first.id,
            "after": first.id,
        }
        assert retry.scheduled_for is not None
        assert (retry.scheduled_for - retry.created_at).total_seconds() == pytest.approx(0.3)

        # Still offline: the retry fails, the next one waits twice as long (capped).
        r1 = await _run_when_due(ops)
        assert r1.id == retry.id and r1.status is JobStatus.FAILED
        assert r1.result is not None and r1.result["failed_feeds"][0]["feed"] == "kev"
        [r2] = await _retries(ops, "queued")
        assert r2.payload["attempt"] == 2 and r2.payload["chain"] == first.id
        assert r2.scheduled_for is not None
        assert (r2.scheduled_for - r2.created_at).total_seconds() == pytest.approx(0.5)
        # Asked again for the same step of the chain: nothing more is queued.
        again = IngestReport()
        again.failed("kev", KEV_URL, "still down")
        assert await ops.ingestion.schedule_retry(r1, again) is None
        assert len(await _retries(ops, "queued")) == 1

        # The network is back: the next retry loads KEV, and the chain stops.
        upstream.down.clear()
        upstream.bodies[KEV_URL] = json.dumps(KEV).encode()
        r2_done = await _run_when_due(ops)
        assert r2_done.id == r2.id and r2_done.status is JobStatus.SUCCEEDED, r2_done
        assert await _retries(ops, "queued") == []
        assert await ops.ingestion.failing() == []
        # Only what failed was fetched again.
        assert upstream.hits("kev.test") == 3
        assert upstream.hits("epss.test") == 1 and upstream.hits("osv-exports.test") == 1

        status = (await _get(cfg, rt, "/api/status"))["jobs"]
        assert status["ingestion"]["status"] == "ok"
        assert (
            status["ingestion"]["failed_feeds"] == [] and status["ingestion"]["next_retry"] is None
        )
        kev = {f["feed"]: f for f in status["ingestion"]["feeds"]}["kev"]
        assert kev["status"] == "loaded" and kev["job_id"] == r2.id
        health = await _get(cfg, rt, "/api/health")
        assert health["status"] == "ok" and health["subsystems"]["ingestion"] == "ok"


async def test_retries_stop_at_the_limit_and_can_be_switched_off(
    settings: Settings, upstream: Upstream
) -> None:
    cfg = _settings(settings, osv_ecosystems=[], name_lists={}, ingest_retry_limit=0)
    upstream.down = set(EVERY_HOST)
    async with _runtime(cfg, upstream) as (rt, ops):
        job = await _first_start(cfg, rt)
        assert job.status is JobStatus.FAILED
        assert await _retries(ops) == []  # retries off
        assert (await _get(cfg, rt, "/api/status"))["jobs"]["ingestion"]["status"] == "failed"


async def test_a_queued_job_is_not_claimed_before_it_is_due(
    settings: Settings, upstream: Upstream
) -> None:
    cfg = _settings(settings)
    async with _runtime(cfg, upstream) as (_, ops):
        now = ops.queue.now()
        later = await ops.queue.enqueue(
            "usage-retention", scheduled_for=now.replace(year=now.year + 1)
        )
        assert later is not None
        assert await _worker(ops, "usage-retention").run_one() is None
        due = await ops.queue.enqueue("usage-retention", scheduled_for=now)
        assert due is not None
        ran = await _worker(ops, "usage-retention").run_one()
        assert ran is not None and ran.id == due.id
