"""
The report memo (`ReportService.get_report`, issue 33): a warm report is served again only while
everything it was built from is unchanged — never across a curated write, an advisory coverage
change, a refreshed registry entry, its time limit, or when its vulnerability data was unavailable.
On the recorded npm packument of `request` (a mirror copy without npm's deprecation notice).
"""

from __future__ import annotations

import dataclasses
import gzip
import time
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from pkgintel.services.reports.service import MEMO_TTL
from tests.conftest import NOW
from tests.fake_registry import ReplayRegistry
from tests.knowledge_data import NPM_LIVE
from tests.shared import requires_shared

pytestmark = requires_shared

NPM = Ecosystem.NPM


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self):  # type: ignore[no-untyped-def]
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def live(
    settings: Settings, registry: ReplayRegistry, clock: Clock
) -> AsyncIterator[Runtime]:
    registry.add(
        "https://registry.npmjs.org/request",
        gzip.decompress((NPM_LIVE / "registry.npmjs.org_request.json.gz").read_bytes()),
    )
    registry.osv_fail_with = None  # vulnerability data available (from the OSV API)
    transport = httpx.ASGITransport(app=registry.app)
    async with build_runtime(settings, transport=transport, clock=clock) as rt:
        yield rt


async def _warm(rt: Runtime) -> None:
    """The miss, then the first hit (which builds the report that is memoised)."""
    await rt.reports.get_report(NPM, "request")
    first_hit = await rt.reports.get_report(NPM, "request")
    assert first_hit.snapshot.cache_status == "hit"
    assert first_hit.vulnerabilities.status != "unavailable"


async def test_a_warm_report_is_served_again(live: Runtime) -> None:
    await _warm(live)
    a = await live.reports.get_report(NPM, "request")
    b = await live.reports.get_report(NPM, "request")
    assert a is b
    # Another version or another kind of report is another entry.
    assert await live.reports.get_report(NPM, "request", artifacts=True) is not a


async def test_a_curated_write_is_never_hidden(live: Runtime) -> None:
    await _warm(live)
    before = await live.reports.get_report(NPM, "request")
    assert before.info.deprecated is False and before.known_deprecation is None
    assert live.knowledge is not None
    await ingest_curated(live.knowledge.store, load_curated(), NOW)
    after = await live.reports.get_report(NPM, "request")
    assert after is not before
    assert after.known_deprecation is not None  # the curated fact is there at once


async def test_an_advisory_coverage_change_rebuilds(live: Runtime) -> None:
    await _warm(live)
    before = await live.reports.get_report(NPM, "request")
    svc = live.advisories
    cov = await svc.coverage()
    # What any process's ingestion run does to the coverage this process reads.
    svc._coverage = dataclasses.replace(cov, token=(*cov.token, ("osv", "npm", "x", "y")))
    svc._coverage_at = time.monotonic()
    assert await live.reports.get_report(NPM, "request") is not before


async def test_the_memo_expires(live: Runtime, clock: Clock) -> None:
    await _warm(live)
    before = await live.reports.get_report(NPM, "request")
    clock.now = NOW + MEMO_TTL - timedelta(seconds=1)
    assert await live.reports.get_report(NPM, "request") is before
    clock.now = NOW + MEMO_TTL
    after = await live.reports.get_report(NPM, "request")
    assert after is not before and after.generated_at == NOW + MEMO_TTL


async def test_unavailable_vulnerability_data_is_asked_again(
    live: Runtime, registry: ReplayRegistry
) -> None:
    registry.osv_fail_with = 503
    await live.reports.get_report(NPM, "request")
    a = await live.reports.get_report(NPM, "request")
    assert a.vulnerabilities.status == "unavailable"
    b = await live.reports.get_report(NPM, "request")
    assert b is not a  # rebuilt, so the vulnerability lookup is made again


async def test_a_refreshed_registry_entry_rebuilds(live: Runtime) -> None:
    await _warm(live)
    before = await live.reports.get_report(NPM, "request")
    key = live.packages._key(NPM, "request", None)
    entry = await live.packages._cache.get(key)
    assert entry is not None
    # The cache now holds another copy (what a refresh by any worker writes).
    copy = bytes(bytearray(entry.value))
    assert copy is not entry.value
    await live.packages._cache.set(key, copy, ttl_s=3600, stale_s=3600)
    after = await live.reports.get_report(NPM, "request")
    assert after is before  # equal bytes decode to the same snapshot: still the same report
    await live.packages._cache.set(key, entry.value + b" ", ttl_s=3600, stale_s=3600)
    changed = await live.reports.get_report(NPM, "request")
    assert changed is not before
