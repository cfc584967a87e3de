"""
Cold and warm `/api/check` per ecosystem against the replay registry (issue 14's benchmark).

What is measured, and how:

* The upstreams are `tests/fake_registry.py` in a subprocess, replaying `../shared/data/registry-fixtures`
  with `--latency-ms` (default 50) of artificial latency on every registry request; every
  `PKGINTEL_UPSTREAM_*_URL` points at it.
* **cold**: a service whose cache keeps nothing (`cache_ttl_s=0`, `cache_stale_s=0`), so each
  request fetches every source of the report; each answer is checked to be `_cache: miss`. The
  upstream client is wrapped by a transport that records each upstream call and its duration, so
  for every report we know the slowest single upstream call and the number of calls. Target (issue
  14): cold <= slowest single upstream call + 20 ms, i.e. the fetches of one report run
  concurrently. Adapters whose second request depends on the first answer (the go.mod of the
  version the list names, the POM of the version maven-metadata names, NuGet pages listed by the
  index) cannot meet it; the table shows the rounds of dependent requests so the gap can be read.
* **warm**: the same packages after one priming request, served from the in-process cache
  (target <= 5 ms p50).

Times are server times (request entering the app to its last body chunk, `ServerTimer`) through
`httpx.ASGITransport` in this process. Everything listens on 127.0.0.1; the registry subprocess is
stopped on exit. Results are printed and written to `bench/results/ecosystems-<timestamp>.json`.

Run: `.venv/bin/python bench/bench_ecosystems.py [--latency-ms 50] [--rounds 5] [--warm 200]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import REPO, Row, ServerTimer, machine_info, percentile, render_table

SHARED = Path(os.environ.get("PKGINTEL_SHARED_DATA", REPO.parent / "shared" / "data"))
PACKAGES: list[tuple[str, str, int]] = [
    # (ecosystem, package, rounds of dependent upstream requests the adapter needs)
    # Cargo, Go, Maven, NuGet
    ("cargo", "regex", 1),
    ("go", "github.com/aws/smithy-go", 2),
    ("maven", "com.google.guava:guava", 2),
    ("nuget", "Newtonsoft.Json", 2),
    ("nuget", "Serilog", 3),
]
COLD_OVERHEAD_MS = 20.0
WARM_TARGET_MS = 5.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RecordingTransport(httpx.AsyncBaseTransport):
    """Forwards to a real transport and records `(url, seconds)` of each upstream call."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.calls: list[tuple[str, float]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        started = time.perf_counter()
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        self.calls.append((str(request.url), time.perf_counter() - started))
        return httpx.Response(
            response.status_code, headers=response.headers, content=body, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def settings_for(db: Path, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    r = registry
    return Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{db}",
        upstream_npm_url=f"{r}/npm",
        upstream_npm_downloads_url=f"{r}/npm-downloads",
        upstream_pypi_url=f"{r}/pypi",
        upstream_pypistats_url=f"{r}/pypistats",
        upstream_pypi_files_url=f"{r}/pypi-files",
        upstream_osv_api_url=f"{r}/osv-api",
        upstream_crates_url=f"{r}/crates",
        upstream_crates_index_url=f"{r}/crates-index",
        upstream_goproxy_url=f"{r}/goproxy",
        upstream_pkgsite_url=f"{r}/pkgsite",
        upstream_maven_url=f"{r}/maven/maven2",
        upstream_depsdev_url=f"{r}/depsdev",
        upstream_nuget_url=f"{r}/nuget",
        upstream_nuget_search_url=f"{r}/nuget-search",
        # The full report's second round (GitHub, Scorecard) from the replay registry too, so a cold
        # report waits for no host this machine cannot reach.
        upstream_github_api_url=f"{r}/github",
        upstream_scorecard_url=f"{r}/scorecard",
        cache_ttl_s=0 if cold else 21600,
        cache_stale_s=0 if cold else 86400,
        log_level="warning",
        # Every request is counted, none refused (the limit is not what is measured).
        rate_limit_anonymous="1000000000/minute",
    )


@contextlib.asynccontextmanager
async def app_client(settings: Any, transport: httpx.AsyncBaseTransport | None) -> Any:
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings, transport=transport) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=timer, client=("127.0.0.1", 50123)),
            base_url="http://pkgintel.bench",
            timeout=30.0,
        ) as client:
            yield timer, client


async def measure(args: argparse.Namespace, registry: str, workdir: Path) -> dict[str, Any]:
    results: dict[str, Any] = {}
    recorder = RecordingTransport()
    cold_settings = settings_for(workdir / "cold.db", registry, cold=True)
    if args.no_osv_api:
        cold_settings = cold_settings.model_copy(update={"osv_api_fallback": False})
    async with app_client(cold_settings, recorder) as (
        timer,
        client,
    ):
        await client.get("/api/status")
        for eco, name, rounds in PACKAGES:
            cold, slowest, calls = [], [], []
            for _ in range(args.rounds):
                recorder.calls.clear()
                resp = await client.get(f"/api/check/{eco}/{name}")
                if resp.status_code != 200 or resp.json().get("_cache") != "miss":
                    raise SystemExit(f"{eco}/{name}: {resp.status_code} {resp.text[:200]}")
                assert timer.last is not None
                cold.append(timer.last * 1000)
                registry_calls = [(u, s) for u, s in recorder.calls if "/osv-api/" not in u]
                slowest.append(max(s for _, s in registry_calls) * 1000)
                calls.append(len(registry_calls))
            results[f"{eco}/{name}"] = {
                "rounds_of_dependent_requests": rounds,
                "upstream_calls": max(calls),
                "cold_p50_ms": round(percentile(cold, 50) or 0, 2),
                "slowest_call_p50_ms": round(percentile(slowest, 50) or 0, 2),
            }
    async with app_client(settings_for(workdir / "warm.db", registry, cold=False), None) as (
        timer,
        client,
    ):
        for eco, name, _ in PACKAGES:
            await client.get(f"/api/check/{eco}/{name}")
            warm = []
            for _ in range(args.warm):
                resp = await client.get(f"/api/check/{eco}/{name}")
                if resp.status_code != 200 or resp.json().get("_cache") != "hit":
                    raise SystemExit(f"{eco}/{name} warm: {resp.status_code} {resp.text[:300]}")
                assert timer.last is not None
                warm.append(timer.last * 1000)
            results[f"{eco}/{name}"]["warm_p50_ms"] = round(percentile(warm, 50) or 0, 2)
            results[f"{eco}/{name}"]["warm_p99_ms"] = round(percentile(warm, 99) or 0, 2)
    return results


def rows(results: dict[str, Any], latency_ms: float) -> list[Row]:
    out: list[Row] = []
    for key, r in results.items():
        overhead = r["cold_p50_ms"] - r["slowest_call_p50_ms"]
        chain = r["cold_p50_ms"] - r["rounds_of_dependent_requests"] * latency_ms
        r["cold_minus_rounds_x_latency_ms"] = round(chain, 2)
        out.append(
            Row(
                f"cold {key} ({r['upstream_calls']} calls, {r['rounds_of_dependent_requests']} rounds)",
                f"{r['cold_p50_ms']:.1f} ms; slowest call {r['slowest_call_p50_ms']:.1f} ms; "
                f"+{overhead:.1f} ms; rounds x latency +{chain:.1f} ms",
                f"<= slowest + {COLD_OVERHEAD_MS:g} ms",
                overhead <= COLD_OVERHEAD_MS,
            )
        )
        out.append(
            Row(
                f"warm {key}",
                f"p50 {r['warm_p50_ms']:.2f} ms, p99 {r['warm_p99_ms']:.2f} ms",
                f"<= {WARM_TARGET_MS:g} ms p50",
                r["warm_p50_ms"] <= WARM_TARGET_MS,
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument(
        "--no-osv-api",
        action="store_true",
        help="cold reports without the OSV API fallback (as with ingested advisories: no OSV round)",
    )
    args = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"shared data not found at {SHARED}: nothing to replay", file=sys.stderr)
        return 2
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            *("-m", "tests.fake_registry", "--port", str(port)),
            *("--latency-ms", str(args.latency_ms), "--shared", str(SHARED)),
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    registry = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{registry}/crates/api/v1/crates/regex", timeout=2)
                break
            time.sleep(0.2)
        with tempfile.TemporaryDirectory() as tmp:
            results = asyncio.run(measure(args, registry, Path(tmp)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(render_table(rows(results, args.latency_ms)))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    (out / f"ecosystems-{stamp}.json").write_text(
        json.dumps(
            {"latency_ms": args.latency_ms, "results": results, "machine": machine_info()},
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
