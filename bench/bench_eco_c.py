"""
Cold and warm `/api/check` for Swift, CocoaPods and CPAN against the replay registry.

Same method and targets as `bench_more_ecosystems.py` (whose helpers this script reuses): the
replay registry (`tests/fake_registry.py`, the recorded bodies of `../shared/data/registry-fixtures`)
runs in a subprocess with `--latency-ms` (default 50) on every request; **cold** is a service whose
cache keeps nothing (each answer checked to be a 200 `_cache: miss`), compared with every upstream
request of one report timed alone (target: cold <= slowest single call + 20 ms, or the dependent
pair + 20 ms where the second request needs the first's answer); **warm** is the cached path
(target <= 5 ms). `npm/lodash` runs as the baseline of the same run.

- CocoaPods `Foo`: the shard, **then** the podspec of the version it names (a dependent pair).
- CPAN `Dpkg`: the release document and the version search, concurrently.
- Swift `0xLeif/Chronicle`: the Swift Package Index list (recorded, 268 KB) is read once per process
  and kept for an hour, so a cold report makes the three GitHub requests concurrently. No GitHub
  document of a Swift package is recorded: for timing only, the replay serves the recorded
  gocardless/business repository and releases documents (dependabot-core fixtures) at Chronicle's
  paths, with its tags listed from those releases. The figures measure our path, not Chronicle's data.

Run: `.venv/bin/python bench/bench_eco_c.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
Prints a table and writes `bench/results/<timestamp>-eco-c.json`; asserts nothing.
"""

from __future__ import annotations

import argparse
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
from _common import REPO, machine_info, percentile, render_table, run_loop
from bench_more_ecosystems import (
    COLD_OVERHEAD_MS,
    app_client,
    check_path,
    free_port,
    rows_for,
    timed_alone,
)

CHRONICLE = "0xLeif/Chronicle"
PACKAGES: tuple[tuple[str, str], ...] = (
    ("npm", "lodash"),  # baseline
    ("cocoapods", "Foo"),
    ("cpan", "Dpkg"),
    ("swift", CHRONICLE),
)
_GH = f"/github/repos/{CHRONICLE}"
UPSTREAMS: dict[str, tuple[str, ...]] = {
    "npm/lodash": ("/npm/lodash", "/npm-downloads/downloads/point/last-week/lodash"),
    "cocoapods/Foo": (
        "/cocoapods/all_pods_versions_1_3_5.txt",
        "/cocoapods/Specs/1/3/5/Foo/1.1.3/Foo.podspec.json",
    ),
    "cpan/Dpkg": (
        "/cpan/v1/release/Dpkg",
        "/cpan/v1/release/_search?fields=version,date&q=distribution:Dpkg&size=5000",
    ),
    f"swift/{CHRONICLE}": (_GH, f"{_GH}/tags?per_page=100", f"{_GH}/releases?per_page=100"),
}
DEPENDENT: dict[str, tuple[str, ...]] = {"cocoapods/Foo": UPSTREAMS["cocoapods/Foo"]}


def serve_registry(port: int, latency_ms: float, shared: Path) -> None:
    """The replay registry plus the timing-only GitHub documents at Chronicle's paths."""
    import uvicorn

    sys.path.insert(0, str(REPO))
    from tests.fake_registry import build

    github = shared / "registry-fixtures" / "github"
    repo = json.loads((github / "api.github.com_repos_gocardless_business.json").read_text())
    releases = json.loads(
        (github / "api.github.com_repos_gocardless_business_releases_per_page_100.json").read_text()
    )
    base = f"https://api.github.com/repos/{CHRONICLE}"
    extra = [
        (base, repo),
        (f"{base}/tags?per_page=100", [{"name": r["tag_name"]} for r in releases]),
        (f"{base}/releases?per_page=100", releases),
    ]
    reg = build(shared, latency_ms, extra)
    uvicorn.run(reg.app, host="127.0.0.1", port=port, log_level="warning")


def settings_for(db_url: str, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    kwargs: dict[str, Any] = {
        "database_url": db_url,
        "upstream_npm_url": f"{registry}/npm",
        "upstream_npm_downloads_url": f"{registry}/npm-downloads",
        "upstream_swift_url": f"{registry}/raw-github/SwiftPackageIndex/PackageList/main",
        "upstream_github_api_url": f"{registry}/github",
        "upstream_cocoapods_url": f"{registry}/cocoapods",
        "upstream_cpan_url": f"{registry}/cpan",
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
            # One call reads the Swift Package Index list into the adapter (kept for an hour).
            await client.get(check_path("swift", CHRONICLE))
            for eco, name in PACKAGES:
                key = f"{eco}/{name}"
                colds: list[float] = []
                slowest: list[float] = []
                chain: list[float] = []
                errors = 0
                for _ in range(args.rounds):
                    alone = [await timed_alone(upstream, registry + u) for u in UPSTREAMS[key]]
                    slowest.append(max(alone))
                    if key in DEPENDENT:
                        chain.append(sum(alone[: len(DEPENDENT[key])]))
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
    parser.add_argument("--serve-registry", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_registry is not None:
        serve_registry(args.serve_registry, args.latency_ms, args.shared)
        return
    if not (args.shared / "registry-fixtures" / "cocoapods" / "INDEX.json").exists():
        print(f"SKIP: no registry fixtures under {args.shared}")
        return
    port = free_port()
    registry = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    cmd = [sys.executable, __file__, "--serve-registry", str(port)]
    cmd += ["--latency-ms", str(args.latency_ms), "--shared", str(args.shared)]
    with tempfile.TemporaryDirectory(prefix="pkgintel-bench-") as tmp:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    httpx.get(f"{registry}/cpan/none", timeout=2)
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
    print(render_table(rows_for(per)))
    print(f"(cold target: slowest call, or the dependent pair, + {COLD_OVERHEAD_MS:g} ms)")
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {"latency_ms": args.latency_ms, "rounds": args.rounds, "warm_n": args.warm_n},
        "per_package": per,
    }
    (out / f"{stamp}-eco-c.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
