"""OSV ingestion into the store and the lookups built on it (hand-written records, both backends)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.sources.osv_export import iter_records
from tests.osv_records import ingest_records, malicious, record


def ids(report) -> list[str]:
    return sorted(d["id"] for d in report.details)


DEMO = [
    record(
        "DEMO-1",
        "PyPI",
        "Demo-Pkg",
        events=[{"introduced": "0"}, {"fixed": "1.2.0"}],
        severity="HIGH",
    ),
    record(
        "DEMO-2", "PyPI", "demo_pkg", events=[{"introduced": "1.0"}, {"last_affected": "1.1.0"}]
    ),
    record("DEMO-3", "PyPI", "demo-pkg", versions=["2.0.0rc1"], severity="LOW"),
]


async def test_counts_and_idempotent_rerun(runtime: Runtime, tmp_path: Path) -> None:
    first = await ingest_records(runtime, tmp_path, "osv", "PyPI", DEMO)
    assert (first.total, first.added, first.updated, first.unchanged) == (3, 3, 0, 0)
    again = await ingest_records(runtime, tmp_path, "osv", "PyPI", DEMO)
    assert (again.added, again.updated, again.unchanged, again.removed) == (0, 0, 3, 0)


async def test_versions_evaluated_per_ecosystem_rules(runtime: Runtime, tmp_path: Path) -> None:
    await ingest_records(runtime, tmp_path, "osv", "PyPI", DEMO)
    look = runtime.advisories.for_version
    # PEP 503 names: Demo-Pkg, demo_pkg and demo-pkg are one project.
    assert ids(await look(Ecosystem.PYPI, "DEMO.pkg", "1.0")) == ["DEMO-1", "DEMO-2"]
    assert ids(await look(Ecosystem.PYPI, "demo-pkg", "1.1.0")) == [
        "DEMO-1",
        "DEMO-2",
    ]  # last_affected inclusive
    assert ids(await look(Ecosystem.PYPI, "demo-pkg", "1.1.1")) == ["DEMO-1"]
    assert ids(await look(Ecosystem.PYPI, "demo-pkg", "1.2.0")) == []  # fixed is exclusive
    assert ids(await look(Ecosystem.PYPI, "demo-pkg", "2.0.0rc1")) == ["DEMO-3"]  # explicit list
    assert ids(await look(Ecosystem.PYPI, "demo-pkg", "2.0.0")) == []
    report = await look(Ecosystem.PYPI, "demo-pkg", "1.0")
    # Records of 2026-01-01 asked about on 2026-11-22: counted, and said to be old.
    assert report.status == "stale" and report.stale
    by_id = {d["id"]: d for d in report.details}
    assert by_id["DEMO-1"]["severity"] == "high" and by_id["DEMO-1"]["fixed_in"] == ["1.2.0"]
    assert by_id["DEMO-2"]["severity"] is None and by_id["DEMO-2"]["fixed_in"] == []
    assert report.count(None) == 1 and report.count("high") == 1


async def test_update_withdraw_and_removal(runtime: Runtime, tmp_path: Path) -> None:
    await ingest_records(runtime, tmp_path, "osv", "PyPI", DEMO)
    # Same `modified` placeholder, different content: the hash notices.
    changed = [
        record(
            "DEMO-1",
            "PyPI",
            "demo-pkg",
            events=[{"introduced": "0"}, {"fixed": "1.3.0"}],
            severity="HIGH",
        ),
        {**DEMO[1], "withdrawn": "2026-02-01T00:00:00Z"},
    ]
    summary = await ingest_records(runtime, tmp_path, "osv", "PyPI", changed)
    assert (summary.updated, summary.withdrawn, summary.removed) == (2, 1, 1)
    report = await runtime.advisories.for_version(Ecosystem.PYPI, "demo-pkg", "1.2.5")
    assert ids(report) == ["DEMO-1"]  # the fix moved; DEMO-2 withdrawn; DEMO-3 gone
    assert ids(await runtime.advisories.for_version(Ecosystem.PYPI, "demo-pkg", "2.0.0rc1")) == []


async def test_feeds_never_remove_each_other(runtime: Runtime, tmp_path: Path) -> None:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "npm",
        [record("GHSA-aaaa", "npm", "left-pad", events=[{"introduced": "0"}])],
    )
    await ingest_records(
        runtime, tmp_path, "osv-malicious", "npm", [malicious("MAL-1", "npm", "evil-pkg")]
    )
    # A rerun of one feed whose export lacks the other's records removes nothing of the other.
    again = await ingest_records(
        runtime, tmp_path, "osv-malicious", "npm", [malicious("MAL-1", "npm", "evil-pkg")]
    )
    assert again.removed == 0
    assert ids(await runtime.advisories.for_version(Ecosystem.NPM, "left-pad", "1.0.0")) == [
        "GHSA-aaaa"
    ]
    assert (await runtime.advisories.malicious(Ecosystem.NPM, "evil-pkg")).is_malicious is True


async def test_aliases_deduplicate_across_feeds(runtime: Runtime, tmp_path: Path) -> None:
    a = record(
        "PYSEC-1",
        "PyPI",
        "dup",
        events=[{"introduced": "0"}, {"fixed": "2.0"}],
        aliases=["CVE-2099-0001"],
    )
    b = record(
        "GHSA-x",
        "PyPI",
        "dup",
        events=[{"introduced": "0"}, {"fixed": "2.0"}],
        aliases=["CVE-2099-0001"],
        severity="CRITICAL",
    )
    await ingest_records(runtime, tmp_path, "osv", "PyPI", [a])
    await ingest_records(runtime, tmp_path, "ghsa", "PyPI", [b])
    report = await runtime.advisories.for_version(Ecosystem.PYPI, "dup", "1.0")
    assert len(report.details) == 1
    detail = report.details[0]
    assert (
        detail["id"] == "GHSA-x"
        and "PYSEC-1" in detail["aliases"]
        and "CVE-2099-0001" in detail["aliases"]
    )
    assert detail["severity"] == "critical"


async def test_status_unavailable_stale_partial_complete(runtime: Runtime, tmp_path: Path) -> None:
    # Nothing ingested for crates.io and the OSV API emulation knows nothing: complete but empty
    # only because the API answered; for an ecosystem OSV lacks, unavailable.
    none = await runtime.advisories.for_version(Ecosystem.CPAN, "Moose", "2.0")
    assert none.status == "unavailable" and none.details == () and "OSV" in (none.reason or "")
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "crates.io",
        [
            record(
                "RUSTSEC-1",
                "crates.io",
                "serde",
                events=[{"introduced": "0"}],
                range_type="SEMVER",
                modified="2026-11-20T00:00:00Z",  # two days before the clock: fresh
            )
        ],
    )
    assert (
        await runtime.advisories.for_version(Ecosystem.CARGO, "serde", "1.0.0")
    ).status == "complete"
    # Records older than the data window: stale, never complete (the counts are still given).
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "Go",
        [
            record(
                "GO-OLD-1",
                "Go",
                "example.com/old",
                events=[{"introduced": "0"}],
                range_type="SEMVER",
            )
        ],
    )
    old = await runtime.advisories.for_version(Ecosystem.GO, "example.com/old", "v1.0.0")
    assert old.status == "stale" and ids(old) == ["GO-OLD-1"]
    # An interrupted run (started, never finished) makes answers partial.
    from datetime import UTC, datetime

    await runtime.ingestor.store.start_run("osv", "crates.io", "x", now=datetime.now(UTC))
    runtime.advisories.invalidate()
    partial = await runtime.advisories.for_version(Ecosystem.CARGO, "serde", "1.0.0")
    assert partial.status == "partial" and "did not finish" in (partial.reason or "")
    assert ids(partial) == ["RUSTSEC-1"]


async def test_osv_api_fallback_and_its_failure(runtime: Runtime, registry) -> None:
    registry.osv_fail_with = None
    registry.osv_records.append(
        record(
            "GO-2099-1",
            "Go",
            "example.com/mod",
            events=[{"introduced": "0"}, {"fixed": "1.5.0"}],
            range_type="SEMVER",
        )
    )
    report = await runtime.advisories.for_version(Ecosystem.GO, "example.com/mod", "v1.4.0")
    assert report.status == "complete" and ids(report) == ["GO-2099-1"]
    assert report.sources[0].name == "api.osv.dev"
    registry.osv_fail_with = 503
    runtime.advisories.invalidate()
    down = await runtime.advisories.for_version(Ecosystem.GO, "example.com/other", "v1.0.0")
    assert down.status == "unavailable" and down.details == ()


async def test_malicious_is_version_aware(runtime: Runtime, tmp_path: Path) -> None:
    await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "npm",
        [malicious("MAL-2", "npm", "popular-lib", versions=["1.4.1"])],
    )
    mal = runtime.advisories.malicious
    assert (await mal(Ecosystem.NPM, "popular-lib", "1.4.1")).is_malicious is True
    assert (await mal(Ecosystem.NPM, "popular-lib", "1.4.0")).is_malicious is False
    whole = await mal(Ecosystem.NPM, "popular-lib")
    assert whole.is_malicious is True and whole.extra["reported_versions"] == ["1.4.1"]
    assert whole.extra["all_versions"] is False
    # A malicious report is not listed as a vulnerability.
    assert (
        await runtime.advisories.for_version(Ecosystem.NPM, "popular-lib", "1.4.1")
    ).details == ()
    unknown = await mal(Ecosystem.NUGET, "Anything")
    assert unknown.status == "unavailable" and unknown.is_malicious is None


async def test_events_only_after_baseline(runtime: Runtime, tmp_path: Path) -> None:
    first = await ingest_records(
        runtime, tmp_path, "osv-malicious", "PyPI", [malicious("MAL-10", "PyPI", "bad-one")]
    )
    assert first.events == 0  # the first load is a baseline, not news
    second = await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "PyPI",
        [malicious("MAL-10", "PyPI", "bad-one"), malicious("MAL-11", "PyPI", "bad-two")],
    )
    assert second.events == 1
    store = runtime.ingestor.store
    events = await store.events_after(0, kind="advisory")
    assert [e.payload["vuln_id"] for e in events] == ["MAL-11"]
    payload = events[0].payload
    assert set(payload) == {
        "ecosystem",
        "package",
        "vuln_id",
        "severity",
        "summary",
        "published_at",
    }
    assert (
        payload["ecosystem"] == "pypi"
        and payload["package"] == "bad-two"
        and payload["severity"] == "critical"
    )


async def test_invalid_members_are_skipped_with_reasons(runtime: Runtime, tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "osv" / "PyPI" / "all.zip"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("GOOD.json", json.dumps(DEMO[0]))
        zf.writestr("BROKEN.json", "{not json")
        zf.writestr("NOID.json", json.dumps({"summary": "x"}))
        zf.writestr("README.txt", "hello")
    summary = await runtime.ingestor.ingest_osv(
        feed="osv", osv_ecosystem="PyPI", location=str(path), entries=iter_records(path)
    )
    assert summary.added == 1
    assert summary.skipped == {
        "not valid JSON": 1,
        "OSV record has no id": 1,
        "not a .json member": 1,
    }


@pytest.mark.parametrize("version", ["1.0", "1.1.0"])
async def test_kev_and_epss_enrichment(runtime: Runtime, tmp_path: Path, version: str) -> None:
    import gzip
    import io

    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [
            record(
                "PYSEC-9",
                "PyPI",
                "enriched",
                events=[{"introduced": "0"}, {"fixed": "2.0"}],
                aliases=["CVE-2099-1234"],
            )
        ],
    )
    before = await runtime.advisories.for_version(Ecosystem.PYPI, "enriched", version)
    assert (
        before.details[0]["kev"] is None and before.details[0]["epss"] is None
    )  # not loaded: unknown
    kev = {
        "catalogVersion": "2099.01.01",
        "dateReleased": "2099-01-01T00:00:00.000Z",
        "count": 1,
        "vulnerabilities": [
            {
                "cveID": "CVE-2099-1234",
                "vendorProject": "x",
                "product": "y",
                "vulnerabilityName": "z",
                "dateAdded": "2099-01-02",
                "shortDescription": "",
                "requiredAction": "",
                "dueDate": "2099-01-23",
                "knownRansomwareCampaignUse": "Known",
                "notes": "",
            }
        ],
    }
    await runtime.ingestor.ingest_kev(location="kev.json", data=json.dumps(kev).encode())
    csv = b"#model_version:v2025.03.14,score_date:2099-01-01T00:00:00+0000\ncve,epss,percentile\nCVE-2099-1234,0.91234,0.99876\n"
    await runtime.ingestor.ingest_epss(
        location="epss.csv.gz", stream=io.BytesIO(gzip.compress(csv))
    )
    runtime.advisories.invalidate()
    after = await runtime.advisories.for_version(Ecosystem.PYPI, "enriched", version)
    detail = after.details[0]
    assert detail["kev"] == {
        "in_catalog": True,
        "cve": "CVE-2099-1234",
        "date_added": "2099-01-02",
        "due_date": "2099-01-23",
        "ransomware": True,
    }
    assert detail["epss"]["score"] == pytest.approx(0.91234) and detail["epss"][
        "percentile"
    ] == pytest.approx(0.99876)
    assert after.kev_count == 1 and after.max_epss == pytest.approx(0.91234)
    assert after.fixed_version == "2.0" and after.fix_available
