"""
Issue 27, item 4 — old data is never complete. Advisory and malicious records last modified
2026-01-01, asked on 2026-11-22 (`tests.conftest.NOW`): every door says `stale` with the date of the
data (scan, pin_safe, check_bulk, ai/stack, the report and both briefs, the CLI). The same records
dated two days before NOW are fresh, and the same doors say `complete`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from pkgintel.entry import app
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record

OLD = "2026-01-01T00:00:00Z"
"""Ten months before NOW: past the 30-day data window."""
FRESH = "2026-11-20T00:00:00Z"
"""Two days before NOW, loaded at NOW: inside both windows."""

AGES = [pytest.param(OLD, id="old"), pytest.param(FRESH, id="fresh")]


async def _load(runtime: Runtime, tmp_path: Path, modified: str) -> None:
    """An advisory on demo-pkg < 1.2.0 and a malicious report on another PyPI name, both last
    modified at `modified`."""
    await ingest_records(
        runtime,
        tmp_path,
        "osv",
        "PyPI",
        [
            record(
                "DEMO-S",
                "PyPI",
                "demo-pkg",
                events=[{"introduced": "0"}, {"fixed": "1.2.0"}],
                severity="HIGH",
                modified=modified,
            )
        ],
    )
    report = malicious("MAL-2099-9", "PyPI", "x-evil")
    report["modified"] = modified
    await ingest_records(runtime, tmp_path, "osv-malicious", "PyPI", [report])


def _names(sources: list[dict[str, Any]]) -> list[str]:
    return [s["name"] for s in sources]


@pytest.mark.parametrize("modified", AGES)
async def test_scan_says_stale_with_the_date_and_the_feed(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, modified: str
) -> None:
    """Measured on main: `vulnerability_data: "complete"` on data the ecosystem list calls stale."""
    await _load(runtime, tmp_path, modified)
    resp = await client.post(
        "/api/scan", json={"ecosystem": "pypi", "packages": {"demo-pkg": "1.2.0"}}
    )
    assert resp.status_code == 200, resp.text
    body = resp.json()
    summary = body["summary"]
    if modified == OLD:
        assert summary["vulnerability_data"] == "stale"
        assert summary["vulnerability_data_as_of"] == OLD
        assert _names(summary["vulnerability_data_sources"]) == ["osv:PyPI"]
        feed = summary["vulnerability_data_sources"][0]
        assert feed["data_as_of"] == OLD and feed["status"] == "stale"
        assert body["packages"][0]["vulnerability_status"] == "stale"
    else:
        assert summary["vulnerability_data"] == "complete"
        assert summary["vulnerability_data_as_of"] is None
        assert summary["vulnerability_data_sources"] == []
        assert body["packages"][0]["vulnerability_status"] == "complete"


@pytest.mark.parametrize("modified", AGES)
async def test_pin_safe_on_old_data_is_stale_and_says_when(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, modified: str
) -> None:
    """Measured on main: `status: "complete"` while its own source is `stale`."""
    await _load(runtime, tmp_path, modified)
    body = (await client.get("/api/pin_safe/pypi/demo-pkg")).json()
    assert body["safe_version"] == "1.2.0"  # still given on stale data
    if modified == OLD:
        assert body["status"] == "stale"
        assert body["data_as_of"] == OLD
        assert set(_names(body["data_sources"])) == {"osv:PyPI", "osv-malicious:PyPI"}
        assert "1.2.0 was computed on vulnerability data stale, as of 2026-01-01" in body["warning"]
    else:
        assert body["status"] == "complete"
        assert body["data_as_of"] is None and body["data_sources"] == []
        assert body["warning"] is None


async def test_pin_safe_with_a_constraint_on_old_data_is_stale(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """The issue's case: a range whose every version is affected, on stale data."""
    await _load(runtime, tmp_path, OLD)
    body = (
        await client.get("/api/pin_safe/pypi/demo-pkg", params={"constraint": ">=1.0,<1.2"})
    ).json()
    assert body["safe_version"] is None and body["status"] == "stale"
    assert body["data_as_of"] == OLD and "as of 2026-01-01" in body["warning"]


@pytest.mark.parametrize("modified", AGES)
async def test_check_bulk_says_how_old_the_malicious_data_is(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, modified: str
) -> None:
    await _load(runtime, tmp_path, modified)
    body = (
        await client.post(
            "/api/check_bulk",
            json={"items": [{"ecosystem": "pypi", "package": "demo-pkg"}]},
        )
    ).json()
    item = body["results"][0]
    assert item["malicious_checked"] is True
    if modified == OLD:
        assert body["malicious_data"] == "stale" and item["malicious_data"] == "stale"
        assert body["malicious_data_as_of"] == OLD
        assert _names(body["malicious_data_sources"]) == ["osv-malicious:PyPI"]
    else:
        assert body["malicious_data"] == "complete" and item["malicious_data"] == "complete"
        assert body["malicious_data_as_of"] is None and body["malicious_data_sources"] == []


async def test_check_bulk_without_malicious_data_is_unavailable(
    client: httpx.AsyncClient, runtime: Runtime
) -> None:
    body = (
        await client.post(
            "/api/check_bulk", json={"items": [{"ecosystem": "npm", "package": "left-pad"}]}
        )
    ).json()
    assert body["malicious_data"] == "unavailable"
    assert body["results"][0]["malicious_data"] == "unavailable"


@pytest.mark.parametrize("modified", AGES)
async def test_ai_stack_says_stale_per_package_and_overall(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, modified: str
) -> None:
    await _load(runtime, tmp_path, modified)
    body = (
        await client.post(
            "/api/ai/stack",
            json={"packages": [{"ecosystem": "pypi", "package": "demo-pkg", "version": "1.2.0"}]},
        )
    ).json()
    vulns = body["packages"][0]["vulnerabilities"]
    summary = body["summary"]
    if modified == OLD:
        assert vulns["status"] == "stale" and vulns["data_as_of"] == OLD
        assert summary["vulnerability_data"] == "stale"
        assert summary["vulnerability_data_as_of"] == OLD
        assert _names(summary["vulnerability_data_sources"]) == ["osv:PyPI"]
    else:
        assert vulns["status"] == "complete"
        assert summary["vulnerability_data"] == "complete"
        assert summary["vulnerability_data_as_of"] is None


@pytest.mark.parametrize("modified", AGES)
async def test_report_and_briefs_say_stale_with_the_date(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path, modified: str
) -> None:
    await _load(runtime, tmp_path, modified)
    report = (await client.get("/api/check/pypi/demo-pkg")).json()
    prompt = (await client.get("/api/prompt/pypi/demo-pkg")).text
    brief = (await client.get("/api/ai/brief/pypi/demo-pkg")).text
    line = "vulnerability data stale, as of 2026-01-01 (osv:PyPI)"
    if modified == OLD:
        assert report["vulnerabilities"]["status"] == "stale"
        assert report["vulnerabilities"]["data_as_of"] == OLD
        rec = report["recommendation"]
        assert rec["action"] != "safe_to_use"
        assert any("stale (as of 2026-01-01)" in issue for issue in rec["issues"])
        assert line in prompt and line in brief
    else:
        assert report["vulnerabilities"]["status"] == "complete"
        assert "stale" not in prompt.split("Sources:")[0]
        assert "newest advisory record 2026-11-20" in brief


async def test_version_scoped_report_says_stale(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """An old version on old data: counted, and the counts said to come from stale data."""
    await _load(runtime, tmp_path, OLD)
    report = (await client.get("/api/check/pypi/demo-pkg", params={"version": "1.0.0"})).json()
    assert report["vulnerabilities"]["status"] == "stale"
    assert report["vulnerabilities"]["count"] == 1
    assert report["recommendation"]["action"] == "update_required"


async def test_cli_scan_warns_on_stale_data_and_fails_with_the_option(
    settings, runtime: Runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pkgintel scan` reads the database with the real clock: records of 2026-01-01 are stale."""
    await _load(runtime, tmp_path, OLD)
    if not settings.database_url.startswith("sqlite"):
        monkeypatch.setenv("PKGINTEL_REDIS_URL", settings.redis_url or "")
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", settings.database_url)
    clean = tmp_path / "requirements.txt"
    clean.write_text("demo-pkg==1.2.0\n")

    async def run(*args: str) -> Any:
        result = await asyncio.to_thread(CliRunner().invoke, app, ["scan", str(clean), *args])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        return result

    plain = await run("--format", "json")
    assert plain.exit_code == 0  # a warning, not a failure, without the option
    assert '"vulnerability_data": "stale"' in plain.stdout
    warning = " ".join(plain.stderr.split())
    assert "warning: the vulnerability data is stale" in warning
    assert "osv:PyPI as of 2026-01-01" in warning and "--fail-on-stale" in warning
    assert "vulnerability data │ stale" in warning  # the summary table, on stderr
    strict = await run("--fail-on-stale")
    assert strict.exit_code == 4  # no answer to trust (was 2, now kept for usage errors)
    assert "--fail-on-stale" in " ".join(strict.stderr.split())
    assert "error" in strict.stderr


async def test_cli_scan_help_documents_the_option() -> None:
    result = await asyncio.to_thread(CliRunner().invoke, app, ["scan", "--help"])
    text = " ".join(result.output.split())
    assert "--fail-on-stale" in text and "Exit 4" in text
