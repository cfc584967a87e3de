"""
Client addresses: the access log carries a keyed hash, never the address (in process and with a
real `pkgintel serve`), and `X-Forwarded-For` is walked from the right past trusted proxies only,
so a client cannot choose who it is by writing the header itself.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from pkgintel.api.http import ClientIdentity
from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime

PROXIES = ["10.0.0.0/8", "192.0.2.1/32"]


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        # No trusted proxy in front: the header is ignored, whatever it says.
        ("198.51.100.7", ["203.0.113.1"], "198.51.100.7"),
        # One trusted proxy: the entry it appended is the client.
        ("192.0.2.1", ["203.0.113.5"], "203.0.113.5"),
        # The client wrote a fake first entry; the proxy appended the real address on the right.
        ("192.0.2.1", ["6.6.6.6, 203.0.113.5"], "203.0.113.5"),
        # Two trusted proxies in a row, then the client; left of it is spoofed.
        ("10.1.1.1", ["1.2.3.4, 203.0.113.9, 10.2.2.2"], "203.0.113.9"),
        # Spoofed "trusted" address on the left is never reached.
        ("10.1.1.1", ["10.9.9.9, 203.0.113.9"], "203.0.113.9"),
        # Several header lines are one list, in order.
        ("10.1.1.1", ["1.2.3.4", "203.0.113.9, 10.2.2.2"], "203.0.113.9"),
        # Garbage in the header stops the walk: it is what the proxy saw, so it is the client.
        ("192.0.2.1", ["203.0.113.5, not-an-ip"], "not-an-ip"),
        # Only trusted hops: the leftmost is the client.
        ("10.1.1.1", ["10.3.3.3, 10.2.2.2"], "10.3.3.3"),
        ("10.1.1.1", [], "10.1.1.1"),
    ],
)
def test_forwarded_for_is_walked_from_the_right(
    peer: str, forwarded: list[str], client: str
) -> None:
    identity = ClientIdentity(PROXIES, "s")
    assert identity.address_of(peer, forwarded) == client


def test_spoofed_header_does_not_change_the_key() -> None:
    identity = ClientIdentity(PROXIES, "s")
    honest = identity.hash(identity.address_of("192.0.2.1", ["203.0.113.5"]))
    spoofed = identity.hash(identity.address_of("192.0.2.1", ["1.1.1.1, 203.0.113.5"]))
    assert honest == spoofed


async def test_access_log_has_the_hash_not_the_address(
    settings: Settings, runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(settings, runtime=runtime)
    address = "198.51.100.23"
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    caplog.set_level(logging.INFO, logger="pkgintel.access")
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        await client.get("/api/exists/npm/tiny-lib")
        await client.get("/api/check/npm/no-such-package-here")
    lines = [r.getMessage() for r in caplog.records if r.name == "pkgintel.access"]
    assert len(lines) == 2
    assert address not in caplog.text
    expected = ClientIdentity([], settings.ip_hash_secret).hash(address)
    assert all(f"client={expected}" in line for line in lines)
    assert '"GET /api/exists/npm/tiny-lib HTTP/1.1" 200' in lines[0]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_served_access_log_never_holds_a_client_address(tmp_path: Path) -> None:
    """`pkgintel serve` as an operator runs it, behind a trusted proxy (127.0.0.3)."""
    port = _free_port()
    log = tmp_path / "serve.log"
    env = {
        **os.environ,
        "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'p.db'}",
        "PKGINTEL_TRUSTED_PROXIES": '["127.0.0.3/32"]',
        "PKGINTEL_IP_HASH_SECRET": "privacy-test",
        "PKGINTEL_LOG_LEVEL": "info",
    }
    env.pop("PKGINTEL_REDIS_URL", None)
    with log.open("wb") as out:
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "pkgintel", "serve", "--host", "127.0.0.2", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.2:{port}"
    transport = httpx.HTTPTransport(local_address="127.0.0.3")
    try:
        with httpx.Client(transport=transport, base_url=base, timeout=2) as client:
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.get("/api/status")
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        pytest.fail("server did not start: " + log.read_text())
                    time.sleep(0.2)
            for _ in range(3):
                client.get(
                    "/api/exists/npm/lodash",
                    headers={"X-Forwarded-For": "6.6.6.6, 203.0.113.77"},
                )
    finally:
        proc.terminate()
        proc.wait(15)
    text = log.read_text()
    assert "pkgintel.access" in text or "client=" in text, text
    assert "203.0.113.77" not in text
    assert "127.0.0.3" not in text
    assert "6.6.6.6" not in text
    expected = ClientIdentity([], "privacy-test").hash("203.0.113.77")
    assert f"client={expected}" in text
