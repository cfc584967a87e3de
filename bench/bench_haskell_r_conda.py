"""
Cold and warm `/api/check` for Hackage, CRAN and Conda against the replay registry.

The method is `bench_more_ecosystems.py`'s (read its docstring): the recorded bodies of
`../shared/data/registry-fixtures` replayed by `tests/fake_registry.py` in a subprocess with
`--latency-ms` of latency per request; **cold** through a service that caches nothing, each answer
a 200 `_cache: miss`, set against every upstream request of that report timed alone (target: cold
<= slowest single call + 20 ms); **warm** from the in-process cache after one priming call (target
<= 5 ms). npm/lodash and pypi/requests run as baselines in the same run.

The requests of one report:
- `hackage/aeson`: the version map, the package page and the deprecation document, concurrently
  (the replay has no page or deprecation document for aeson: they answer 404, which costs the same).
- `cran/readxl`: the Package Manager document, the CRAN page and cranlogs' last-week and
  last-month counts, all concurrently (the replay has no cranlogs body for readxl: 404).
- `conda/pytest`: one anaconda.org document.

Run: `.venv/bin/python bench/bench_haskell_r_conda.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
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

import bench_more_ecosystems as base
import httpx
from _common import REPO, machine_info, render_table, run_loop

PACKAGES: tuple[tuple[str, str], ...] = (
    ("npm", "lodash"),
    ("pypi", "requests"),
    ("hackage", "aeson"),
    ("cran", "readxl"),
    ("conda", "pytest"),
)
UPSTREAMS: dict[str, tuple[str, ...]] = {
    "npm/lodash": base.UPSTREAMS["npm/lodash"],
    "pypi/requests": base.UPSTREAMS["pypi/requests"],
    "hackage/aeson": (
        "/hackage/package/aeson.json",
        "/hackage/package/aeson",
        "/hackage/package/aeson/deprecated.json",
    ),
    "cran/readxl": (
        "/cranlogs/downloads/total/last-week/readxl",
        "/cranlogs/downloads/total/last-month/readxl",
        "/ppm/__api__/repos/2/packages/readxl",
        "/cran/web/packages/readxl/index.html",
    ),
    "conda/pytest": ("/anaconda/package/conda-forge/pytest",),
}
DEPENDENT: dict[str, tuple[str, ...]] = {}
"""No report here makes a request that waits for another one."""


def settings_for(db_url: str, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    kwargs: dict[str, Any] = {
        "database_url": db_url,
        "upstream_npm_url": f"{registry}/npm",
        "upstream_npm_downloads_url": f"{registry}/npm-downloads",
        "upstream_pypi_url": f"{registry}/pypi",
        "upstream_pypistats_url": f"{registry}/pypistats",
        "upstream_hackage_url": f"{registry}/hackage",
        "upstream_cran_ppm_url": f"{registry}/ppm/__api__/repos/2",
        "upstream_cran_url": f"{registry}/cran",
        "upstream_cranlogs_url": f"{registry}/cranlogs",
        "upstream_conda_url": f"{registry}/anaconda",
        "upstream_osv_api_url": f"{registry}/osv-api",
        "log_level": "warning",
        "bulk_hint_threshold": 1_000_000,
    }
    if cold:
        kwargs.update(cache_ttl_s=0, cache_stale_s=0)
    return Settings(_env_file=None, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=15, help="cold requests per package")
    parser.add_argument("--warm-n", type=int, default=300, help="warm requests per package")
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="uvloop")
    args = parser.parse_args()
    if not (args.shared / "registry-fixtures" / "hackage" / "INDEX.json").exists():
        print(f"SKIP: no registry fixtures under {args.shared}")
        return
    # The measuring loop is bench_more_ecosystems.measure, run over this file's packages.
    base.PACKAGES, base.UPSTREAMS, base.DEPENDENT = PACKAGES, UPSTREAMS, DEPENDENT
    base.settings_for = settings_for
    port = base.free_port()
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
                    httpx.get(f"{registry}/hackage/none", timeout=2)
                    break
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("replay registry did not start")
                time.sleep(0.1)
            db_url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}"
            per = run_loop(args, base.measure(args, db_url, registry))
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            if proc.poll() is None:
                proc.kill()
    print(render_table(base.rows_for(per)))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {"latency_ms": args.latency_ms, "rounds": args.rounds, "warm_n": args.warm_n},
        "per_package": per,
    }
    (out / f"{stamp}-haskell-r-conda.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
