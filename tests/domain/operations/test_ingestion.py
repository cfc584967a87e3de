"""A run's outcome follows from its feeds; the retry backoff doubles up to its cap (pure)."""

from __future__ import annotations

import pytest

from pkgintel.domain.operations.ingestion import IngestReport, RunOutcome, retry_delay_s


def test_outcome_follows_the_feeds() -> None:
    report = IngestReport()
    report.skipped("osv:PyPI", "/data/osv/PyPI/all.zip", "no export")
    assert report.outcome is RunOutcome.SUCCEEDED  # skipped is said, not a failure
    report.loaded("osv:npm", "/data/osv/npm/all.zip", records=3)
    report.failed("kev", "http://kev.test/kev.json", "HTTP 503")
    assert report.outcome is RunOutcome.PARTIAL
    assert report.summary() == "1 loaded, 1 failed, 1 skipped of 3 feeds; failed: kev"
    wire = report.wire()
    assert wire["outcome"] == "partial"
    assert wire["failed_feeds"] == [{"feed": "kev", "reason": "HTTP 503"}]
    assert wire["counts"] == {"loaded": 1, "failed": 1, "skipped": 1}
    # A feed tried again keeps its last outcome.
    report.loaded("kev", "http://kev.test/kev.json", summary="1 CVE")
    assert report.outcome is RunOutcome.SUCCEEDED and len(report.outcomes) == 3

    nothing = IngestReport()
    nothing.failed("epss", "http://epss.test/", "download failed (ConnectError)")
    assert nothing.outcome is RunOutcome.FAILED


def test_retry_backoff_doubles_up_to_the_cap() -> None:
    delays = [retry_delay_s(n, base_s=60, max_s=3600) for n in range(1, 10)]
    assert delays == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600]
    assert retry_delay_s(10_000, base_s=60, max_s=3600) == 3600
    with pytest.raises(ValueError, match="1-based"):
        retry_delay_s(0, base_s=60, max_s=3600)
