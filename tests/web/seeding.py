"""Data the web tests put in place: advisories (one vulnerability of `requests` below 2.34.0, one
malicious npm package), and a health history of several days, through the real services."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record

VULN_ID = "PYSEC-2099-31"
MALICIOUS_ID = "MAL-2099-31"


async def seed_advisories(runtime: Runtime, base: Path) -> None:
    await ingest_records(
        runtime,
        base,
        "osv",
        "PyPI",
        [
            record(
                VULN_ID,
                "PyPI",
                "requests",
                events=[{"introduced": "0"}, {"fixed": "2.34.0"}],
                aliases=["CVE-2099-0031"],
                severity="HIGH",
                summary="Proxy credentials leak to redirected hosts",
            )
        ],
    )
    await publish_malicious(runtime, base, MALICIOUS_ID, "expresss")


async def publish_malicious(runtime: Runtime, base: Path, rid: str, name: str) -> None:
    """A malicious npm report that the live feed announces: the first ingestion of a feed is its
    baseline (announces nothing), so a baseline record goes first when the feed is new."""
    baseline = malicious("MAL-2099-1", "npm", "baseline-bad")
    if not (base / "osv-malicious").exists():
        await ingest_records(runtime, base / "first", "osv-malicious", "npm", [baseline])
    await ingest_records(
        runtime, base / rid, "osv-malicious", "npm", [baseline, malicious(rid, "npm", name)]
    )


async def seed_history(runtime: Runtime, ecosystem: Ecosystem, name: str, days: int = 6) -> None:
    """Today's real snapshot, and `days - 1` earlier ones a few points apart."""
    assert runtime.graph is not None
    history = runtime.graph.history
    today = await history.record(ecosystem, name)
    for back in range(1, days):
        earlier = replace(
            today, day=today.day - timedelta(days=back), score=max(0, today.score - 3 * back)
        )
        await history._store.save(earlier)
