"""
Cold and warm `/api/check` for Homebrew, Julia and JSR against the replay registry.

The method is `bench_more_ecosystems.py`'s (its helpers are reused): the upstreams are
`tests/fake_registry.py` in a subprocess replaying `../shared/data/registry-fixtures` with
`--latency-ms` (default 50) on every request; **cold** runs through a service that caches nothing
and checks each answer is a 200 `_cache: miss`, timing alone every upstream request one report makes
(`UPSTREAMS`, target: cold <= slowest single call + 20 ms, or the dependent pair + 20 ms where a
request can only follow another). Because a Julia report sends six requests at once, the same
requests are also timed all at once, and the cold figure is shown against that floor too (the
larger of it and the dependent pair): on a shared two-core machine six concurrent requests cost
more than the slowest one alone. **warm** is the same path from the in-process cache (<= 5 ms).

- `homebrew/abook`: one formula document.
- `julia/Inequality`: the four registry files and JuliaHub's two documents at once; no
  `Versions.toml` is recorded, so `Registry.toml` (about 1 MB) is read to tell "not mirrored" from
  "no such package" — once, then kept by the adapter for an hour (the first cold round pays it,
  p99 shows it).
- `jsr/@std/path`: `meta.json` and the api.jsr.io document at once, then the latest version's
  `_meta.json` (named by `meta.json`: the dependent pair).
- `npm/lodash` as the baseline measured in the same run.

Prints a table and writes `bench/results/<timestamp>-eco-e.json`; asserts nothing.
Run: `.venv/bin/python bench/bench_eco_e.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Row, machine_info, percentile, render_table, run_loop
from bench_more_ecosystems import (
    COLD_OVERHEAD_MS,
    app_client,
    check_path,
    free_port,
    rows_for,
    timed_alone,
)

PACKAGES: tuple[tuple[str, str], ...] = (
    ("npm", "lodash"),
    ("homebrew", "abook"),
    ("julia", "Inequality"),
    ("jsr", "@std/path"),
)
_JL = "/raw-github/JuliaRegistries/General/master"
UPSTREAMS: dict[str, tuple[str, ...]] = {
    "npm/lodash": ("/npm/lodash", "/npm-downloads/downloads/point/last-week/lodash"),
    "homebrew/abook": ("/homebrew/api/formula/abook.json",),
    "julia/Inequality": (
        f"{_JL}/I/Inequality/Versions.toml",
        f"{_JL}/I/Inequality/Package.toml",
        f"{_JL}/I/Inequality/Deps.toml",
        f"{_JL}/I/Inequality/Compat.toml",
        "/juliahub/docs/General/Inequality/versions.json",
        "/juliahub/docs/General/Inequality/stable/pkg.json",
    ),
    "jsr/@std/path": (
        "/jsr/@std/path/meta.json",
        "/jsr/@std/path/1.1.3_meta.json",
        "/jsr-api/scopes/std/packages/path",
    ),
}
DEPENDENT: dict[str, int] = {"jsr/@std/path": 2}
"""How many of a package's first upstream requests run one after the other."""


def settings_for(db_url: str, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    kwargs: dict[str, Any] = {
        "database_url": db_url,
        "upstream_npm_url": f"{registry}/npm",
        "upstream_npm_downloads_url": f"{registry}/npm-downloads",
        "upstream_homebrew_url": f"{registry}/homebrew",
        "upstream_julia_url": f"{registry}{_JL}",
        "upstream_juliahub_url": f"{registry}/juliahub",
        "upstream_jsr_url": f"{registry}/jsr",
        "upstream_jsr_api_url": f"{registry}/jsr-api",
        "upstream_osv_api_url": f"{registry}/osv-api",
        "log_level": "warning",
        "bulk_hint_threshold": 1_000_000,
    }
    if cold:
        kwargs.update(cache_ttl_s=0, cache_stale_s=0)
    return Settings(_env_file=None, **kwargs)


async def measure(args: argparse.Namespace, db_url: str, registry: str) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {}
    async with httpx.AsyncClient(timeout=30.0) as upstream:
        async with app_client(settings_for(db_url, registry, cold=True)) as (timer, client):
            for eco, name in PACKAGES:
                key = f"{eco}/{name}"
                colds: list[float] = []
                slowest: list[float] = []
                chain: list[float] = []
                fanout: list[float] = []
                errors = 0
                for _ in range(args.rounds):
                    alone = [await timed_alone(upstream, registry + u) for u in UPSTREAMS[key]]
                    slowest.append(max(alone))
                    started = time.perf_counter()
                    await asyncio.gather(
                        *(timed_alone(upstream, registry + u) for u in UPSTREAMS[key])
                    )
                    fanout.append(time.perf_counter() - started)
                    if key in DEPENDENT:
                        chain.append(sum(alone[: DEPENDENT[key]]))
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
                    "fanout_p50_ms": percentile([f * 1000 for f in fanout], 50),
                    "cold_errors": errors,
                    "cold_n": len(colds),
                }
        async with app_client(settings_for(db_url, registry, cold=False)) as (timer, client):
            for eco, name in PACKAGES:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=15, help="cold requests per package")
    parser.add_argument("--warm-n", type=int, default=300, help="warm requests per package")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="uvloop")
    args = parser.parse_args()
    if not (args.shared / "registry-fixtures" / "jsr" / "INDEX.json").exists():
        print(f"SKIP: no registry fixtures under {args.shared}")
        return
    port = free_port()
    registry = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    cmd = [sys.executable, str(REPO / "tests" / "fake_registry.py"), "--port", str(port)]
    cmd += ["--latency-ms", str(args.latency_ms), "--shared", str(args.shared)]
    with tempfile.TemporaryDirectory(prefix="pkgintel-bench-") as tmp:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(f"{registry}/jsr/none", timeout=2)
                    break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("replay registry did not start")
                time.sleep(0.1)
            db_url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            per = run_loop(args, measure(args, db_url, registry))
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            if proc.poll() is None:
                proc.kill()
    rows = rows_for(per)
    for key, fig in per.items():
        cold, fan = fig["cold_p50_ms"], fig["fanout_p50_ms"]
        floor = max(fan or 0.0, fig["dependent_chain_p50_ms"] or 0.0)
        rows.append(
            Row(
                f"cold {key} vs all its calls at once",
                f"{cold - floor:+.1f} ms (calls at once p50 {fan:.1f} ms)",
                f"<= floor + {COLD_OVERHEAD_MS:g} ms",
                cold - floor <= COLD_OVERHEAD_MS,
            )
        )
    table = render_table(rows)
    print(table)
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {"latency_ms": args.latency_ms, "rounds": args.rounds, "warm_n": args.warm_n},
        "per_package": per,
    }
    (out / f"{stamp}-eco-e.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
