"""`pkgintel doctor`'s checks (through `bootstrap.open_doctor`, as the CLI runs them): a fresh install
names the unreachable upstreams and the missing data; a healthy one has nothing failing; stale data,
stuck and failed jobs, a missing SQLite file and an unreachable Redis are named with what to do."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from pkgintel.config import Settings
from pkgintel.domain.names.rules import NameIndexState
from pkgintel.domain.operations.doctor import DoctorReport, Finding, Probe, Status
from pkgintel.domain.operations.ingestion import IngestReport
from pkgintel.domain.operations.ops import JobStatus
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.bootstrap import open_doctor
from pkgintel.runtime.doctor_wiring import OPTIONAL_UPSTREAMS, upstream_targets
from pkgintel.runtime.tasks import configured_feeds
from pkgintel.services.advisories.ingest_status import IngestionTracker
from pkgintel.services.operations.doctor import UpstreamTarget, partial_failures, upstream_finding
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.migrate import head_revision, upgrade
from pkgintel.storage.ops import SqlOpsStore
from pkgintel.storage.sql import SqlStore, create_engine

NAME_LIST = "https://mirror.test/simple/"


def doctor_settings(tmp_path: Path, **extra: Any) -> Settings:
    """Default upstream URLs (every request goes to the test's MockTransport), two OSV ecosystems."""
    values: dict[str, Any] = {
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'pkgintel.db'}",
        "osv_ecosystems": ["PyPI", "npm"],
        "name_lists": {"pypi": NAME_LIST},
        **extra,
    }
    return Settings(_env_file=None, **values)


async def migrate(settings: Settings) -> None:
    engine = create_engine(settings.database_url)
    await upgrade(engine)
    await engine.dispose()


def by_check(report: DoctorReport) -> dict[str, Finding]:
    return {f.check: f for f in report.findings}


async def run(settings: Settings, handler: Any) -> tuple[DoctorReport, list[str]]:
    """Run the doctor with `handler` as every upstream; returns the report and the URLs asked."""
    asked: list[str] = []

    async def record(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        result = handler(request)
        return await result if asyncio.iscoroutine(result) else result

    async with open_doctor(settings, transport=httpx.MockTransport(record)) as doctor:
        return await doctor.run(), asked


def refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("Name or service not known", request=request)


async def test_fresh_install_names_unreachable_upstreams_and_missing_data(tmp_path: Path) -> None:
    settings = doctor_settings(tmp_path)
    await migrate(settings)  # what `pkgintel serve` leaves at first start: a schema, no data

    async def slow_refusal(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(0.2)
        return refuse(request)

    started = time.perf_counter()
    report, asked = await run(settings, slow_refusal)
    took = time.perf_counter() - started

    assert report.exit_code == 1 and not report.healthy
    found = by_check(report)
    targets = [t for t in upstream_targets(settings) if t.location and not t.unused_because]
    # One request per configured upstream (the name list included), all at once.
    assert sorted(asked) == sorted(t.location for t in targets if t.location)
    assert len(asked) == len(set(asked)) >= 35
    assert took < 0.2 * len(asked) / 4
    for target in targets:
        finding = found[target.setting]
        assert "unreachable" in finding.detail and "Name or service not known" in finding.detail
        assert finding.elapsed_ms is not None and finding.elapsed_ms >= 150
        assert target.setting in (finding.fix or "")
        optional = target.setting.removeprefix("PKGINTEL_").lower() in OPTIONAL_UPSTREAMS
        assert finding.status is (Status.WARN if optional else Status.FAIL), target.setting
    assert found["PKGINTEL_UPSTREAM_PYPI_URL"].status is Status.FAIL
    assert found["PKGINTEL_UPSTREAM_GITHUB_API_URL"].status is Status.WARN
    assert found["PKGINTEL_NAME_LISTS[pypi]"].status is Status.FAIL
    assert found["PKGINTEL_UPSTREAM_LLM_URL"].status is Status.INFO  # unset: not asked
    # The missing data, each with the command that loads it.
    for eco in ("PyPI", "npm"):
        missing = found[f"advisories {eco}"]
        assert missing.status is Status.FAIL and "none loaded" in missing.detail
        assert "pkgintel ingest all" in (missing.fix or "")
    assert found["names pypi"].status is Status.FAIL
    assert f"pkgintel ingest names --ecosystem pypi --from {NAME_LIST}" in (
        found["names pypi"].fix or ""
    )
    assert found["cisa-kev"].status is Status.WARN and found["epss"].status is Status.WARN
    assert found["migrations"].status is Status.OK
    assert found["PKGINTEL_DATABASE_URL"].status is Status.OK
    assert found["PKGINTEL_REDIS_URL"].status is Status.INFO
    # Every problem says what to do.
    assert all(f.fix for f in report.findings if f.status in (Status.FAIL, Status.WARN))


async def load_fresh_data(settings: Settings, now: datetime) -> None:
    engine = create_engine(settings.database_url)
    feeds = SqlAdvisoryStore(engine)
    for scope in settings.osv_ecosystems:
        await feeds.start_run("osv", scope, "https://osv.test", now=now - timedelta(minutes=5))
        await feeds.finish_run(
            "osv",
            scope,
            records=120,
            data_updated_at=now - timedelta(days=1),
            detail={"advisory_records": 120},
            now=now,
        )
    for feed in ("cisa-kev", "epss"):
        await feeds.start_run(feed, "", "https://feed.test", now=now)
        await feeds.finish_run(
            feed, "", records=10, data_updated_at=now - timedelta(days=1), detail={}, now=now
        )
    await SqlStore(engine).save_index_state(
        NameIndexState(Ecosystem.PYPI, NAME_LIST, now - timedelta(days=2), 600_000)
    )
    await engine.dispose()


async def test_healthy_install_has_nothing_failing_and_exits_0(tmp_path: Path) -> None:
    settings = doctor_settings(tmp_path)
    await migrate(settings)
    await load_fresh_data(settings, datetime.now(UTC))

    def answer(request: httpx.Request) -> httpx.Response:
        # A base URL is not an API path: a 404 or a redirect still proves the host answers.
        if "npmjs" in request.url.host:
            return httpx.Response(404)
        if "pypi" in request.url.host:
            return httpx.Response(301, headers={"location": "https://elsewhere.test/"})
        return httpx.Response(200)

    report, asked = await run(settings, answer)

    problems = [f for f in report.findings if f.status in (Status.FAIL, Status.WARN)]
    assert problems == []
    assert report.healthy and report.exit_code == 0
    assert "elsewhere.test" not in " ".join(asked)  # one request each: no redirect followed
    found = by_check(report)
    assert found["PKGINTEL_UPSTREAM_NPM_URL"].detail.endswith("HTTP 404")
    assert found["advisories PyPI"].status is Status.OK
    assert "120 records (osv)" in found["advisories PyPI"].detail
    assert found["names pypi"].detail.startswith("600,000 names from")
    assert found["migrations"].detail.startswith("at the head revision")
    wire = report.wire()
    assert wire["healthy"] is True and wire["counts"]["fail"] == 0
    assert {c["check"] for c in wire["checks"]} >= {"advisories npm", "cisa-kev", "queue"}


async def test_stale_data_stuck_and_failed_jobs_are_named(tmp_path: Path) -> None:
    settings = doctor_settings(tmp_path)
    await migrate(settings)
    now = datetime.now(UTC)
    await load_fresh_data(settings, now - timedelta(days=3))  # past the 2-day advisory limit
    engine = create_engine(settings.database_url)
    await SqlStore(engine).save_index_state(
        NameIndexState(Ecosystem.PYPI, NAME_LIST, now - timedelta(days=20), 600_000)
    )
    jobs = SqlOpsStore(engine)
    await jobs.enqueue(
        job_id="stuck-1",
        kind="warm-cache",
        payload={},
        max_attempts=3,
        now=now - timedelta(hours=1),
    )
    # Leases are timed by the database's clock: a store an hour behind claims with a one-minute
    # lease that ran out 59 minutes ago.
    an_hour_ago = SqlOpsStore(engine, clock_offset=-timedelta(hours=1))
    claimed = await an_hour_ago.claim(worker_id="gone", kinds=["warm-cache"], lease_s=60)
    assert claimed is not None
    await jobs.enqueue(
        job_id="ingest-1", kind="ingest-advisories", payload={}, max_attempts=1, now=now
    )
    ingest = await jobs.claim(worker_id="w", kinds=["ingest-advisories"], lease_s=3600)
    assert ingest is not None
    await jobs.finish(
        "ingest-1",
        "w",
        ingest.attempts,
        status=JobStatus.FAILED,
        error="no OSV export could be read",
    )
    await jobs.enqueue(job_id="kev-1", kind="ingest-kev-epss", payload={}, max_attempts=1, now=now)
    kev = await jobs.claim(worker_id="w", kinds=["ingest-kev-epss"], lease_s=3600)
    assert kev is not None
    report = IngestReport()
    report.loaded("kev", "https://kev.test", records=10)
    report.failed("epss", "https://epss.test/x.csv.gz", "HTTP 404")
    await jobs.finish("kev-1", "w", kev.attempts, status=JobStatus.PARTIAL, result=report.wire())
    tracker = IngestionTracker(
        jobs,
        configured=configured_feeds(settings.osv_ecosystems, settings.name_lists),
        clock=lambda: now,
    )
    kev_job = await jobs.get_job("kev-1")
    assert kev_job is not None
    await tracker.record(kev_job, report)
    await jobs.enqueue(
        job_id="waiting-1",
        kind="harvest-bugs",
        payload={},
        max_attempts=1,
        now=now - timedelta(hours=2),
    )
    await engine.dispose()

    report, _ = await run(settings, lambda request: httpx.Response(200))

    found = by_check(report)
    assert report.exit_code == 1
    assert found["advisories PyPI"].status is Status.FAIL
    assert found["advisories PyPI"].detail.startswith("stale (older than 2.0 days)")
    assert found["cisa-kev"].status is Status.WARN and "stale" in found["cisa-kev"].detail
    assert found["names pypi"].status is Status.WARN  # older than two weekly runs
    assert found["stuck jobs"].status is Status.FAIL and "stuck-1" in found["stuck jobs"].detail
    assert "pkgintel worker" in (found["stuck jobs"].fix or "")
    assert found["waiting jobs"].status is Status.WARN
    assert found["ingest-advisories"].status is Status.FAIL
    assert "no OSV export could be read" in found["ingest-advisories"].detail
    assert "pkgintel jobs run ingest-advisories --here" in (found["ingest-advisories"].fix or "")
    assert found["ingest-names"].status is Status.INFO  # never ran as a job: nothing to do
    assert found["ingest-kev-epss"].status is Status.WARN
    assert "epss: HTTP 404" in found["ingest-kev-epss"].detail
    failing = found["feed epss"]
    assert failing.status is Status.FAIL and "HTTP 404" in failing.detail
    assert "https://epss.test/x.csv.gz" in (failing.fix or "")
    assert "feed kev" not in found  # loaded: its age is a data check
    assert "running 1" in found["queue"].detail and "failed 1" in found["queue"].detail
    assert "partial 1" in found["queue"].detail


async def test_missing_sqlite_file_is_reported_and_not_created(tmp_path: Path) -> None:
    settings = doctor_settings(tmp_path, database_url=f"sqlite+aiosqlite:///{tmp_path}/nope.db")

    report, _ = await run(settings, lambda request: httpx.Response(200))

    found = by_check(report)
    assert not (tmp_path / "nope.db").exists()
    assert found["PKGINTEL_DATABASE_URL"].status is Status.FAIL
    assert "does not exist" in found["PKGINTEL_DATABASE_URL"].detail
    assert "pkgintel migrate" in (found["migrations"].fix or "")
    # Nothing can be loaded in a database that does not exist: every expected item is missing.
    assert found["advisories PyPI"].status is Status.FAIL
    assert found["names pypi"].status is Status.FAIL


async def test_unreachable_database_and_redis_are_failures(tmp_path: Path) -> None:
    settings = doctor_settings(
        tmp_path,
        # Port 1 on loopback: nothing listens, the connection is refused at once.
        database_url="postgresql+asyncpg://pkgintel:secret-pw@127.0.0.1:1/pkgintel",
        redis_url="redis://:redis-pw@127.0.0.1:1/0",
    )

    report, _ = await run(settings, lambda request: httpx.Response(200))

    found = by_check(report)
    db = found["PKGINTEL_DATABASE_URL"]
    assert db.status is Status.FAIL and "unreachable" in db.detail
    assert found["PKGINTEL_REDIS_URL"].status is Status.FAIL
    assert found["data"].status is Status.FAIL and found["jobs"].status is Status.FAIL
    text = str(report.wire())
    assert "secret-pw" not in text and "redis-pw" not in text  # credentials never printed


@pytest.mark.parametrize(
    ("probe", "required", "status"),
    [
        (Probe(12.0, status_code=200), True, Status.OK),
        (Probe(12.0, status_code=403), True, Status.OK),
        (Probe(12.0, status_code=429), True, Status.WARN),
        (Probe(12.0, status_code=503), True, Status.FAIL),
        (Probe(12.0, status_code=503), False, Status.WARN),
        (Probe(5000.0, error="ConnectTimeout: no answer within 5 s"), True, Status.FAIL),
        (Probe(0.1, local=True), True, Status.OK),
        (Probe(0.1, error="no such file or folder", local=True), True, Status.FAIL),
    ],
)
def test_what_counts_as_reachable(probe: Probe, required: bool, status: Status) -> None:
    target = UpstreamTarget(
        "PKGINTEL_UPSTREAM_X_URL", "https://x.test", "https://x.test", "X", required
    )
    assert upstream_finding(target, probe).status is status


def test_upstream_targets_cover_every_upstream_setting_and_hide_credentials() -> None:
    settings = Settings(
        _env_file=None,
        upstream_npm_url="https://user:pw@npm-mirror.test/",
        osv_api_fallback=False,
        upstream_osv_export_url="/srv/osv",
    )
    targets = {t.setting: t for t in upstream_targets(settings)}
    settings_named = {
        f"PKGINTEL_{n.upper()}"
        for n in Settings.model_fields
        if n.startswith("upstream_") and n.endswith("_url")
    }
    assert settings_named <= set(targets)
    assert targets["PKGINTEL_UPSTREAM_NPM_URL"].shown == "https://npm-mirror.test/"
    assert targets["PKGINTEL_UPSTREAM_OSV_API_URL"].unused_because
    assert targets["PKGINTEL_UPSTREAM_DEPSDEV_URL"].role.startswith("deps.dev API (Maven")


def test_partial_failures_of_ingestion_results() -> None:
    assert partial_failures({"ingested": {"PyPI": 3}, "failed": {"npm": "HTTP 404"}}) == [
        "npm: HTTP 404"
    ]
    assert partial_failures({"kev": "ok", "epss_error": "no such file"}) == ["epss: no such file"]
    assert partial_failures({"names": {"error": "down"}, "advisories": {"failed": {}}}) == [
        "names: down"
    ]
    assert partial_failures(None) == []
    assert partial_failures(
        {"outcome": "partial", "failed_feeds": [{"feed": "osv:Go", "reason": "HTTP 503"}]}
    ) == ["osv:Go: HTTP 503"]


async def test_a_database_behind_the_head_revision_fails_with_migrate_as_the_fix(
    tmp_path: Path,
) -> None:
    settings = doctor_settings(tmp_path)
    await migrate(settings)
    engine = create_engine(settings.database_url)
    async with engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    await engine.dispose()

    report, _ = await run(settings, lambda request: httpx.Response(200))

    migrations = by_check(report)["migrations"]
    assert migrations.status is Status.FAIL
    assert migrations.detail == f"at revision older; this version needs {head_revision()}"
    assert "pkgintel migrate" in (migrations.fix or "")
