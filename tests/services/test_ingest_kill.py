"""
A real `kill -9` in the middle of `pkgintel ingest osv`, then a rerun: the database must end with
the same content as one clean run (the contract in `services/advisories/ingest.py`).

The ingestion runs as a subprocess on the shared `osv-malicious/npm` export (22,241 records, 23
batches of 1,000). The test polls the SQLite file read-only until some batches, but not all, are
committed, and kills the process there.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.shared import requires_shared, shared_path

pytestmark = [requires_shared, pytest.mark.shared, pytest.mark.slow]

POLL_S = 0.02
RUN_TIMEOUT_S = 300.0

RECORDS_SQL = (
    "SELECT feed, osv_ecosystem, id, modified, published, content_hash, withdrawn, is_malicious,"
    " record FROM advisory_record"
)
"""Every column but `ingested_at` (a wall-clock time that differs between any two runs)."""
PACKAGES_SQL = "SELECT ecosystem, name, feed, osv_ecosystem, advisory_id FROM advisory_package"


def _command(export: Path) -> list[str]:
    args = ["ingest", "osv", "--ecosystem", "npm", "--from", str(export)]
    return [sys.executable, "-m", "pkgintel", *args]


def _env(db: Path) -> dict[str, str]:
    return {**os.environ, "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{db}"}


def _run(export: Path, db: Path, workdir: Path) -> str:
    """Run the ingestion to completion; returns its stdout (the summary line)."""
    done = subprocess.run(  # noqa: S603 (our own command line)
        _command(export),
        cwd=workdir,
        env=_env(db),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, (
        f"ingest failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-2000:]}"
    )
    return done.stdout


def _read_only(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05)


def _count(db: Path) -> int | None:
    """Rows in advisory_record, or None while the file or table does not exist yet or is locked."""
    try:
        conn = _read_only(db)
    except sqlite3.Error:
        return None
    try:
        return int(conn.execute("SELECT count(*) FROM advisory_record").fetchone()[0])
    except sqlite3.Error:  # no such table (migrations under way), database is locked, ...
        return None
    finally:
        conn.close()


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = _read_only(db)
    try:
        return sorted(conn.execute(sql).fetchall())
    finally:
        conn.close()


def _runs(db: Path) -> list[tuple[Any, ...]]:
    return _rows(
        db,
        "SELECT feed, scope, location, completed_at IS NOT NULL, records, data_updated_at,"
        " json_extract(detail, '$.advisory_records'), json_extract(detail, '$.malicious_records')"
        " FROM source_run",
    )


def _assert_same(what: str, clean: list[tuple[Any, ...]], other: list[tuple[Any, ...]]) -> None:
    """Equality with a short message (a plain `==` on 22,000 rows makes pytest diff them all)."""
    assert len(clean) == len(other), (
        f"{what}: {len(clean)} rows after a clean run, {len(other)} after kill + rerun"
    )
    for index, (a, b) in enumerate(zip(clean, other, strict=True)):
        assert a == b, f"{what}: row {index} differs: clean {a[:6]} vs kill + rerun {b[:6]}"


def _summary_count(stdout: str, field: str) -> int:
    match = re.search(rf"{field} ([\d,]+)", stdout)
    assert match, f"no '{field}' in the summary: {stdout!r}"
    return int(match.group(1).replace(",", ""))


def _kill_mid_way(export: Path, db: Path, workdir: Path, total: int) -> int:
    """Start the ingestion, SIGKILL it once 0 < rows < total; returns the rows it left."""
    with (workdir / "killed.out").open("w") as out, (workdir / "killed.err").open("w") as errf:
        proc = subprocess.Popen(  # noqa: S603 (our own command line)
            _command(export), cwd=workdir, env=_env(db), stdout=out, stderr=errf
        )
        seen: int | None = None
        try:
            deadline = time.monotonic() + RUN_TIMEOUT_S
            while proc.poll() is None and time.monotonic() < deadline:
                seen = _count(db)
                if seen is not None and 0 < seen < total:
                    os.kill(proc.pid, signal.SIGKILL)
                    break
                time.sleep(POLL_S)
        finally:
            if proc.poll() is None:  # timed out, or an assertion above failed
                proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, (
        f"the run was not killed mid-way (exit {proc.returncode}, last count {seen} of {total}); "
        "it finished between two polls"
    )
    left = _count(db)
    assert left is not None and 0 < left < total, f"killed run left {left} of {total} records"
    return left


def test_kill_9_then_rerun_equals_clean_run(tmp_path: Path) -> None:
    export = shared_path("osv-malicious", "npm", "all.zip").parent.parent
    clean, killed = tmp_path / "clean.db", tmp_path / "killed.db"

    clean_out = _run(export, clean, tmp_path)
    total = _rows(clean, "SELECT count(*) FROM advisory_record")[0][0]
    assert total > 0 and _summary_count(clean_out, "added") == total

    left = _kill_mid_way(export, killed, tmp_path, total)
    interrupted = _runs(killed)
    assert [r[:4] for r in interrupted] == [
        ("osv-malicious", "npm", str(export / "npm" / "all.zip"), 0)
    ]

    rerun_out = _run(export, killed, tmp_path)
    unchanged = _summary_count(rerun_out, "unchanged")
    assert unchanged > 0, f"the rerun re-wrote everything: {rerun_out!r}"
    assert unchanged == left and _summary_count(rerun_out, "added") == total - left, rerun_out

    _assert_same(
        "advisory_record",
        _rows(clean, RECORDS_SQL),
        _rows(killed, RECORDS_SQL),
    )
    _assert_same(
        "advisory_package",
        _rows(clean, PACKAGES_SQL),
        _rows(killed, PACKAGES_SQL),
    )
    clean_runs, killed_runs = _runs(clean), _runs(killed)
    assert clean_runs == killed_runs
    assert [r[3] for r in clean_runs] == [1], "source_run must say completed"
    # A killed first load is still a first load: the rerun must not announce it as news.
    assert (
        _rows(clean, "SELECT count(*) FROM feed_event")
        == _rows(killed, "SELECT count(*) FROM feed_event")
        == [(0,)]
    )
