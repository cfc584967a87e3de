"""Data the web tests put in place: advisories (one vulnerability of `requests` below 2.34.0, one
malicious npm package announced on the live feed), and a health history of several days, through
the real services."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record

VULN_ID = "PYSEC-2099-31"
MALICIOUS_ID = "MAL-2099-31"


@dataclass
class MaliciousFeed:
    """The npm malicious-package feed as successive exports: the first ingestion is the feed's
    baseline (it announces nothing), each later one holds every record so far plus a new one,
    which the live feed announces."""

    base: Path
    records: list[dict[str, Any]] = field(default_factory=list)

    async def publish(self, runtime: Runtime, rid: str, name: str) -> None:
        if not self.records:
            self.records.append(malicious("MAL-2099-1", "npm", "baseline-bad"))
            await ingest_records(
                runtime, self.base / "baseline", "osv-malicious", "npm", self.records
            )
        self.records.append(malicious(rid, "npm", name))
        await ingest_records(runtime, self.base / rid, "osv-malicious", "npm", list(self.records))


async def seed_advisories(runtime: Runtime, base: Path) -> MaliciousFeed:
    """The vulnerability and the announced malicious report; returns the feed to publish more."""
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
    feed = MaliciousFeed(base / "malicious")
    await feed.publish(runtime, MALICIOUS_ID, "expresss")
    return feed


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
