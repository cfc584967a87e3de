"""
Shared fixtures: a replay registry behind an ASGI transport, a runtime on a fresh database, and an
API client — parametrized over SQLite + memory cache always, and PostgreSQL + Redis when
`PKGINTEL_TEST_DATABASE_URL` / `PKGINTEL_TEST_REDIS_URL` are set (CI sets them).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.storage.sql import create_engine
from tests.bodies import RECORDINGS
from tests.fake_registry import ReplayRegistry, build
from tests.parallel import isolate_worker
from tests.shared import SHARED_DATA

isolate_worker()  # before anything reads the test database and Redis URLs

# No test may start network ingestion: servers started by tests (and their subprocesses) run no
# embedded worker and no first-start ingestion unless a test asks for them explicitly.
os.environ.setdefault("PKGINTEL_WORKER_EMBEDDED", "false")
os.environ.setdefault("PKGINTEL_INITIAL_INGEST", "false")
# The default database lives in the user's data folder (platformdirs honours XDG_DATA_HOME): no
# test, nor any process a test starts, may write into the real one.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="pkgintel-test-data-")
atexit.register(shutil.rmtree, os.environ["XDG_DATA_HOME"], True)
# Nor load the shipped popularity snapshot (~200,000 names, seconds of CPU) at each server start:
# the tests of that load turn it on.
os.environ.setdefault("PKGINTEL_SHIPPED_POPULARITY", "false")

PG_URL = os.environ.get("PKGINTEL_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("PKGINTEL_TEST_REDIS_URL")
NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)

BACKENDS = [pytest.param(("sqlite", None), id="sqlite-memory")]
if PG_URL:
    BACKENDS.append(
        pytest.param(("postgres", REDIS_URL), id="postgres-redis", marks=pytest.mark.postgres)
    )


async def reset_postgres(url: str) -> None:
    """Drop every table so the test starts from an empty, then migrated, database."""
    engine = create_engine(url)
    async with engine.begin() as conn:
        await conn.execute(text("DROP SCHEMA public CASCADE"))
        await conn.execute(text("CREATE SCHEMA public"))
    await engine.dispose()


async def reset_redis(url: str) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(url)
    await client.flushdb()
    await client.aclose()


@pytest.fixture(params=BACKENDS)
async def settings(request: pytest.FixtureRequest, tmp_path: Path) -> Settings:
    db, redis_url = request.param
    if db == "postgres":
        assert PG_URL
        await reset_postgres(PG_URL)
        url = PG_URL
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'pkgintel.db'}"
    if redis_url:
        await reset_redis(redis_url)
    return Settings(
        _env_file=None,
        database_url=url,
        redis_url=redis_url,
        upstream_npm_url="http://registry.test/npm",
        upstream_npm_downloads_url="http://registry.test/npm-downloads",
        upstream_pypi_url="http://registry.test/pypi",
        upstream_pypistats_url="http://registry.test/pypistats",
        upstream_pypi_files_url="http://registry.test/pypi-files",
        upstream_osv_api_url="http://registry.test/osv-api",
        # Cargo, Go, Maven, NuGet
        upstream_crates_url="http://registry.test/crates",
        upstream_crates_index_url="http://registry.test/crates-index",
        upstream_goproxy_url="http://registry.test/goproxy",
        upstream_pkgsite_url="http://registry.test/pkgsite",
        upstream_maven_url="http://registry.test/maven/maven2",
        upstream_depsdev_url="http://registry.test/depsdev",
        upstream_nuget_url="http://registry.test/nuget",
        upstream_nuget_search_url="http://registry.test/nuget-search",
        upstream_rubygems_url="http://registry.test/rubygems",
        upstream_packagist_repo_url="http://registry.test/packagist-repo",
        upstream_packagist_url="http://registry.test/packagist",
        upstream_pub_url="http://registry.test/pub",
        upstream_hex_url="http://registry.test/hex",
        # Hackage, CRAN, Conda
        upstream_hackage_url="http://registry.test/hackage",
        upstream_cran_ppm_url="http://registry.test/ppm/__api__/repos/2",
        upstream_cran_url="http://registry.test/cran",
        upstream_cranlogs_url="http://registry.test/cranlogs",
        upstream_conda_url="http://registry.test/anaconda",
        upstream_github_api_url="http://registry.test/github",
        # Swift, CocoaPods, CPAN
        upstream_swift_url="http://registry.test/raw-github/SwiftPackageIndex/PackageList/main",
        upstream_cocoapods_url="http://registry.test/cocoapods",
        upstream_cpan_url="http://registry.test/cpan",
        # Homebrew, Julia, JSR
        upstream_homebrew_url="http://registry.test/homebrew",
        upstream_julia_url="http://registry.test/raw-github/JuliaRegistries/General/master",
        upstream_juliahub_url="http://registry.test/juliahub",
        upstream_jsr_url="http://registry.test/jsr",
        upstream_jsr_api_url="http://registry.test/jsr-api",
        upstream_scorecard_url="http://registry.test/scorecard",
        ip_hash_secret="test-secret",
        bulk_hint_threshold=3,
    )


@pytest.fixture
def registry() -> ReplayRegistry:
    """Hand-written bodies always; the shared recorded bodies too when ../shared/data is present."""
    reg = build(SHARED_DATA if SHARED_DATA.is_dir() else None, extra=RECORDINGS)
    # The OSV API fallback is down unless a test turns it on: reports then say "unavailable" for
    # ecosystems with nothing ingested, which most report tests are about.
    reg.osv_fail_with = 503
    return reg


@pytest.fixture
async def runtime(settings: Settings, registry: ReplayRegistry) -> AsyncIterator[Runtime]:
    transport = httpx.ASGITransport(app=registry.app)
    async with build_runtime(settings, transport=transport, clock=lambda: NOW) as rt:
        yield rt


@pytest.fixture
async def client(settings: Settings, runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(settings, runtime=runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        yield c


@pytest.fixture
def frozen_heap() -> Iterator[None]:
    """For timing tests: what earlier tests left in this process is moved out of the cyclic
    collector's reach (as `pkgintel serve` freezes its start-up heap, `app.py`), so a collection
    measures this test's objects, not the suite's."""
    import gc

    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(autouse=True)
def _no_app_outlives_its_test() -> Iterator[None]:
    """
    A server builds one app per process; the suite builds one per test. Two things would keep every
    test's app (and the runtime it holds) alive to the end of the suite — gigabytes over the run, and
    garbage collections that walk all of it:

    - FastAPI classifies each endpoint callable once, in module-level LRU caches of 4,096 entries
      (`fastapi.dependencies.models`); its own `/openapi.json` endpoint is a closure over the app, so
      each cached entry holds an app. The caches are emptied after each test.
    - The app's lifespan freezes its start-up heap (`app.py`), as a long-lived server should; here each
      test's app would freeze the one before it. The heap is thawed after each test.
    """
    import gc

    from fastapi.dependencies import models

    yield
    for value in vars(models).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()
    if gc.get_freeze_count():
        gc.unfreeze()
