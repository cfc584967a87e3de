"""
Issue 11 end to end: the verdict rules through the doors (report, briefs, vulns, malicious, scan, stack),
one test per symptom class, on the replay registry (`tests/bodies.py`: demo-pkg 1.0.0, 1.1.0 yanked, 1.2.0).
"""

from __future__ import annotations

from pathlib import Path

import httpx

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, record


async def _demo_advisory(runtime: Runtime, tmp_path: Path, fixed: str, rid: str = "DEMO-X") -> None:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [
            record(
                rid,
                "PyPI",
                "demo-pkg",
                events=[{"introduced": "0"}, {"fixed": fixed}],
                severity="HIGH",
            )
        ],
    )


async def test_unpublished_fix_is_never_recommended(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 2: the advisory names 1.1.5, which PyPI never published: the target is 1.2.0."""
    await _demo_advisory(runtime, tmp_path, "1.1.5")
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert body["recommendation"]["action"] == "update_required"
    assert body["recommendation"]["use_version"] == "1.2.0"
    detail = body["vulnerabilities"]["details"][0]
    assert detail["fixed_in"] == ["1.2.0"] and detail["fixed_in_advisory"] == ["1.1.5"]
    assert detail["fixed_in_verified"] is True


async def test_yanked_fix_is_never_recommended(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 2: 1.1.0 is the advisory's fix but it is yanked: the target is the next release."""
    await _demo_advisory(runtime, tmp_path, "1.1.0")
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert body["recommendation"]["use_version"] == "1.2.0"
    assert body["upgrade"]["to"] == "1.2.0" and body["upgrade"]["clears"] == ["DEMO-X"]


async def test_fix_beyond_every_release_gives_no_target(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 2: a typo'd fix (11.2.0) leaves every published release affected: no version."""
    await _demo_advisory(runtime, tmp_path, "11.2.0")
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert body["recommendation"]["action"] == "find_alternative"
    assert body["recommendation"]["use_version"] == "none"
    assert body["vulnerabilities"]["details"][0]["fixed_in"] == []
    pinned = (await client.get("/api/pin_safe/pypi/demo-pkg")).json()
    assert pinned["safe_version"] is None


async def test_pinned_report_and_briefs_describe_the_pin(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 12, and symptom 9 in the briefs: unrated counted, data age stated."""
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [record("DEMO-U", "PyPI", "demo-pkg", events=[{"introduced": "0"}, {"fixed": "1.2.0"}])],
    )
    body = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert body["vulnerabilities"]["version"] == "1.0.0" and body["vulnerabilities"]["unrated"] == 1
    assert body["vulnerabilities"]["details"][0]["severity"] == "unknown"
    assert body["vulnerabilities"]["details"][0]["effective_severity"] == "medium"
    assert body["recommendation"]["action"] == "update_required"  # symptom 6: unrated with a fix
    assert body["version_scoped"]["latest"]["vulnerabilities"]["count"] == 0
    brief = (await client.get("/api/prompt/pypi/demo-pkg", params={"version": "1.0.0"})).text
    assert "Vulnerabilities in 1.0.0: 1 known" in brief and "1 unrated (treated as medium)" in brief
    assert "vulnerability data stale, as of 2026-01-01 (osv:PyPI)" in brief
    health = (await client.get("/api/health/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert health["health"]["score"] == body["health"]["score"]


async def test_old_advisory_data_is_stale_and_never_safe(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 9: records last modified 2026-01-01, asked on 2026-11-22: stale, whenever loaded."""
    await _demo_advisory(runtime, tmp_path, "1.2.0")
    body = (await client.get("/api/vulns/pypi/demo-pkg")).json()
    feed = next(s for s in body["_meta"]["sources"] if s["name"] == "osv:PyPI")
    assert feed["status"] == "stale" and feed["data_as_of"] == "2026-01-01T00:00:00Z"
    assert body["stale"] is True and body["data_as_of"] == "2026-01-01T00:00:00Z"
    report = (await client.get("/api/check/pypi/demo-pkg")).json()
    assert report["recommendation"]["action"] != "safe_to_use"
    ecosystems = (await client.get("/api/ecosystems")).json()["ecosystems"]
    pypi = next(e for e in ecosystems if e["id"] == "pypi")
    assert pypi["advisory_data_stale"] is True
    assert pypi["advisory_data_as_of"] == "2026-01-01T00:00:00Z"


async def test_vulns_answer_from_advisory_data_without_the_registry(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, registry
) -> None:
    """Symptom 9: loaded advisories answer /api/vulns even when no registry answers."""
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [record("GHOST-1", "PyPI", "ghost-pkg", events=[{"introduced": "0"}, {"fixed": "2.0"}])],
    )
    registry.fail_with = 500
    body = (await client.get("/api/vulns/pypi/ghost-pkg")).json()
    assert body["version"] is None and body["version_source"] == "none"
    assert [d["id"] for d in body["details"]] == ["GHOST-1"]
    await runtime.names.ingest(
        Ecosystem.PYPI,
        [NameEntry(Ecosystem.PYPI, "ghost-pkg", "ghost-pkg", latest_version="1.5")],
        source="test",
    )
    body = (await client.get("/api/vulns/pypi/ghost-pkg")).json()
    assert body["version"] == "1.5" and body["version_source"] == "name_index"
    assert body["count"] == 1


async def test_malicious_code_advisory_counts_and_gone_package_stays_malicious(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptoms 3 and 8: a non-MAL advisory saying "Embedded Malicious Code"; the package is gone."""
    rec = record(
        "NSWG-X",
        "npm",
        "bad-dep",
        events=[{"introduced": "0"}],
        summary="Embedded Malicious Code",
        range_type="SEMVER",
    )
    await ingest_records(runtime, tmp_path, "osv-converted", "npm", [rec])
    body = (await client.get("/api/malicious/npm/bad-dep")).json()
    assert body["is_malicious"] is True and body["verdict"] == "malicious"
    assert body["latest_version_source"] == "gone" and body["advisory_id"] == "NSWG-X"
    bulk = (
        await client.post(
            "/api/check_bulk", json={"items": [{"ecosystem": "npm", "package": "bad-dep"}]}
        )
    ).json()
    assert bulk["results"][0]["status"] == "malicious"


async def test_stack_never_reads_unknown_as_fine(
    client: httpx.AsyncClient, runtime: Runtime, registry
) -> None:
    """Symptom 4: no advisory data → unknown + review; no version → judged at the latest."""
    registry.fail_with = 500  # the OSV API fallback cannot answer either
    await runtime.names.ingest(
        Ecosystem.PYPI,
        [NameEntry(Ecosystem.PYPI, "demo-pkg", "demo-pkg", latest_version="1.2.0")],
        source="test",
    )
    body = {"packages": [{"ecosystem": "pypi", "package": "demo-pkg"}]}
    resp = (await client.post("/api/ai/stack", json=body)).json()
    pkg = resp["packages"][0]
    assert pkg["verdict"] == "unknown"
    assert pkg["judged_version"] == "1.2.0" and pkg["judged_at"] == "latest"
    actions = {a["action"] for a in resp["action_items"]}
    assert {"review", "pin"} <= actions
    bad = await client.post(
        "/api/ai/stack",
        json={"packages": [{"ecosystem": "pypi", "package": "demo-pkg", "version": "garbage!"}]},
    )
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["loc"] == ["body", "packages", 0, "version"]


async def test_stack_upgrade_is_checked_and_grammatical(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Symptom 7: the suggested version is checked against every advisory and says what it clears."""
    await _demo_advisory(runtime, tmp_path, "1.1.5")
    assert (await client.get("/api/check/pypi/demo-pkg")).status_code == 200
    body = {"packages": [{"ecosystem": "pypi", "package": "demo-pkg", "version": "1.0.0"}]}
    resp = (await client.post("/api/ai/stack", json=body)).json()
    upgrade = next(a for a in resp["action_items"] if a["action"] == "upgrade")
    assert upgrade["to"] == "1.2.0" and upgrade["clears"] == ["DEMO-X"]
    assert "1 advisory affect" in upgrade["detail"] and "1 advisories" not in upgrade["detail"]
