"""
Cold and warm latency of `/api/maintainers`, `/api/maintainer/trust`, `/api/quality` and of the report
(`/api/check`, which now also fetches GitHub stats, owner trust, download windows and dependents).

What is measured, and how:

* The upstreams are `tests/fake_registry.py` replaying the recorded bodies of
  `../shared/data/registry-fixtures` (plus the hand-written GitHub account of
  `tests/recordings/github/account-ada-example.json` and a GitHub repository body for the packages'
  repositories) with `--latency-ms` (default 50) of artificial latency on **every** upstream
  request (registry, downloads, GitHub, deps.dev). The replay runs in-process behind
  `httpx.ASGITransport` (its latency is an `asyncio.sleep`, so concurrent requests overlap as they
  do over a network).
* **cold**: a service whose cache keeps nothing (`cache_ttl_s=0`, `cache_stale_s=0`), so every
  request calls every upstream it needs; each answer is checked to be a 200. The floor is the
  number of *dependent* upstream round trips times the latency: 1 for trust (three concurrent
  GitHub calls), 2 for maintainers/quality/report (the registry, then what its answer names: the
  repository, the latest version's dependents). Target: cold <= floor + 20 ms.
* **warm**: the same path after one priming call, served from the in-process cache; target <= 5 ms.

Server time: `create_app(settings, runtime=...)` around `build_runtime`, timed from the request
entering the app to its last body chunk (`_common.ServerTimer`). Prints a table and writes
`bench/results/<timestamp>-people.json`; asserts nothing.

Run: `.venv/bin/python bench/bench_people.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Row, ServerTimer, machine_info, percentile, render_table, run_loop

sys.path.insert(0, str(REPO))

from tests.fake_registry import build

SHARED = REPO.parent / "shared" / "data"
ADA = json.loads(
    (REPO / "tests" / "recordings" / "github" / "account-ada-example.json").read_text()
)
GH = "https://api.github.com"
PATHS: tuple[tuple[str, int], ...] = (
    ("/api/maintainers/npm/chalk", 2),
    ("/api/maintainers/pypi/requests", 2),
    ("/api/quality/npm/chalk", 2),
    ("/api/quality/pypi/flask", 2),
    ("/api/maintainer/trust/github/ada-example", 1),
    ("/api/check/npm/chalk", 2),
    ("/api/check/pypi/flask", 2),
)
"""Path and its floor in dependent upstream round trips."""
OVERHEAD_MS = 20.0
WARM_TARGET_MS = 5.0


def registry(latency_ms: float) -> Any:
    repo_body = json.loads(
        (
            SHARED / "registry-fixtures" / "github" / "api.github.com_repos_ossf_scorecard.json"
        ).read_text()
    )
    extra = [
        (f"{GH}/users/ada-example", ADA["user"]),
        (f"{GH}/users/ada-example/repos?type=owner&sort=pushed&per_page=100", ADA["repos"]),
        (f"{GH}/users/ada-example/orgs?per_page=100", ADA["orgs"]),
        (f"{GH}/repos/pallets/flask", {**repo_body, "full_name": "pallets/flask"}),
        (f"{GH}/repos/chalk/chalk", {**repo_body, "full_name": "chalk/chalk"}),
        (
            "https://api.npmjs.org/downloads/point/last-month/chalk",
            {"downloads": 1000000, "start": "2026-10-23", "end": "2026-11-21", "package": "chalk"},
        ),
    ]
    return build(SHARED, latency_ms, extra=extra)


def settings_for(db_url: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    base = "http://registry.bench"
    kwargs: dict[str, Any] = {
        "database_url": db_url,
        "upstream_npm_url": f"{base}/npm",
        "upstream_npm_downloads_url": f"{base}/npm-downloads",
        "upstream_pypi_url": f"{base}/pypi",
        "upstream_pypistats_url": f"{base}/pypistats",
        "upstream_pypi_files_url": f"{base}/pypi-files",
        "upstream_osv_api_url": f"{base}/osv-api",
        "upstream_github_api_url": f"{base}/github",
        "upstream_depsdev_url": f"{base}/depsdev",
        "log_level": "warning",
        "bulk_hint_threshold": 1_000_000,
        "initial_ingest": False,
        "worker_embedded": False,
    }
    if cold:
        kwargs.update(cache_ttl_s=0, cache_stale_s=0, not_found_ttl_s=0)
    return Settings(_env_file=None, **kwargs)


@contextlib.asynccontextmanager
async def app_client(settings: Any, reg: Any, *, signals: bool = True) -> Any:
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings, transport=httpx.ASGITransport(app=reg.app)) as runtime:
        if not signals:
            # Baseline in the same run: the report as it was before issue 16's signals (maintainers,
            # trust, quality, GitHub stats; and Scorecard, provenance and TypeScript lookups).
            runtime.reports._trust = None
            runtime.reports._artifacts = None
        timer = ServerTimer(create_app(settings, runtime=runtime))
        transport = httpx.ASGITransport(app=timer, client=("127.0.0.1", 50123))
        async with httpx.AsyncClient(
            transport=transport, base_url="http://pkgintel.bench", timeout=30.0
        ) as client:
            yield timer, client


async def measure(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    reg = registry(args.latency_ms)
    per: dict[str, dict[str, Any]] = {}
    cold_db = f"sqlite+aiosqlite:///{workdir / 'cold.db'}"
    async with app_client(settings_for(cold_db, cold=True), reg) as (timer, client):
        for path, _ in PATHS:
            colds: list[float] = []
            errors = 0
            for _ in range(args.rounds):
                resp = await client.get(path)
                if resp.status_code != 200:
                    errors += 1
                    continue
                if timer.last is not None:
                    colds.append(timer.last * 1000)
            per[path] = {
                "cold_p50_ms": percentile(colds, 50),
                "cold_p99_ms": percentile(colds, 99),
                "cold_errors": errors,
            }
    base_db = f"sqlite+aiosqlite:///{workdir / 'base.db'}"
    async with app_client(settings_for(base_db, cold=True), reg, signals=False) as (timer, client):
        for path, _ in PATHS:
            if not path.startswith("/api/check/"):
                continue
            colds = []
            for _ in range(args.rounds):
                resp = await client.get(path)
                if resp.status_code == 200 and timer.last is not None:
                    colds.append(timer.last * 1000)
            per[f"baseline {path}"] = {
                "cold_p50_ms": percentile(colds, 50),
                "cold_p99_ms": percentile(colds, 99),
            }
    warm_db = f"sqlite+aiosqlite:///{workdir / 'warm.db'}"
    async with app_client(settings_for(warm_db, cold=False), reg) as (timer, client):
        for path, _ in PATHS:
            await client.get(path)
            warms: list[float] = []
            errors = 0
            for _ in range(args.warm_n):
                resp = await client.get(path)
                if resp.status_code != 200:
                    errors += 1
                if timer.last is not None:
                    warms.append(timer.last * 1000)
            per[path].update(
                warm_p50_ms=percentile(warms, 50),
                warm_p99_ms=percentile(warms, 99),
                warm_errors=errors,
            )
    return per


def rows_for(per: dict[str, dict[str, Any]], latency_ms: float) -> list[Row]:
    rows: list[Row] = []
    for path, trips in PATHS:
        fig = per[path]
        floor = trips * latency_ms
        cold = fig["cold_p50_ms"]
        rows.append(
            Row(
                f"cold {path}",
                f"p50 {cold:.1f} ms, p99 {fig['cold_p99_ms']:.1f} ms (errors {fig['cold_errors']})"
                if cold is not None
                else f"no answer (errors {fig['cold_errors']})",
                f"<= {floor + OVERHEAD_MS:.0f} ms ({trips} x {latency_ms:.0f} ms + {OVERHEAD_MS:.0f})",
                None if cold is None else cold <= floor + OVERHEAD_MS,
            )
        )
    for key, fig in per.items():
        if key.startswith("baseline "):
            rows.append(
                Row(
                    f"cold {key.removeprefix('baseline ')} without the new signals",
                    f"p50 {fig['cold_p50_ms']:.1f} ms, p99 {fig['cold_p99_ms']:.1f} ms",
                    "(reference)",
                )
            )
    for path, _ in PATHS:
        fig = per[path]
        warm = fig["warm_p50_ms"]
        rows.append(
            Row(
                f"warm {path}",
                f"p50 {warm:.2f} ms, p99 {fig['warm_p99_ms']:.2f} ms (errors {fig['warm_errors']})",
                f"<= {WARM_TARGET_MS:.0f} ms",
                warm is not None and warm <= WARM_TARGET_MS,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--warm-n", type=int, default=300)
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="uvloop")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pkgintel-bench-people-") as tmp:
        per = run_loop(args, measure(args, Path(tmp)))
    rows = rows_for(per, args.latency_ms)
    print(render_table(rows))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    (out / f"{stamp}-people.json").write_text(
        json.dumps({"machine": machine_info(), "args": vars(args), "figures": per}, indent=2)
    )


if __name__ == "__main__":
    main()
