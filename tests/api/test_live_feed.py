"""
The live malicious-advisory feed with a real server process and a real client reading the stream:
`hello` first, an `advisory` within a second of an ingestion (run in this, another, process) that
adds a malicious record, and resumption with `Last-Event-ID`.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.runtime.container import Runtime
from tests.osv_records import ingest_records, malicious


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(settings: Settings, runtime: Runtime) -> Iterator[str]:
    """A `pkgintel` server process on the test database (and Redis, when the backend has it)."""
    port = _free_port()
    env = {
        **os.environ,
        "PKGINTEL_DATABASE_URL": settings.database_url,
        "PKGINTEL_FEED_POLL_S": "0.5",
        "PKGINTEL_OSV_API_FALLBACK": "false",
    }
    env.pop("PKGINTEL_REDIS_URL", None)
    if settings.redis_url:
        env["PKGINTEL_REDIS_URL"] = settings.redis_url
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [
            sys.executable,
            "-m",
            "uvicorn",
            "pkgintel.app:app_from_env",
            "--factory",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            pytest.fail("server did not start")
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


async def _one_more(runtime: Runtime, tmp_path: Path, baseline: list[dict], record: dict) -> None:
    """A second ingestion of the feed: the baseline again and one new malicious record."""
    await ingest_records(runtime, tmp_path / "v2", "osv-malicious", "npm", [*baseline, record])


async def _events(response: httpx.Response) -> AsyncIterator[dict]:
    """Parse the SSE wire format: `event:`, `id:`, `data:` lines, a blank line ends an event."""
    event: dict = {}
    async for line in response.aiter_lines():
        if not line.strip():
            if event:
                yield event
            event = {}
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        event[field] = value.removeprefix(" ")


async def test_advisory_event_within_a_second_and_resume(
    server: str, runtime: Runtime, tmp_path: Path
) -> None:
    await ingest_records(
        runtime,
        tmp_path / "v1",
        "osv-malicious",
        "npm",
        [malicious("MAL-2099-100", "npm", "first-bad")],
    )  # baseline
    async with httpx.AsyncClient(base_url=server, timeout=10) as client:
        async with client.stream("GET", "/api/live/malicious") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            stream = _events(response)
            hello = await anext(stream)
            assert hello["event"] == "hello"
            started = time.monotonic()
            await ingest_records(
                runtime,
                tmp_path / "v2",
                "osv-malicious",
                "npm",
                [
                    malicious("MAL-2099-100", "npm", "first-bad"),
                    malicious("MAL-2099-101", "npm", "@evil/second-bad"),
                ],
            )
            event = await asyncio.wait_for(anext(stream), timeout=5)
            elapsed = time.monotonic() - started
        assert event["event"] == "advisory"
        data = json.loads(event["data"])
        assert data["vuln_id"] == "MAL-2099-101" and data["package"] == "@evil/second-bad"
        assert set(data) == {
            "ecosystem",
            "package",
            "vuln_id",
            "severity",
            "summary",
            "published_at",
        }
        assert elapsed < 1.0, f"event took {elapsed:.2f} s"
        first_id = int(event["id"])
        # A client that reconnects with Last-Event-ID just before it gets the event again.
        headers = {"Last-Event-ID": str(first_id - 1)}
        async with client.stream("GET", "/api/live/malicious", headers=headers) as response:
            stream = _events(response)
            assert (await anext(stream))["event"] == "hello"
            replay = await asyncio.wait_for(anext(stream), timeout=5)
        assert (
            replay["id"] == str(first_id)
            and json.loads(replay["data"])["vuln_id"] == "MAL-2099-101"
        )


async def test_event_id_beyond_the_latest_resumes_from_now(
    server: str, runtime: Runtime, tmp_path: Path
) -> None:
    """A Last-Event-ID this service never sent (20 digits once froze the stream): resume from now."""
    baseline = [malicious("MAL-2099-200", "npm", "base-bad")]
    await ingest_records(runtime, tmp_path / "v1", "osv-malicious", "npm", baseline)
    headers = {"Last-Event-ID": "9223372036854775807"}
    async with (
        httpx.AsyncClient(base_url=server, timeout=10) as client,
        client.stream("GET", "/api/live/malicious", headers=headers) as response,
    ):
        assert response.status_code == 200
        stream = _events(response)
        hello = await anext(stream)
        assert json.loads(hello["data"])["resume_clamped"] is True
        await _one_more(runtime, tmp_path, baseline, malicious("MAL-2099-201", "npm", "later-bad"))
        event = await asyncio.wait_for(anext(stream), timeout=5)
    assert json.loads(event["data"])["vuln_id"] == "MAL-2099-201"


async def test_a_new_connection_reads_on_from_the_id_its_hello_names(
    client: httpx.AsyncClient, runtime: Runtime, tmp_path: Path
) -> None:
    """Without Last-Event-ID the stream starts at the `latest_event_id` the hello announces, not
    at whatever the watcher knows later: an event stored between the two was once skipped (a
    two-process CI run waited 10 s for it)."""
    baseline = [malicious("MAL-2099-300", "npm", "base-bad")]
    await ingest_records(runtime, tmp_path / "v1", "osv-malicious", "npm", baseline)
    await _one_more(runtime, tmp_path, baseline, malicious("MAL-2099-301", "npm", "next-bad"))
    asked: list[int | None] = []

    async def events(after: int | None, *, wait_s: float) -> AsyncIterator[None]:
        asked.append(after)
        return
        yield  # an async generator that ends at once

    runtime.feed.events = events  # type: ignore[method-assign]
    resp = await client.get("/api/live/malicious")
    hello = json.loads(
        next(line for line in resp.text.splitlines() if line.startswith("data:"))[5:]
    )
    assert hello["latest_event_id"] > 0
    assert asked == [hello["latest_event_id"]]
