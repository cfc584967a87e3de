"""Project audits end to end: scan (native, CycloneDX, SPDX, errors), check_bulk, ai/stack, CLI scan."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from typer.testing import CliRunner

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.entry import app
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record

REQUIREMENTS = "demo-pkg==1.0.0\nrequests>=2.0\n"
PACKAGE_LOCK = {
    "name": "app",
    "version": "1.0.0",
    "lockfileVersion": 3,
    "requires": True,
    "packages": {
        "": {"name": "app", "version": "1.0.0", "dependencies": {"tiny-lib": "^1.0.0"}},
        "node_modules/tiny-lib": {
            "version": "1.1.0",
            "resolved": "https://registry.npmjs.org/tiny-lib/-/tiny-lib-1.1.0.tgz",
        },
    },
}


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
            ),
        ],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "npm",
        [record("GHSA-none", "npm", "other", events=[{"introduced": "0"}], range_type="SEMVER")],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "npm",
        [
            malicious("MAL-2099-1", "npm", "tiny-lib", versions=["1.1.0"]),
            malicious("MAL-2099-3", "npm", "evil-pkg"),
        ],
    )
    await ingest_records(
        runtime, tmp_path, "osv-malicious", "PyPI", [malicious("MAL-2099-4", "PyPI", "x-evil")]
    )
    return runtime


async def test_scan_reports_the_pinned_version_only(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    resp = await client.post(
        "/api/scan", json={"lockfile": REQUIREMENTS, "lockfile_kind": "requirements.txt"}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    pkgs = {p["name"]: p for p in body["packages"]}
    assert pkgs["demo-pkg"]["status"] == "vulnerable"
    assert [v["id"] for v in pkgs["demo-pkg"]["vulnerabilities"]] == ["DEMO-A"]
    # Database-only: demo-pkg's releases are not stored yet, so no target is invented.
    assert pkgs["demo-pkg"]["nearest_safe_version"] is None
    assert "not stored" in pkgs["demo-pkg"]["nearest_safe_version_reason"]
    assert pkgs["demo-pkg"]["vulnerabilities"][0]["fixed_in_verified"] is False
    assert pkgs["requests"]["status"] == "unresolved" and pkgs["requests"]["unresolved_reason"]
    # Once a report has stored its releases, the nearest safe version is a published release
    # checked against every advisory.
    assert (await client.get("/api/check/pypi/demo-pkg")).status_code == 200
    again = (
        await client.post(
            "/api/scan", json={"lockfile": REQUIREMENTS, "lockfile_kind": "requirements.txt"}
        )
    ).json()
    demo = next(p for p in again["packages"] if p["name"] == "demo-pkg")
    assert demo["nearest_safe_version"] == "1.2.0"
    assert demo["nearest_safe_version_clears"] == ["DEMO-A"]
    assert demo["vulnerabilities"][0]["fixed_in_verified"] is True
    assert body["summary"]["vulnerabilities"]["high"] == 1 and body["summary"]["unresolved"] == 1
    clean = (
        await client.post(
            "/api/scan", json={"ecosystem": "pypi", "packages": {"demo-pkg": "1.2.0"}}
        )
    ).json()
    assert (
        clean["packages"][0]["status"] == "ok" and clean["summary"]["vulnerabilities"]["high"] == 0
    )


async def test_scan_lockfile_malicious_version(client: httpx.AsyncClient, loaded: Runtime) -> None:
    body = (await client.post("/api/scan", json={"lockfile": json.dumps(PACKAGE_LOCK)})).json()
    assert body["kind"] == "package-lock.json"
    tiny = next(p for p in body["packages"] if p["name"] == "tiny-lib")
    assert tiny["status"] == "malicious" and tiny["malicious_advisories"] == ["MAL-2099-1"]
    assert body["summary"]["malicious"] == 1


async def test_scan_sbom_formats_validate(client: httpx.AsyncClient, loaded: Runtime) -> None:
    cdx = (
        await client.post(
            "/api/scan",
            json={
                "lockfile": REQUIREMENTS,
                "lockfile_kind": "requirements.txt",
                "format": "cyclonedx",
            },
        )
    ).json()
    assert cdx["specVersion"] == "1.6"
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(cdx)) is None
    vuln = next(v for v in cdx["vulnerabilities"] if v["id"] == "DEMO-A")
    refs = {c["bom-ref"]: c for c in cdx["components"]}
    assert refs[vuln["affects"][0]["ref"]]["name"] == "demo-pkg"
    spdx = (
        await client.post(
            "/api/scan",
            json={"lockfile": REQUIREMENTS, "lockfile_kind": "requirements.txt", "format": "spdx"},
        )
    ).json()
    assert spdx["spdxVersion"] == "SPDX-2.3"
    assert {p["name"] for p in spdx["packages"]} >= {"demo-pkg", "requests"}


async def test_scan_bad_input(client: httpx.AsyncClient, runtime: Runtime) -> None:
    truncated = json.dumps(PACKAGE_LOCK, indent=2)[:120]
    resp = await client.post(
        "/api/scan", json={"lockfile": truncated, "lockfile_kind": "package-lock.json"}
    )
    assert resp.status_code == 422
    problem = resp.json()
    assert problem["lockfile_kind"] == "package-lock.json" and problem["line"] >= 1
    assert (
        await client.post("/api/scan", json={"packages": {"a": "1"}})
    ).status_code == 422  # no ecosystem
    assert (
        await client.post("/api/scan", json={"lockfile": "x", "lockfile_kind": "nope.lock"})
    ).status_code == 422
    assert (
        await client.post("/api/scan", json={"format": "xml", "lockfile": "a==1"})
    ).status_code == 422
    assert (
        await client.post(
            "/api/scan", content=b"{not json", headers={"content-type": "application/json"}
        )
    ).status_code == 422
    big = {"lockfile": "a==1\n" * (1_400_000), "lockfile_kind": "requirements.txt"}
    resp = await client.post("/api/scan", json=big)
    assert resp.status_code == 413 and resp.headers["content-type"].startswith(
        "application/problem+json"
    )


async def test_scan_large_lockfile_is_parsed_off_the_event_loop_with_the_same_errors(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    from pkgintel.application.audit import OFF_LOOP_BYTES

    packages = {"": {"name": "app", "version": "1.0.0"}}
    packages |= {f"node_modules/pkg-{i}": {"version": f"1.0.{i}"} for i in range(2000)}
    packages["node_modules/tiny-lib"] = {"version": "1.1.0"}
    text = json.dumps({**PACKAGE_LOCK, "packages": packages}, indent=2)
    assert len(text) > OFF_LOOP_BYTES
    resp = await client.post("/api/scan", json={"lockfile": text, "filename": "package-lock.json"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["summary"]["packages"] == 2001
    assert resp.json()["summary"]["malicious"] == 1
    cut = text[: len(text) - 200]
    resp = await client.post("/api/scan", json={"lockfile": cut, "filename": "package-lock.json"})
    assert resp.status_code == 422
    assert resp.json()["line"] >= text[: len(cut)].count("\n")


async def test_check_bulk_database_only(
    client: httpx.AsyncClient, loaded: Runtime, registry
) -> None:
    registry.fail_with = 500  # every upstream fails: the answers must not need them
    before = len(registry.hits)
    items = [{"ecosystem": "npm", "package": f"unknown-{i}"} for i in range(95)]
    items += [
        {"ecosystem": "npm", "package": "fs"},
        {"ecosystem": "pypi", "package": "asyncio"},
        {"ecosystem": "npm", "package": "evil-pkg"},
        {"ecosystem": "npm", "package": "tiny-lib"},
        {"ecosystem": "npm", "package": "tiny-lib", "version": "1.1.0"},
    ]
    resp = await client.post("/api/check_bulk", json={"items": items})
    assert resp.status_code == 200, resp.text
    results = resp.json()["results"]
    assert len(results) == 100 and len(registry.hits) == before
    # tiny-lib: only 1.1.0 was reported, but no name index says a later release exists, so no
    # clean release is known: malicious (issue 11, symptom 3).
    assert [r["status"] for r in results[95:]] == [
        "stdlib",
        "stdlib",
        "malicious",
        "malicious",
        "malicious",
    ]
    assert results[0]["status"] == "unknown"
    # With the name index saying the latest is 2.0.0 (outside the report): historical.
    await loaded.names.ingest(
        Ecosystem.NPM,
        [NameEntry(Ecosystem.NPM, "tiny-lib", "tiny-lib", latest_version="2.0.0")],
        source="test",
    )
    resp = await client.post("/api/check_bulk", json={"items": items})
    results = resp.json()["results"]
    assert [r["status"] for r in results[97:]] == [
        "malicious",
        "historical_incident",
        "malicious",
    ]
    assert results[98]["judged_version"] == "2.0.0"
    too_many = await client.post("/api/check_bulk", json={"items": [*items, items[0]]})
    assert too_many.status_code == 422


async def test_check_bulk_reads_reports_of_flagged_names_only(
    client: httpx.AsyncClient, loaded: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One query finds the names with a malicious report; only their reports are read and parsed.
    store = loaded.advisories._store
    read: list[str] = []
    one, many = store.records_for, store.records_for_many

    async def records_for(eco, key):  # type: ignore[no-untyped-def]
        read.append(key)
        return await one(eco, key)

    async def records_for_many(eco, keys):  # type: ignore[no-untyped-def]
        read.extend(keys)
        return await many(eco, keys)

    monkeypatch.setattr(store, "records_for", records_for)
    monkeypatch.setattr(store, "records_for_many", records_for_many)
    items = [{"ecosystem": "npm", "package": f"unknown-{i}"} for i in range(97)]
    items += [{"ecosystem": "npm", "package": n} for n in ("evil-pkg", "tiny-lib")]
    items += [{"ecosystem": "pypi", "package": "X_Evil"}]  # PEP 503: the same package as x-evil
    resp = await client.post("/api/check_bulk", json={"items": items})
    assert resp.status_code == 200, resp.text
    assert [r["status"] for r in resp.json()["results"][97:]] == [
        "malicious",
        "malicious",  # no later clean release is known for tiny-lib
        "malicious",
    ]
    assert sorted(read) == ["evil-pkg", "tiny-lib", "x-evil"]


async def test_ai_stack_action_items(client: httpx.AsyncClient, loaded: Runtime) -> None:
    body = {
        "packages": [
            {"ecosystem": "pypi", "package": "demo-pkg", "version": "1.0.0"},
            {"ecosystem": "pypi", "package": "Demo_Pkg", "version": "1.0.0"},
            {"ecosystem": "pypi", "package": "x-evil"},
            {"ecosystem": "pypi", "package": "json"},
        ]
    }
    assert (await client.get("/api/check/pypi/demo-pkg")).status_code == 200  # stores its releases
    resp = (await client.post("/api/ai/stack", json=body)).json()
    actions = [(a["action"], a["package"]) for a in resp["action_items"]]
    assert actions[0] == ("replace", "x-evil")
    assert ("upgrade", "demo-pkg") in actions and ("remove", "json") in actions
    assert ("remove_duplicate", "Demo_Pkg") in actions
    assert [a["action"] for a in resp["action_items"]] == sorted(
        (a["action"] for a in resp["action_items"]),
        key=["replace", "upgrade", "review", "remove", "remove_duplicate", "pin", "verify"].index,
    )
    upgrade = next(a for a in resp["action_items"] if a["action"] == "upgrade")
    assert upgrade["to"] == "1.2.0" and upgrade["clears"] == ["DEMO-A"]
    assert len(resp["packages"]) == 3  # the duplicate is an action item, not a second verdict


async def test_cli_scan_exit_codes(
    settings, loaded: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not settings.database_url.startswith("sqlite"):
        monkeypatch.setenv("PKGINTEL_REDIS_URL", settings.redis_url or "")
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", settings.database_url)
    vulnerable = tmp_path / "requirements.txt"
    vulnerable.write_text(REQUIREMENTS)
    clean = tmp_path / "clean" / "requirements.txt"
    clean.parent.mkdir()
    clean.write_text("demo-pkg==1.2.0\n")
    broken = tmp_path / "bad" / "package-lock.json"
    broken.parent.mkdir()
    broken.write_text(json.dumps(PACKAGE_LOCK, indent=2)[:100])

    async def run(*args: str):
        # The CLI runs its own event loop: give it a thread, as a shell would give it a process.
        result = await asyncio.to_thread(CliRunner().invoke, app, ["scan", *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        return result

    assert (await run(str(vulnerable), "--fail-on", "high")).exit_code == 1
    assert (await run(str(vulnerable), "--fail-on", "critical")).exit_code == 0
    assert (await run(str(clean), "--fail-on", "high")).exit_code == 0
    assert (await run(str(broken))).exit_code == 3  # an unparseable lockfile (was 2)
    out = await run(str(vulnerable), "--format", "cyclonedx", "--fail-on", "critical")
    assert out.exit_code == 0 and '"specVersion": "1.6"' in out.stdout


async def test_a_lockfile_larger_than_the_advisory_cache_is_matched_from_one_load(
    client: httpx.AsyncClient, loaded: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The advisory cache holds 5 packages; the scan names 40. Every package's advisories come from
    # the one prefetch, none from a query of its own (which made 50,000-package scans quadratic).
    monkeypatch.setattr(loaded.advisories, "_max_cached", 5)
    store = loaded.advisories._store
    single: list[str] = []
    one = store.records_for

    async def records_for(eco, key):  # type: ignore[no-untyped-def]
        single.append(key)
        return await one(eco, key)

    monkeypatch.setattr(store, "records_for", records_for)
    packages = {f"pkg-{i:02d}": "1.0.0" for i in range(38)} | {"other": "1.0.0", "demo": "1"}
    resp = await client.post("/api/scan", json={"ecosystem": "npm", "packages": packages})
    assert resp.status_code == 200, resp.text
    by_name = {p["name"]: p for p in resp.json()["packages"]}
    assert by_name["other"]["status"] == "vulnerable"  # GHSA-none: every version of `other`
    assert single == []
    assert loaded.advisories._pins == []  # released when the scan ended
