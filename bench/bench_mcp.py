"""
MCP benchmark: `package_exists` and warm `check_package` round trips over streamable HTTP, next to the
HTTP endpoints that give the same answers (`/api/exists/npm/<name>`, `/api/check/npm/lodash`).

Setup (all on 127.0.0.1, free ports, removed on exit): a temporary SQLite database with the shared npm
name list loaded (`pkgintel ingest names`; without the list the index is empty and `exists` answers
`null`, still a database round trip), the replay registry `tests/fake_registry.py` (recorded bodies,
`--latency-ms`), and `pkgintel serve` (1 worker) pointed at it. `check` is primed once, so every timed
call is warm (the registry data comes from the in-process cache).

Three clients, called in turn (interleaved, so a burst of load on this shared machine hits all three
alike), each sequential on its keep-alive connection (unloaded latency), then `--concurrency` callers
for throughput:

* **http**: `GET` of the JSON endpoint with httpx.
* **mcp raw**: one JSON-RPC `tools/call` `POST /mcp` with httpx, as a 2025-11-25 client sends it
  (stateless: no initialize, no session); the reply is parsed. This is what the server adds.
* **mcp sdk**: the official SDK client (`mcp.Client(url)`, its default protocol negotiation), which
  also validates each result against the tool's output schema on the client side.

Then the same app in-process (`create_app(settings, runtime=...)` over the same database and registry,
called through `httpx.ASGITransport`), timed by `ServerTimer` from the request entering the app to its
last body chunk: the server-side cost of each door without sockets or client work, which is far less
disturbed by other load on the machine.

Target: MCP adds at most 2 ms p50 over the HTTP endpoint (mcp raw vs http, and in-process). Figures are printed; nothing
is asserted. Every loop is bounded by a count and by `LOOP_CAP_S`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Row, ServerTimer, machine_info, percentile, pkgintel_cmd, render_table

LOOP_CAP_S = 60.0
NAMES = REPO.parent / "shared" / "data" / "names" / "npm.tsv.gz"
HEADERS = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
    "mcp-protocol-version": "2025-11-25",
    "accept-encoding": "gzip",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


async def throughput(call: Callable[[], Awaitable[Any]], total: int, concurrency: int) -> float:
    queue = iter(range(total))
    stop = time.monotonic() + LOOP_CAP_S

    async def worker() -> int:
        done = 0
        for _ in queue:
            if time.monotonic() > stop:
                break
            await call()
            done += 1
        return done

    t = time.perf_counter()
    counts = await asyncio.gather(*(worker() for _ in range(concurrency)))
    return sum(counts) / (time.perf_counter() - t)


def rpc(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


async def measure(base: str, args: argparse.Namespace) -> list[Row]:
    from mcp import Client

    rows: list[Row] = []
    cases = [
        (
            "package_exists",
            {"ecosystem": "npm", "package": "lodash"},
            "/api/exists/npm/lodash",
        ),
        (
            "check_package (warm)",
            {"ecosystem": "npm", "package": "lodash"},
            "/api/check/npm/lodash",
        ),
    ]
    limits = httpx.Limits(
        max_connections=args.concurrency, max_keepalive_connections=args.concurrency
    )
    async with (
        httpx.AsyncClient(
            base_url=base, headers={"accept-encoding": "gzip"}, limits=limits
        ) as http,
        Client(f"{base}/mcp") as sdk,
    ):
        for label, arguments, path in cases:
            tool = label.split()[0]
            body = json.dumps(rpc(tool, arguments)).encode()

            async def via_http(path: str = path) -> None:
                resp = await http.get(path)
                assert resp.status_code == 200, resp.text
                resp.json()

            async def via_raw(body: bytes = body) -> None:
                resp = await http.post("/mcp", content=body, headers=HEADERS)
                assert resp.status_code == 200, resp.text
                assert "structuredContent" in resp.json()["result"]

            async def via_sdk(tool: str = tool, arguments: dict[str, Any] = arguments) -> None:
                result = await sdk.call_tool(tool, arguments)
                assert not result.is_error

            for call in (via_http, via_raw, via_sdk):  # prime (and warm the report cache)
                await call()
            clients = {"http": via_http, "mcp raw": via_raw, "mcp sdk": via_sdk}
            times: dict[str, list[float]] = {name: [] for name in clients}
            stop = time.monotonic() + LOOP_CAP_S
            for _ in range(args.n):  # interleaved, so a load burst hits every client alike
                if time.monotonic() > stop:
                    break
                for name, call in clients.items():
                    t = time.perf_counter()
                    await call()
                    times[name].append((time.perf_counter() - t) * 1000)
            p50: dict[str, float] = {}
            for name, values in times.items():
                p50[name] = percentile(values, 50) or 0.0
                p99 = percentile(values, 99) or 0.0
                rows.append(
                    Row(
                        f"{label}: {name}, sequential ×{len(values)}",
                        f"p50 {p50[name]:.2f} ms, p99 {p99:.2f} ms, {1000 / (sum(values) / len(values)):.0f} calls/s",
                    )
                )
            paired = [m - h for m, h in zip(times["mcp raw"], times["http"], strict=True)]
            rows.append(
                Row(
                    f"{label}: MCP adds, p50 of paired (mcp raw - http)",
                    f"{percentile(paired, 50) or 0.0:+.2f} ms",
                )
            )
            for name, call in (("http", via_http), ("mcp raw", via_raw)):
                rate = await throughput(call, args.n * 4, args.concurrency)
                rows.append(
                    Row(f"{label}: {name}, {args.concurrency} concurrent", f"{rate:.0f} calls/s")
                )
            added = p50["mcp raw"] - p50["http"]
            rows.append(
                Row(
                    f"{label}: MCP adds (mcp raw p50 - http p50)",
                    f"{added:+.2f} ms",
                    "≤ 2 ms",
                    added <= 2.0,
                )
            )
            rows.append(
                Row(
                    f"{label}: SDK client adds (mcp sdk p50 - http p50)",
                    f"{p50['mcp sdk'] - p50['http']:+.2f} ms",
                )
            )
    return rows


CASES: tuple[tuple[str, dict[str, Any], str], ...] = (
    ("package_exists", {"ecosystem": "npm", "package": "lodash"}, "/api/exists/npm/lodash"),
    ("check_package (warm)", {"ecosystem": "npm", "package": "lodash"}, "/api/check/npm/lodash"),
)


async def measure_inproc(env: dict[str, str], args: argparse.Namespace) -> list[Row]:
    """Server time in-process (`ServerTimer`): the same app and data, no sockets, no client cost."""
    from pkgintel.app import create_app
    from pkgintel.config import Settings
    from pkgintel.runtime.bootstrap import build_runtime

    settings = Settings(
        _env_file=None,
        database_url=env["PKGINTEL_DATABASE_URL"],
        upstream_npm_url=env["PKGINTEL_UPSTREAM_NPM_URL"],
        upstream_npm_downloads_url=env["PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL"],
        osv_api_fallback=False,
        migrate_on_start=False,
    )
    rows: list[Row] = []
    async with build_runtime(settings) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=timer), base_url="http://127.0.0.1"
        ) as client:
            for label, arguments, path in CASES:
                body = json.dumps(rpc(label.split()[0], arguments)).encode()
                calls = {
                    "http": lambda path=path: client.get(path, headers={"accept-encoding": "gzip"}),
                    "mcp": lambda body=body: client.post("/mcp", content=body, headers=HEADERS),
                }
                for call in calls.values():
                    (await call()).raise_for_status()
                times: dict[str, list[float]] = {name: [] for name in calls}
                for _ in range(args.n * 3):
                    for name, call in calls.items():
                        (await call()).raise_for_status()
                        times[name].append((timer.last or 0.0) * 1000)
                p50 = {name: percentile(v, 50) or 0.0 for name, v in times.items()}
                rows.append(
                    Row(
                        f"{label}: in-process server time http / mcp, ×{len(times['http'])}",
                        f"p50 {p50['http']:.2f} / {p50['mcp']:.2f} ms "
                        f"(p99 {percentile(times['http'], 99) or 0.0:.2f} / {percentile(times['mcp'], 99) or 0.0:.2f})",
                    )
                )
                added = p50["mcp"] - p50["http"]
                rows.append(
                    Row(
                        f"{label}: MCP adds, in-process server time",
                        f"{added:+.2f} ms",
                        "≤ 2 ms",
                        added <= 2.0,
                    )
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--n", type=int, default=300, help="sequential calls per measurement")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="pkgintel-bench-mcp-"))
    procs: list[subprocess.Popen[bytes]] = []

    def cleanup(*_: Any) -> None:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)

    signal.signal(signal.SIGTERM, lambda *_: (cleanup(), sys.exit(1)))
    env = {
        **os.environ,
        "PKGINTEL_DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'bench.db'}",
        "PKGINTEL_LOG_LEVEL": "warning",
        "PKGINTEL_OSV_API_FALLBACK": "false",
    }
    try:
        if NAMES.exists():
            subprocess.run(
                [*pkgintel_cmd(), "ingest", "names", "--ecosystem", "npm", "--from", str(NAMES)],
                env=env,
                check=True,
                capture_output=True,
            )
        reg_port, port = free_port(), free_port()
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.fake_registry",
                    "--port",
                    str(reg_port),
                    "--latency-ms",
                    str(args.latency_ms),
                ],
                cwd=REPO,
                stdout=subprocess.DEVNULL,
            )
        )
        upstream = f"http://127.0.0.1:{reg_port}"
        env |= {
            "PKGINTEL_UPSTREAM_NPM_URL": f"{upstream}/npm",
            "PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL": f"{upstream}/npm-downloads",
            "PKGINTEL_UPSTREAM_PYPI_URL": f"{upstream}/pypi",
            "PKGINTEL_UPSTREAM_PYPISTATS_URL": f"{upstream}/pypistats",
            "PKGINTEL_PUBLIC_URL": f"http://127.0.0.1:{port}",
        }
        wait_http(f"{upstream}/npm/lodash")
        procs.append(
            subprocess.Popen(
                [*pkgintel_cmd(), "serve", "--port", str(port)],
                env=env,
                cwd=tmp,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        base = f"http://127.0.0.1:{port}"
        wait_http(f"{base}/api/status")
        rows = asyncio.run(measure(base, args))
        sys.path.insert(0, str(REPO))
        rows += asyncio.run(measure_inproc(env, args))
        print(render_table(rows))
        out = REPO / "bench" / "results"
        out.mkdir(exist_ok=True)
        stamp = time.strftime("%Y%m%dT%H%M%S") + (f"-{args.label}" if args.label else "")
        (out / f"{stamp}-mcp.json").write_text(
            json.dumps(
                {
                    "machine": machine_info(),
                    "args": vars(args),
                    "names_loaded": NAMES.exists(),
                    "rows": [r.__dict__ for r in rows],
                },
                indent=2,
            )
        )
    finally:
        cleanup()


if __name__ == "__main__":
    main()
