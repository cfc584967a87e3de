"""
Infrastructure faults under load (issue 34): `pkgintel serve --workers 2` on PostgreSQL + Redis,
~150 requests/s of mixed load (exists, check_bulk, vulns, status) on 64 keep-alive connections,
PostgreSQL stopped for 20 s, then Redis for 30 s. Prints, per phase: answers by status, 503s without
`Retry-After`, transport errors (resets), the server's log lines other than the access log, the
registry calls per package; and at the end usage rows stored against answers that should be rows.

Needs what `tests/faults/harness.py` says (`PKGINTEL_TEST_DATABASE_URL`, `PKGINTEL_TEST_REDIS_URL`,
`PKGINTEL_TEST_PG_CTL`, `PKGINTEL_TEST_REDIS_CTL`).

    PYTHONPATH=src:. .venv/bin/python bench/bench_faults.py [--rate 150] [--pg-down 20] [--redis-down 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path

from tests.faults.harness import (
    Load,
    control,
    missing,
    non_access_lines,
    running_service,
    usage_rows,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--rate", type=float, default=150.0)
    parser.add_argument("--pg-down", type=float, default=20.0)
    parser.add_argument("--redis-down", type=float, default=30.0)
    parser.add_argument("--steady", type=float, default=15.0)
    parser.add_argument("--clients", type=int, default=64, help="keep-alive connections")
    parser.add_argument("--keep", type=Path, default=None, help="folder to keep the server log in")
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"bench_faults: {why}")
    with (
        tempfile.TemporaryDirectory(prefix="pkgintel-faults-") as tmp,
        running_service(Path(tmp)) as service,
    ):
        load = Load(
            service.base,
            service.registry,
            rate=args.rate,
            clients=args.clients,
            log=service.log,
        )
        schedule = [
            ("warm", args.steady, None),
            ("steady", args.steady, None),
            ("pg-down", args.pg_down, lambda: control("pg", "stop")),
            ("pg-back", args.steady, lambda: control("pg", "start")),
            ("redis-down", args.redis_down, lambda: control("redis", "stop")),
            ("redis-back", args.steady, lambda: control("redis", "start")),
        ]
        asyncio.run(load.run(schedule))
        lines = load.phase_lines()
        calls = load.phase_upstream_calls()
        report = {}
        for phase, seconds, _ in schedule:
            tally = load.tally(phase)
            other = non_access_lines(lines.get(phase, []))
            report[phase] = {
                **tally.as_dict(),
                "rate_per_s": round(tally.total / seconds, 1),
                "log_lines": len(other),
                "log_sample": other[:6],
                "upstream_calls_max_per_path": max(calls.get(phase, {}).values(), default=0),
                "upstream_calls": dict(calls.get(phase, {}).most_common(8)),
            }
        recordable = sum(t.recordable for t in load.tallies.values())
    # The service has stopped (SIGTERM): every worker flushed its usage log.
    stored = asyncio.run(usage_rows())
    report["usage"] = {"answers_recorded": recordable, "rows_stored": stored}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
