"""The CLI takes the same ecosystem names as the JSON API (any case, aliases) and lists them when wrong."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pkgintel.entry import app

TSV = "name\tdownloads\nrequests\t100\nflask\t50\n"


@pytest.mark.parametrize("given", ["PyPI", "pip", "PYPI"])
def test_ingest_names_takes_an_alias(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str
) -> None:
    monkeypatch.setenv("PKGINTEL_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite'}")
    src = tmp_path / "pypi.tsv.gz"
    src.write_bytes(gzip.compress(TSV.encode()))
    result = CliRunner().invoke(app, ["ingest", "names", "--ecosystem", given, "--from", str(src)])
    assert result.exit_code == 0, result.output
    assert "pypi names" in result.output


def test_an_unknown_ecosystem_is_a_usage_error_listing_the_names(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", "python", "requests"])
    assert result.exit_code == 2
    assert "unknown ecosystem 'python'" in result.output and "crates.io" in result.output
