"""Log lines people and collectors can read: time (ISO 8601, UTC), level, logger and message on one
line (`PKGINTEL_LOG_FORMAT=text`), or one JSON object per line (`json`) — from pkgintel and from
uvicorn's own loggers alike."""

from __future__ import annotations

import logging
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from pkgintel.logs import JsonFormatter, TextFormatter, logging_config

SRC = Path(__file__).resolve().parents[1] / "src"
TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) [\w.]+: \S"
)


def _record(msg: str, *args: object, **extra: object) -> logging.LogRecord:
    record = logging.LogRecord("pkgintel.test", logging.WARNING, __file__, 1, msg, args, None)
    record.__dict__.update(extra)
    return record


def test_text_line_has_time_level_logger_message_and_extra_fields() -> None:
    line = TextFormatter().format(_record("registry %s failed\nagain", "pypi", ecosystem="pypi"))
    assert TEXT_LINE.match(line), line
    assert "\n" not in line
    assert line.endswith("WARNING pkgintel.test: registry pypi failed\\nagain ecosystem=pypi")


def test_json_line_is_one_object_with_ts_level_logger_msg_and_extra_fields() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = _record("downloads unavailable for %s", "flask", package="flask")
        record.exc_info = sys.exc_info()
    line = JsonFormatter().format(record)
    assert "\n" not in line
    body = orjson.loads(line)
    assert body["level"] == "WARNING" and body["logger"] == "pkgintel.test"
    assert body["msg"] == "downloads unavailable for flask" and body["package"] == "flask"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["ts"])
    assert "ValueError: boom" in body["exc"]


def test_upstream_request_lines_only_at_debug() -> None:
    assert logging_config("info", "text")["loggers"]["httpx"]["level"] == "WARNING"
    assert logging_config("debug", "text")["loggers"]["httpx"]["level"] == "DEBUG"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH", "")) if p)
    return {
        **env,
        "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'logs.db'}",
        "PKGINTEL_INITIAL_INGEST": "false",
        "PKGINTEL_WORKER_EMBEDDED": "false",
        **extra,
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_serve_writes_every_line_in_the_format_uvicorn_included(fmt: str, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with log.open("w") as sink:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "pkgintel", "serve", "--port", str(_free_port())],
            env=_env(tmp_path, PKGINTEL_LOG_FORMAT=fmt),
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
        try:
            deadline = time.monotonic() + 120
            while "Application startup complete" not in log.read_text():
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    lines = log.read_text().splitlines()
    assert lines
    loggers = set()
    for line in lines:
        if fmt == "json":
            body = orjson.loads(line)
            assert {"ts", "level", "logger", "msg"} <= set(body), line
            loggers.add(body["logger"])
        else:
            assert TEXT_LINE.match(line), line
            loggers.add(line.split(" ")[2].rstrip(":"))
    assert "uvicorn.error" in loggers


@pytest.mark.slow
def test_mcp_stdio_logs_to_stderr_only(tmp_path: Path) -> None:
    """`pkgintel mcp` with stdin closed: stdout stays empty (it carries the protocol)."""
    done = subprocess.run(
        [sys.executable, "-m", "pkgintel", "mcp"],
        env=_env(tmp_path, PKGINTEL_LOG_LEVEL="debug"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if TEXT_LINE.match(line)]
    assert lines, done.stderr
