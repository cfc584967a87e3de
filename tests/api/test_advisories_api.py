"""Vulnerability endpoints end to end: vulns, version_scoped, pin_safe, malicious (hand-written data)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record


@pytest.fixture
async def loaded(runtime: Runtime, tmp_path: Path) -> Runtime:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [
            record(
                "DEMO-A",
                "PyPI",
                "demo-pkg",
                events=[{"introduced": "0"}, {"fixed": "1.2.0"}],
                severity="HIGH",
                aliases=["CVE-2099-0001"],
            ),
            record(
                "DEMO-B", "PyPI", "demo-pkg", events=[{"introduced": "1.2.0"}], severity="MODERATE"
            ),
        ],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "npm",
        [
            record(
                "GHSA-tiny-0001",
                "npm",
                "tiny-lib",
                events=[{"introduced": "0"}, {"fixed": "1.0.0"}],
                severity="LOW",
                range_type="SEMVER",
            ),
        ],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "npm",
        [malicious("MAL-2099-1", "npm", "tiny-lib", versions=["1.1.0"])],
    )
    await ingest_records(
        runtime, tmp_path, "osv-malicious", "PyPI", [malicious("MAL-2099-2", "PyPI", "evil-thing")]
    )
    return runtime


async def test_vulns_of_latest(client: httpx.AsyncClient, loaded: Runtime) -> None:
    body = (await client.get("/api/vulns/pypi/demo-pkg")).json()
    # The records are of 2026-01-01, the clock says 2026-11-22: old data is never complete.
    assert body["version"] == "1.2.0" and body["status"] == "stale" and body["stale"] is True
    assert [d["id"] for d in body["details"]] == ["DEMO-B"]
    assert (body["count"], body["medium"], body["high"]) == (1, 1, 0)
    names = {s["name"] for s in body["_meta"]["sources"]}
    assert {"osv:PyPI", "cisa-kev", "epss"} <= names
    kev = next(s for s in body["_meta"]["sources"] if s["name"] == "cisa-kev")
    assert kev["status"] == "unavailable"


async def test_check_version_scoped(client: httpx.AsyncClient, loaded: Runtime) -> None:
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    scoped = body["version_scoped"]["vulnerabilities"]
    assert [d["id"] for d in scoped["details"]] == ["DEMO-A"]
    assert scoped["details"][0]["fixed_in"] == ["1.2.0"] and scoped["details"][0]["aliases"] == [
        "CVE-2099-0001"
    ]
    assert body["recommendation"]["action"] == "update_required"
    # A pinned report is rendered for the pin; the latest is the comparison in version_scoped.
    assert body["vulnerabilities"]["version"] == "1.0.0"
    assert body["version_scoped"]["latest"]["version"] == "1.2.0"
    assert body["version_scoped"]["latest"]["vulnerabilities"]["ids"] == ["DEMO-B"]
    assert body["malicious"]["checked"] is True and body["malicious"]["is_malicious"] is False
    health = (await client.get("/api/health/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert health["health"]["score"] == body["health"]["score"]


async def test_pin_safe_rules(client: httpx.AsyncClient, loaded: Runtime) -> None:
    high = (await client.get("/api/pin_safe/pypi/demo-pkg")).json()
    assert high["safe_version"] == "1.2.0" and high["rejected"] == []  # DEMO-B is only medium
    medium = (
        await client.get("/api/pin_safe/pypi/demo-pkg", params={"min_severity": "medium"})
    ).json()
    assert medium["safe_version"] is None
    assert [r["version"] for r in medium["rejected"]] == ["1.2.0", "1.0.0"]  # 1.1.0 is yanked
    assert medium["skipped"]["yanked"] == 1
    pinned = (
        await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": "~1.0.0"})
    ).json()
    assert (
        pinned["safe_version"] is None and pinned["rejected"][0]["advisories"][0]["id"] == "DEMO-A"
    )
    bad = await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": "^not-a-version"})
    assert bad.status_code == 422
    assert (
        await client.get("/api/pin_safe/pypi/demo-pkg", params={"min_severity": "severe"})
    ).status_code == 422


async def test_pin_safe_prerelease_and_limit(client: httpx.AsyncClient, loaded: Runtime) -> None:
    plain = (
        await client.get("/api/pin_safe/npm/tiny-lib", params={"constraint": "^2.0.0-beta.1"})
    ).json()
    assert plain["safe_version"] == "2.0.0"
    limited = (
        await client.get(
            "/api/pin_safe/npm/tiny-lib", params={"constraint": "~1.1.0", "limit_checked": 1}
        )
    ).json()
    # 1.1.0 is the one reported malicious: rejected, and the limit stops the search there.
    assert limited["safe_version"] is None and limited["checked"] == 1
    assert limited["rejected"][0]["advisories"][0]["severity"] == "malicious"


async def test_malicious_mainstream_is_review_advisory(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    # Without a version the answer is about the latest release (2.0.0), which no report names.
    latest = (await client.get("/api/malicious/npm/tiny-lib")).json()
    assert latest["is_malicious"] is False and latest["verdict"] == "historical_incident"
    assert latest["judged_version"] == "2.0.0" and latest["advisory_id"] == "MAL-2099-1"
    assert latest["action"] == "avoid_reported_versions"
    assert latest["historical_compromise"]["versions"] == ["1.1.0"]
    # The reported release of a mainstream package: review_advisory.
    body = (await client.get("/api/malicious/npm/tiny-lib", params={"version": "1.1.0"})).json()
    assert body["is_malicious"] is True and body["advisory_id"] == "MAL-2099-1"
    assert body["downloads_weekly"] == 250000 and body["action"] == "review_advisory"
    assert body["likely_false_positive"] is True
    other = (await client.get("/api/malicious/npm/tiny-lib", params={"version": "2.0.0"})).json()
    assert other["is_malicious"] is False and other["action"] == "avoid_reported_versions"
    report = (await client.get("/api/check/npm/tiny-lib", params={"version": "1.1.0"})).json()
    assert report["malicious"]["is_malicious"] is True
    assert report["recommendation"]["action"] == "do_not_use"
    assert report["historical_compromise"]["advisories"] == ["MAL-2099-1"]


async def test_malicious_package_gone_from_registry(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    body = (await client.get("/api/malicious/pypi/Evil_Thing")).json()
    assert body["is_malicious"] is True and body["all_versions"] is True
    assert body["action"] == "do_not_use" and body["downloads_weekly"] is None


async def test_no_data_is_never_safe(client: httpx.AsyncClient, runtime: Runtime) -> None:
    pinned = (await client.get("/api/pin_safe/npm/tiny-lib")).json()
    assert pinned["status"] == "unavailable" and pinned["safe_version"] is None
    body = (await client.get("/api/malicious/npm/tiny-lib")).json()
    assert body["is_malicious"] is None and body["status"] == "unavailable"
    assert body["action"] == "insufficient_data"
