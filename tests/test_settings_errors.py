"""Every bad setting is one line on stderr naming the `PKGINTEL_` variable, what is wrong and an
example of a right value, and exit 2: values `Settings` refuses, and a database or Redis that cannot
be reached at start — for every command that needs them and for the uvicorn app factory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pkgintel.settings_errors import BadSetting, example_value, mask_url, shown_value

pytestmark = pytest.mark.slow


SRC = Path(__file__).resolve().parents[1] / "src"


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    # This checkout's code, whichever one the interpreter has installed.
    path = os.pathsep.join(p for p in (str(SRC), full.get("PYTHONPATH", "")) if p)
    return subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", *args],
        env={**full, "PYTHONPATH": path, "PKGINTEL_INITIAL_INGEST": "false", **env},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _one_line(done: subprocess.CompletedProcess[str], variable: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"error: bad setting {variable}="), lines[0]
    assert f"; for example {variable}=" in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("command", "variable", "value", "says"),
    [
        (["serve"], "PKGINTEL_LOG_LEVEL", "verbose", "'debug', 'info', 'warning', 'error' or"),
        (["mcp"], "PKGINTEL_LOG_LEVEL", "verbose", "'debug', 'info', 'warning', 'error' or"),
        (["worker"], "PKGINTEL_LOG_FORMAT", "xml", "'text' or 'json'"),
        (["jobs", "list"], "PKGINTEL_REDIS_URL", "http://cache:6379", "redis://"),
    ],
)
def test_bad_value_is_one_line_for_every_command(
    command: list[str], variable: str, value: str, says: str
) -> None:
    line = _one_line(_run("pkgintel", *command, **{variable: value}), variable)
    assert f"{variable}={value}:" in line and says in line


def test_log_level_is_case_insensitive(tmp_path: Path) -> None:
    done = _run(
        "pkgintel",
        "migrate",
        PKGINTEL_LOG_LEVEL="WARNING",
        PKGINTEL_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}",
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "command",
    [["serve"], ["mcp"], ["ingest", "kev"], ["check", "npm", "left-pad"]],
)
def test_sqlite_file_in_a_missing_folder_is_one_line(command: list[str], tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'pkgintel.db'}"
    line = _one_line(_run("pkgintel", *command, PKGINTEL_DATABASE_URL=url), "PKGINTEL_DATABASE_URL")
    assert f"the folder {tmp_path / 'missing'} does not exist" in line


@pytest.mark.parametrize("command", [["serve"], ["migrate"]])
def test_unreachable_postgres_is_one_line_with_the_password_masked(command: list[str]) -> None:
    url = "postgresql+asyncpg://pkgintel:s3cret@127.0.0.1:1/pkgintel"
    line = _one_line(_run("pkgintel", *command, PKGINTEL_DATABASE_URL=url), "PKGINTEL_DATABASE_URL")
    assert "cannot connect to the database" in line
    assert "s3cret" not in line and "pkgintel:***@127.0.0.1:1" in line


@pytest.mark.parametrize("command", [["worker"], ["check", "npm", "left-pad"]])
def test_unreachable_redis_is_one_line(command: list[str], tmp_path: Path) -> None:
    done = _run(
        "pkgintel",
        *command,
        PKGINTEL_REDIS_URL="redis://127.0.0.1:1/0",
        PKGINTEL_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}",
    )
    assert "cannot reach Redis" in _one_line(done, "PKGINTEL_REDIS_URL")


def test_uvicorn_app_factory_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'missing' / 'x.db'}"
    done = _run(
        "uvicorn",
        "pkgintel.app:app_from_env",
        "--factory",
        "--port",
        "0",
        PKGINTEL_DATABASE_URL=url,
    )
    _one_line(done, "PKGINTEL_DATABASE_URL")


def test_secrets_are_never_echoed() -> None:
    assert shown_value("admin_token", "abc") == "***"
    assert mask_url("redis://:pw@host:6379/0") == "redis://:***@host:6379/0"
    assert "pw" not in BadSetting("database_url", "postgresql+asyncpg://u:pw@h/db", "x").line


def test_every_setting_has_an_example_or_a_default() -> None:
    from pkgintel.config import Settings

    missing = [name for name in Settings.model_fields if not example_value(name)]
    assert missing == []
