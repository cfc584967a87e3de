"""
The method shared by the per-ecosystem `/api/check` benchmarks (`bench_rubygems_composer_pub_hex.py`,
`bench_swift_cocoapods_cpan.py`, `bench_haskell_r_conda.py`, `bench_homebrew_julia_jsr.py`): each script declares a `CheckBench`
(its packages, the upstream requests one report makes, the settings that point at the replay) and
calls `main(bench)`.

* The upstreams are `tests/fake_registry.py` in a subprocess (or the script's own `serve` function),
  replaying the recorded bodies of `../shared/data/registry-fixtures` with `--latency-ms` (default 50)
  of artificial latency on every registry request.
* **cold**: `/api/check/<ecosystem>/<package>` through a service whose cache keeps nothing
  (`cache_ttl_s=0`, `cache_stale_s=0`); each answer is checked to be a 200 `_cache: miss`. Every
  upstream request of one report is timed alone alongside: target cold <= slowest single call
  + 20 ms (the calls run concurrently), or the dependent chain + 20 ms where requests must follow
  each other. With `fanout`, the same requests are also timed all at once, and the cold figure is
  shown against that floor too.
* **warm**: the same path after one priming call, from the in-process cache; target <= 5 ms.

Server times are in process: the app from `create_app(settings, runtime=...)` through
`httpx.ASGITransport`, timed by `_common.ServerTimer`. Prints a table and writes
`bench/results/<timestamp>-<name>.json`; asserts nothing.
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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Row, ServerTimer, machine_info, percentile, render_table, run_loop

COLD_OVERHEAD_MS = 20.0
WARM_TARGET_MS = 5.0
BASELINE_UPSTREAMS: dict[str, tuple[str, ...]] = {
    "npm/lodash": ("/npm/lodash", "/npm-downloads/downloads/point/last-week/lodash"),
    "pypi/requests": ("/pypi/pypi/requests/json", "/pypistats/api/packages/requests/recent"),
}
"""The two original adapters, run as baselines in the same run on the same (loaded) machine."""
BASELINE_SETTINGS: dict[str, str] = {
    "upstream_npm_url": "/npm",
    "upstream_npm_downloads_url": "/npm-downloads",
    "upstream_pypi_url": "/pypi",
    "upstream_pypistats_url": "/pypistats",
    "upstream_pypi_files_url": "/pypi-files",
    "upstream_osv_api_url": "/osv-api",
}


@dataclass(frozen=True)
class CheckBench:
    """One benchmark: what to ask, what it costs upstream, and where the replay answers."""

    name: str
    """Suffix of the results file."""
    packages: tuple[tuple[str, str], ...]
    upstreams: dict[str, tuple[str, ...]]
    """`ecosystem/name` → every registry request one report makes (unrecorded ones answer 404)."""
    settings: dict[str, str]
    """Setting → path below the replay registry (the baselines' settings are added)."""
    fixture: str
    """Registry-fixtures folder that must exist (else the script prints SKIP)."""
    dependent: dict[str, int] | None = None
    """`ecosystem/name` → how many of its first requests run one after the other."""
    prime: tuple[str, ...] = ()
    """App paths asked once before the cold rounds (data an adapter keeps for an hour)."""
    fanout: bool = False
    """Also time all of a report's requests at once and compare the cold figure with that."""
    serve: Callable[[int, float, Path], None] | None = None
    """Serves the replay on a port instead of `tests/fake_registry.py` (extra timing documents)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def settings_for(bench: CheckBench, db_url: str, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    paths = {**BASELINE_SETTINGS, **bench.settings}
    kwargs: dict[str, Any] = {
        "database_url": db_url,
        **{name: registry + path for name, path in paths.items()},
        "log_level": "warning",
        "bulk_hint_threshold": 1_000_000,
    }
    if cold:
        kwargs.update(cache_ttl_s=0, cache_stale_s=0)
    return Settings(_env_file=None, **kwargs)


@contextlib.asynccontextmanager
async def app_client(settings: Any) -> Any:
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        transport = httpx.ASGITransport(app=timer, client=("127.0.0.1", 50123))
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://pkgintel.bench",
            headers={"Accept-Encoding": "gzip"},
            timeout=30.0,
        ) as client:
            yield timer, client


async def timed_alone(client: httpx.AsyncClient, url: str) -> float:
    started = time.perf_counter()
    resp = await client.get(url)
    await resp.aread()
    return time.perf_counter() - started


def check_path(eco: str, name: str) -> str:
    return f"/api/check/{eco}/{name.replace('/', '%2F')}"


async def measure(
    bench: CheckBench, args: argparse.Namespace, db_url: str, registry: str
) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {}
    dependent = bench.dependent or {}
    async with httpx.AsyncClient(timeout=30.0) as upstream:
        settings = settings_for(bench, db_url, registry, cold=True)
        async with app_client(settings) as (timer, client):
            for path in bench.prime:
                await client.get(path)
            for eco, name in bench.packages:
                key = f"{eco}/{name}"
                urls = [registry + u for u in bench.upstreams[key]]
                colds: list[float] = []
                slowest: list[float] = []
                chain: list[float] = []
                fanout: list[float] = []
                errors = 0
                for _ in range(args.rounds):
                    alone = [await timed_alone(upstream, u) for u in urls]
                    slowest.append(max(alone))
                    if bench.fanout:
                        started = time.perf_counter()
                        await asyncio.gather(*(timed_alone(upstream, u) for u in urls))
                        fanout.append(time.perf_counter() - started)
                    if key in dependent:
                        chain.append(sum(alone[: dependent[key]]))
                    resp = await client.get(check_path(eco, name))
                    if resp.status_code != 200 or resp.json().get("_cache") != "miss":
                        errors += 1
                        continue
                    if timer.last is not None:
                        colds.append(timer.last * 1000)
                per[key] = {
                    "cold_p50_ms": percentile(colds, 50),
                    "cold_p99_ms": percentile(colds, 99),
                    "slowest_upstream_p50_ms": percentile([s * 1000 for s in slowest], 50),
                    "dependent_chain_p50_ms": percentile([c * 1000 for c in chain], 50)
                    if chain
                    else None,
                    "fanout_p50_ms": percentile([f * 1000 for f in fanout], 50) if fanout else None,
                    "cold_errors": errors,
                    "cold_n": len(colds),
                }
        settings = settings_for(bench, db_url, registry, cold=False)
        async with app_client(settings) as (timer, client):
            for eco, name in bench.packages:
                key = f"{eco}/{name}"
                path = check_path(eco, name)
                await client.get(path)
                warms: list[float] = []
                errors = 0
                for _ in range(args.warm_n):
                    resp = await client.get(path)
                    if resp.status_code != 200 or resp.json().get("_cache") != "hit":
                        errors += 1
                    if timer.last is not None:
                        warms.append(timer.last * 1000)
                per[key].update(
                    warm_p50_ms=percentile(warms, 50),
                    warm_p99_ms=percentile(warms, 99),
                    warm_errors=errors,
                    warm_n=len(warms),
                )
    return per


def rows_for(per: dict[str, dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    for key, fig in per.items():
        cold, slow = fig["cold_p50_ms"], fig["slowest_upstream_p50_ms"]
        floor = fig["dependent_chain_p50_ms"] or slow
        over = None if cold is None or slow is None else cold - slow
        rows.append(
            Row(
                f"cold {key}",
                f"p50 {cold:.1f} / p99 {fig['cold_p99_ms']:.1f} ms; slowest call {slow:.1f} ms"
                + (f"; dependent chain {floor:.1f} ms" if fig["dependent_chain_p50_ms"] else "")
                + (f"; errors {fig['cold_errors']}" if fig["cold_errors"] else ""),
                f"<= slowest call + {COLD_OVERHEAD_MS:g} ms",
                None if over is None else over <= COLD_OVERHEAD_MS,
            )
        )
        if fig["dependent_chain_p50_ms"]:
            rows.append(
                Row(
                    f"cold {key} vs dependent chain",
                    f"{cold - floor:+.1f} ms",
                    f"<= chain + {COLD_OVERHEAD_MS:g} ms",
                    cold - floor <= COLD_OVERHEAD_MS,
                )
            )
        fan = fig.get("fanout_p50_ms")
        if fan is not None and cold is not None:
            at_once = max(fan, fig["dependent_chain_p50_ms"] or 0.0)
            rows.append(
                Row(
                    f"cold {key} vs all its calls at once",
                    f"{cold - at_once:+.1f} ms (calls at once p50 {fan:.1f} ms)",
                    f"<= floor + {COLD_OVERHEAD_MS:g} ms",
                    cold - at_once <= COLD_OVERHEAD_MS,
                )
            )
        warm = fig["warm_p50_ms"]
        rows.append(
            Row(
                f"warm {key}",
                f"p50 {warm:.2f} / p99 {fig['warm_p99_ms']:.2f} ms"
                + (f"; errors {fig['warm_errors']}" if fig["warm_errors"] else ""),
                f"<= {WARM_TARGET_MS:g} ms",
                warm is not None and warm <= WARM_TARGET_MS,
            )
        )
    return rows


def main(bench: CheckBench, description: str) -> None:
    """Parse the common options, run `bench` against a replay registry, print and save the table."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=15, help="cold requests per package")
    parser.add_argument("--warm-n", type=int, default=300, help="warm requests per package")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="uvloop")
    parser.add_argument("--serve-registry", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_registry is not None and bench.serve is not None:
        bench.serve(args.serve_registry, args.latency_ms, args.shared)
        return
    if not (args.shared / "registry-fixtures" / bench.fixture / "INDEX.json").exists():
        print(f"SKIP: no registry fixtures under {args.shared}")
        return
    port = free_port()
    registry = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    if bench.serve is not None:
        cmd = [sys.executable, sys.argv[0], "--serve-registry", str(port)]
    else:
        cmd = [sys.executable, str(REPO / "tests" / "fake_registry.py"), "--port", str(port)]
    cmd += ["--latency-ms", str(args.latency_ms), "--shared", str(args.shared)]
    with tempfile.TemporaryDirectory(prefix="pkgintel-bench-") as tmp:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(f"{registry}/{bench.fixture}/none", timeout=2)
                    break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("replay registry did not start")
                time.sleep(0.1)
            db_url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            per = run_loop(args, measure(bench, args, db_url, registry))
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            if proc.poll() is None:
                proc.kill()
    print(render_table(rows_for(per)))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {"latency_ms": args.latency_ms, "rounds": args.rounds, "warm_n": args.warm_n},
        "per_package": per,
    }
    (out / f"{stamp}-{bench.name}.json").write_text(json.dumps(result, indent=2))
