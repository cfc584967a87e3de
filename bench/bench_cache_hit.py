"""
A cache hit is cheap (issue 33, item 2): the server time of a warm `/api/check` (and `/api/health`,
`/api/prompt`) against a stored-bytes floor.

What is measured, and how:

* The upstreams are `tests/fake_registry.py` served in this process (no latency), replaying
  `../shared/data/registry-fixtures`, OSV API included, so each report's vulnerability data is
  available (a report whose vulnerability data is unavailable is rebuilt on every ask, on purpose).
* Each package is asked once (the miss), once more (the first hit builds the memoised report),
  then `--asks` times: **server time** is `ServerTimer`'s, from the request entering the ASGI app to
  its last body chunk, through the whole middleware stack, `httpx.ASGITransport` in this process.
* **floor**: a bare ASGI app that sends the very bytes of the last answer with its headers, timed
  the same way: what sending stored bytes costs here. Target: warm `/api/check` ≤ 1 ms p50.

Run: `.venv/bin/python bench/bench_cache_hit.py [--asks 1000]` (needs ../shared/data). Prints a
table and writes `bench/results/cache-hit-<timestamp>.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import REPO, Row, ServerTimer, machine_info, percentile, render_table
from bench.bench_ecosystems import SHARED, settings_for

PATHS = [
    "/api/check/pypi/requests",
    "/api/check/npm/chalk",
    "/api/check/cargo/regex",
    "/api/health/pypi/requests",
    "/api/prompt/pypi/requests",
]
TARGET_MS = 1.0


class StoredBytes:
    """The floor: answers every request with one stored body and its headers."""

    def __init__(self) -> None:
        self.body = b""
        self.headers: list[tuple[bytes, bytes]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})


async def timed(client: httpx.AsyncClient, timer: ServerTimer, path: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        resp = await client.get(path)
        if resp.status_code != 200:
            raise SystemExit(f"{path}: {resp.status_code} {resp.text[:200]}")
        assert timer.last is not None
        out.append(timer.last * 1000)
    return out


async def measure(asks: int) -> dict[str, Any]:
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime
    from tests.fake_registry import build

    registry = build(SHARED)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = settings_for(Path(tmp) / "hit.db", "http://registry.test", cold=False)
        settings = settings.model_copy(update={"rate_limit_anonymous": "100000000/minute"})
        transport = httpx.ASGITransport(app=registry.app)
        async with build_runtime(settings, transport=transport) as runtime:
            timer = ServerTimer(create_app(settings, runtime=runtime))
            floor = StoredBytes()
            floor_timer = ServerTimer(floor)
            async with (
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=timer), base_url="http://pkgintel.bench"
                ) as client,
                httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=floor_timer), base_url="http://floor"
                ) as floor_client,
            ):
                for path in PATHS:
                    first = await client.get(path)
                    await client.get(path)
                    warm = await timed(client, timer, path, asks)
                    async with client.stream("GET", path) as last:
                        floor.body = b"".join([chunk async for chunk in last.aiter_raw()])
                    last = await client.get(path)
                    floor.headers = [(k.encode(), v.encode()) for k, v in last.headers.items()]
                    stored = await timed(floor_client, floor_timer, "/", asks)
                    results[path] = {
                        "first_status": first.status_code,
                        "cache": last.json().get("_cache")
                        if "json" in last.headers.get("content-type", "")
                        else None,
                        "bytes": len(last.content),
                        "warm_p50_ms": round(percentile(warm, 50) or 0, 3),
                        "warm_p99_ms": round(percentile(warm, 99) or 0, 3),
                        "floor_p50_ms": round(percentile(stored, 50) or 0, 3),
                    }
    return results


def rows(results: dict[str, Any]) -> list[Row]:
    out = []
    for path, r in results.items():
        target = path.startswith("/api/check/")
        out.append(
            Row(
                f"warm {path} ({r['bytes']:,} B)",
                f"p50 {r['warm_p50_ms']:.2f} ms, p99 {r['warm_p99_ms']:.2f} ms; "
                f"stored bytes p50 {r['floor_p50_ms']:.2f} ms",
                f"<= {TARGET_MS:g} ms p50" if target else "(no target)",
                r["warm_p50_ms"] <= TARGET_MS if target else None,
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--asks", type=int, default=1000)
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print(f"needs the shared data at {SHARED}", file=sys.stderr)
        return 2
    started = time.time()
    results = asyncio.run(measure(args.asks))
    print(render_table(rows(results)))
    out = (
        REPO
        / "bench"
        / "results"
        / f"cache-hit-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(started))}.json"
    )
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"machine": machine_info(), "results": results}, indent=2))
    print(f"written to {out.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
