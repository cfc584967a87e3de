"""The command line a newcomer meets: `--version`, one line for a bad setting (exit 2), and a name
list URL that answers HTML refused clearly while the PEP 691 JSON form is asked for."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pkgintel import __version__
from pkgintel.cli.main import NAME_LIST_ACCEPT, _read_source


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    return subprocess.run(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "pkgintel", *args],
        env={**full, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version() -> None:
    done = _run("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"pkgintel {__version__}"


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("PKGINTEL_UPSTREAM_TIMEOUT_S", "-3", "greater than 0"),
        ("PKGINTEL_DATABASE_URL", "mysql://db", "sqlite+aiosqlite://"),
        ("PKGINTEL_TRUSTED_PROXIES", "not-json", "JSON"),
    ],
)
def test_bad_setting_is_one_line_and_exit_2(variable: str, value: str, says: str) -> None:
    done = _run("migrate", **{variable: value})
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: bad setting {variable}={value}:") and says in lines[0]


class _Handler(BaseHTTPRequestHandler):
    seen_accept: list[str] = []  # noqa: RUF012 - test recorder

    def do_GET(self) -> None:
        _Handler.seen_accept.append(self.headers.get("Accept", ""))
        html = self.path.startswith("/html")
        body = b"<html><a href='/simple/x/'>x</a></html>" if html else b'{"projects": []}'
        self.send_response(200)
        self.send_header(
            "Content-Type", "text/html" if html else "application/vnd.pypi.simple.v1+json"
        )
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def index() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_simple_index_is_asked_for_json_and_html_is_refused(index: str) -> None:
    assert _read_source(f"{index}/simple/", 5) == b'{"projects": []}'
    assert _Handler.seen_accept[-1] == NAME_LIST_ACCEPT
    with pytest.raises(ValueError, match="PEP 691"):
        _read_source(f"{index}/html/simple/", 5)
