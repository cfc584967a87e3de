"""
`/api/exists` throughput against its floor: the same wrk run (`-t2 -c32`, rotating over the same
1,000 paths of real npm names, 5 % absent) against `pkgintel serve` and against a bare ASGI app
answering from a dict (`exists_floor_app.py`), both under uvicorn with one worker. Prints both
req/s and their ratio (target ≤ 3). Needs wrk and the shared npm name list.

Run: `.venv/bin/python bench/bench_exists_floor.py [--duration 10] [--names-limit 20000]`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _common import REPO
from bench_api import (
    DEFAULT_SHARED,
    Processes,
    build_workload,
    free_port,
    prepare_database,
    run_wrk,
    service_env,
    start_service,
    wait_http,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--names-limit", type=int, default=20000)
    parser.add_argument("--names-sample", type=int, default=1000)
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--wrk-connections", type=int, default=32)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.unique_names = 0
    args.workers = 1
    with tempfile.TemporaryDirectory(prefix="pkgintel-floor-") as tmp:
        workdir = Path(tmp)
        db_url = f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
        rows, _ = prepare_database(args, workdir, db_url)
        if not rows:
            return 0
        work = build_workload(rows, args, False)
        names = workdir / "names.txt"
        names.write_text("\n".join(n for n, _ in rows))
        procs = Processes(workdir)
        try:
            env = service_env(db_url, "http://127.0.0.1:9", cold=False, log_level="warning")
            base = start_service(procs, "service", free_port(), env, 1)
            run_wrk(args, "warm-up", base, work.rotation, workdir)
            service = run_wrk(args, "service", base, work.rotation, workdir)
            procs.stop("service")
            port = free_port()
            floor_env = {
                **env,
                "PKGINTEL_FLOOR_NAMES": str(names),
                "PYTHONPATH": str(REPO / "bench"),
            }
            proc = procs.start(
                "floor",
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "exists_floor_app:app",
                    "--port",
                    str(port),
                    "--log-level",
                    "warning",
                    "--no-access-log",
                ],
                floor_env,
            )
            floor_base = f"http://127.0.0.1:{port}"
            wait_http(floor_base + "/", proc)
            run_wrk(args, "warm-up", floor_base, work.rotation, workdir)
            floor = run_wrk(args, "floor", floor_base, work.rotation, workdir)
        finally:
            procs.stop_all()
    ratio = (floor.rps or 0) / (service.rps or 1)
    print(f"service: {service.rps:,.0f} req/s (p50 {service.p50_ms} ms, p99 {service.p99_ms} ms)")
    print(f"floor:   {floor.rps:,.0f} req/s (p50 {floor.p50_ms} ms, p99 {floor.p99_ms} ms)")
    print(f"ratio floor/service: {ratio:.2f} (target <= 3)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
