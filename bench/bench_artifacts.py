"""
Benchmark of the supply-chain signals of artifacts (issue 16): `/api/scorecard`, `/api/provenance`
and the report with its `scorecard`, `bundle` and `typescript`, warm and cold.

How:
* The upstreams are the replay registry `tests/fake_registry.py` with `--latency-ms` artificial latency
  per request (default 30 ms), called in process through `httpx.ASGITransport`: the hand-written
  registry bodies of `tests/supply_chain_bodies.py`, which point at the real recorded Scorecard and
  attestation bodies in `../shared/data/registry-fixtures/{scorecard,provenance}/`. The OSV API fallback
  is off, so nothing leaves the process.
* Warm: one service with the default cache lifetimes; one priming call, then `--runs` timed calls.
* Cold: a second service with `PKGINTEL_CACHE_TTL_S=0` and `PKGINTEL_CACHE_STALE_S=0`, so every call
  fetches every upstream again (registry snapshot, attestation index, bundles, Scorecard, `@types/`).
* Server time (from the request entering the app to its last body chunk, `_common.ServerTimer`),
  p50 / p99. The floor of a cold answer is its chain of dependent upstream round trips: one for
  `/api/scorecard` (the repository comes from the registry, then Scorecard: two), and for
  `/api/provenance` one (snapshot and attestation index together). The attestation bundles of a
  published version never change and stay cached 7 days whatever the cache settings say, so only the
  very first ask of a version pays a second trip for them (the priming call here).

Run: `.venv/bin/python bench/bench_artifacts.py [--latency-ms 30] [--runs 200]`.
Nothing is asserted; figures go to stdout and `bench/results/<timestamp>-artifacts.json`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import REPO, Row, ServerTimer, machine_info, percentile, render_table, run_loop

sys.path.insert(0, str(REPO))

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime
from tests.fake_registry import build
from tests.supply_chain_bodies import NPM_ATTESTATIONS, SUPPLY_CHAIN_RECORDINGS

DEFAULT_SHARED = REPO.parent / "shared" / "data"
CASES = [
    ("/api/scorecard/npm/scorecard-demo", 2),
    ("/api/scorecard/pypi/sigstore", 2),
    ("/api/provenance/npm/sigstore", 1),
    ("/api/provenance/npm/sigstore?version=0.4.0", 1),
    ("/api/provenance/pypi/sigstore?version=3.6.1", 1),
    ("/api/check/npm/scorecard-demo", 2),
    ("/api/trust/npm/sigstore", 2),  # maintainers, Scorecard, quality, provenance at once
    ("/api/trust/pypi/sigstore", 2),
]
"""(path, dependent upstream round trips on the cold path)."""


def _fmt(ms: list[float]) -> str:
    return f"p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms"


async def _timed(
    client: httpx.AsyncClient, timer: ServerTimer, path: str, runs: int
) -> list[float]:
    out = []
    for _ in range(runs):
        resp = await client.get(path)
        assert resp.status_code == 200, (path, resp.status_code, resp.text[:200])
        assert timer.last is not None
        out.append(timer.last * 1000)
    return out


def _settings(workdir: Path, name: str, **over: Any) -> Settings:
    return Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{workdir / name}",
        upstream_npm_url="http://registry.test/npm",
        upstream_npm_downloads_url="http://registry.test/npm-downloads",
        upstream_pypi_url="http://registry.test/pypi",
        upstream_pypistats_url="http://registry.test/pypistats",
        upstream_pypi_files_url="http://registry.test/pypi-files",
        upstream_scorecard_url="http://registry.test/scorecard",
        osv_api_fallback=False,
        ip_hash_secret="bench-only-not-a-secret",  # noqa: S106
        worker_embedded=False,
        initial_ingest=False,
        **over,
    )


async def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    registry = build(args.shared, args.latency_ms)
    for url, body in SUPPLY_CHAIN_RECORDINGS:
        registry.add(url, body)
    real = (
        args.shared
        / "registry-fixtures/provenance/registry.npmjs.org_-_npm_v1_attestations_sigstore@0.4.0.json"
    )
    registry.add(NPM_ATTESTATIONS.format("0.3.0"), real.read_bytes())
    rows: list[Row] = []
    latency = args.latency_ms
    for label, settings in (
        ("warm", _settings(workdir, "warm.db")),
        ("cold", _settings(workdir, "cold.db", cache_ttl_s=0, cache_stale_s=0)),
    ):
        transport = httpx.ASGITransport(app=registry.app)
        async with build_runtime(settings, transport=transport) as runtime:
            timer = ServerTimer(create_app(settings, runtime=runtime))
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=timer), base_url="http://bench"
            ) as client:
                for path, chain in CASES:
                    await client.get(path)  # priming (warm) / first touch (cold)
                    runs = args.runs if label == "warm" else max(10, args.runs // 10)
                    ms = await _timed(client, timer, path, runs)
                    floor = chain * latency
                    target = "p50 <= 5 ms" if label == "warm" else f"p50 <= {floor + 25:.0f} ms"
                    limit = 5 if label == "warm" else floor + 25
                    rows.append(
                        Row(
                            f"{label} {path}",
                            _fmt(ms)
                            + (
                                "" if label == "warm" else f" (floor {floor:.0f} ms: {chain} trips)"
                            ),
                            target,
                            (percentile(ms, 50) or 0) <= limit,
                        )
                    )
    return rows, {"latency_ms": latency, "runs": args.runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--latency-ms", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=200)
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default=default_loop)
    args = parser.parse_args()
    if not (args.shared / "registry-fixtures" / "provenance").is_dir():
        sys.exit(f"shared data not found at {args.shared}")
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-artifacts-"))
    try:
        rows, extra = run_loop(args, run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(render_table(rows))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / f"{time.strftime('%Y%m%dT%H%M%S')}-artifacts.json").write_text(
        json.dumps(
            {"rows": [r.__dict__ for r in rows], "machine": machine_info(), **extra}, indent=1
        )
    )


if __name__ == "__main__":
    main()
