"""`pkgintel ingest osv|kev|epss|all` through the CLI on hand-written sources in the real formats."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pkgintel.cli.ingest import default_feed
from pkgintel.entry import app
from tests.osv_records import malicious, record, write_export

KEV = {
    "catalogVersion": "2099.01.01",
    "dateReleased": "2099-01-01T00:00:00.000Z",
    "count": 1,
    "vulnerabilities": [
        {
            "cveID": "CVE-2099-0001",
            "vendorProject": "v",
            "product": "p",
            "vulnerabilityName": "n",
            "dateAdded": "2099-01-02",
            "shortDescription": "",
            "requiredAction": "",
            "dueDate": "2099-01-23",
            "knownRansomwareCampaignUse": "Unknown",
            "notes": "",
        }
    ],
}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("PKGINTEL_OSV_ECOSYSTEMS", '["PyPI", "npm"]')
    monkeypatch.delenv("PKGINTEL_REDIS_URL", raising=False)
    return tmp_path


def test_feed_names() -> None:
    assert default_feed("/data/osv-malicious") == "osv-malicious"
    assert default_feed("/data/osv-converted/npm/all.zip") == "osv-converted"
    assert default_feed("https://osv-vulnerabilities.storage.googleapis.com") == "osv"


def test_ingest_all_then_rerun(env: Path) -> None:
    write_export(
        env / "osv",
        "PyPI",
        [record("PYSEC-1", "PyPI", "a", events=[{"introduced": "0"}], aliases=["CVE-2099-0001"])],
    )
    write_export(env / "osv-malicious", "npm", [malicious("MAL-1", "npm", "b")])
    (env / "kev.json").write_text(json.dumps(KEV))
    (env / "epss.csv.gz").write_bytes(
        gzip.compress(b"cve,epss,percentile\nCVE-2099-0001,0.5,0.9\n")
    )
    args = [
        "ingest",
        "all",
        "--osv-from",
        str(env / "osv"),
        "--osv-from",
        str(env / "osv-malicious"),
        "--kev-from",
        str(env / "kev.json"),
        "--epss-from",
        str(env / "epss.csv.gz"),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "osv:PyPI: 1 records — added 1" in result.output
    assert "osv-malicious:npm: 1 records — added 1" in result.output
    assert "kev: 1 CVEs, catalog 2099.01.01" in result.output and "epss: 1 scores" in result.output
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0 and "unchanged 1" in again.output


def test_missing_source_fails_with_exit_1(env: Path) -> None:
    result = CliRunner().invoke(
        app, ["ingest", "osv", "--ecosystem", "PyPI", "--from", str(env / "nowhere")]
    )
    assert result.exit_code == 1
    broken = env / "kev.json"
    broken.write_text("{not json")
    result = CliRunner().invoke(app, ["ingest", "kev", "--from", str(broken)])
    assert result.exit_code == 1
