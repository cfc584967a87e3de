"""
Version semantics through every door (issue 20): listed OSV versions match by the ecosystem's
equality, pin_safe takes native range syntax, and a 5,000-digit version is a 4xx or an
unresolved entry — never a 500.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record

HUGE = "1" * 5000


@pytest.fixture
async def loaded(runtime: Runtime, tmp_path: Path) -> Runtime:
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        # Lists `1.0`, the release pip installs for `demo-pkg==1.0.0` (PEP 440: one release).
        [record("LIST-1", "PyPI", "demo-pkg", versions=["1.0"], severity="HIGH")],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "npm",
        [record("GHSA-other", "npm", "other", events=[{"introduced": "0"}], range_type="SEMVER")],
    )
    await ingest_records(
        runtime,
        tmp_path,
        "osv-malicious",
        "npm",
        [malicious("MAL-2099-9", "npm", "tiny-lib", versions=["v1.1.0"])],
    )
    return runtime


async def test_listed_version_matches_its_other_spelling_in_every_door(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    scan = (
        await client.post(
            "/api/scan",
            json={"lockfile": "demo-pkg==1.0.0\n", "lockfile_kind": "requirements.txt"},
        )
    ).json()
    (pkg,) = scan["packages"]
    assert pkg["status"] == "vulnerable"
    assert [v["id"] for v in pkg["vulnerabilities"]] == ["LIST-1"]
    check = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert [d["id"] for d in check["version_scoped"]["vulnerabilities"]["details"]] == ["LIST-1"]
    # npm reads `v1.1.0` as 1.1.0: the report is about the very version asked.
    bulk = (
        await client.post(
            "/api/check_bulk",
            json={"items": [{"ecosystem": "npm", "package": "tiny-lib", "version": "1.1.0"}]},
        )
    ).json()
    assert bulk["results"][0]["status"] == "malicious"
    mal = (await client.get("/api/malicious/npm/tiny-lib", params={"version": "1.1.0"})).json()
    assert mal["is_malicious"] is True


async def test_pin_safe_takes_native_ranges(client: httpx.AsyncClient, loaded: Runtime) -> None:
    for constraint in (">=1.0,<2.0", "~=1.0", ">=1.0.0,!=1.0.0"):
        body = (
            await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": constraint})
        ).json()
        assert body["safe_version"] == "1.2.0", constraint
    npm = (
        await client.get("/api/pin_safe/npm/tiny-lib", params={"constraint": ">=1.0.0 <2.0.0"})
    ).json()
    # 1.1.0 is reported malicious (listed as `v1.1.0`), so 1.0.0 is the safe pick in range.
    assert npm["safe_version"] == "1.0.0"
    assert npm["rejected"][0]["version"] == "1.1.0"
    bad = await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": ">=1.0,,<<2"})
    assert bad.status_code == 422


async def test_oversized_version_is_never_a_500(client: httpx.AsyncClient, loaded: Runtime) -> None:
    statuses = [
        (await client.get("/api/check/pypi/demo-pkg", params={"version": HUGE})).status_code,
        (await client.get("/api/malicious/npm/tiny-lib", params={"version": HUGE})).status_code,
        (
            await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": ">=" + HUGE})
        ).status_code,
        (
            await client.post(
                "/api/check_bulk",
                json={"items": [{"ecosystem": "pypi", "package": "demo-pkg", "version": HUGE}]},
            )
        ).status_code,
        (
            await client.post(
                "/api/ai/stack",
                json={"packages": [{"ecosystem": "npm", "package": "tiny-lib", "version": HUGE}]},
            )
        ).status_code,
    ]
    assert all(400 <= s < 500 for s in statuses), statuses
    lock = {
        "name": "app",
        "lockfileVersion": 3,
        "packages": {
            "": {"name": "app", "version": "1.0.0"},
            "node_modules/tiny-lib": {
                "version": HUGE,
                "resolved": "https://registry.npmjs.org/tiny-lib/-/tiny-lib-1.0.0.tgz",
            },
        },
    }
    for body in (
        {"lockfile": f"demo-pkg=={HUGE}\n", "lockfile_kind": "requirements.txt"},
        {"lockfile": json.dumps(lock), "lockfile_kind": "package-lock.json"},
        {"ecosystem": "pypi", "packages": {"demo-pkg": HUGE}},
    ):
        resp = await client.post("/api/scan", json=body)
        assert resp.status_code == 200, resp.text
        (pkg,) = resp.json()["packages"]
        assert pkg["status"] == "unresolved"
        assert "5,000 characters" in json.dumps(pkg), pkg


async def test_scan_resolves_includes_and_constraints_sent_together(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    body = {
        "lockfile": "-r base/common.txt\n-c constraints.txt\nrequests>=2.0\n",
        "lockfile_kind": "requirements.txt",
        "filename": "requirements.txt",
        "files": [
            {"filename": "base/common.txt", "content": "demo-pkg\n-r ../requirements.txt\n"},
            {"filename": "constraints.txt", "content": "demo-pkg==1.0.0\nrequests==1.0\n"},
        ],
    }
    resp = await client.post("/api/scan", json=body)
    assert resp.status_code == 200, resp.text
    payload = resp.json()
    packages = {p["name"]: p for p in payload["packages"]}
    # `demo-pkg` comes from the included file, pinned by the constraints file: LIST-1 lists `1.0`.
    assert packages["demo-pkg"]["version"] == "1.0.0"
    assert packages["demo-pkg"]["status"] == "vulnerable"
    # `requests==1.0` does not satisfy `>=2.0`: still unresolved, with both in the reason.
    assert packages["requests"]["status"] == "unresolved"
    assert "does not satisfy" in json.dumps(packages["requests"])
    assert any("cyclic" in w for w in payload["warnings"])
    too_many = {**body, "files": [{"filename": f"f{i}.txt", "content": ""} for i in range(21)]}
    assert (await client.post("/api/scan", json=too_many)).status_code == 422
