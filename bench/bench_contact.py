"""
Benchmark of contact requests: `POST /api/contact` (validate, count against the client's limit, store
one row, acknowledge) and `GET /api/contact/types`, on SQLite.

How: a temporary SQLite database (removed on exit) is migrated and the app is called in process through
`httpx.ASGITransport`; `_common.ServerTimer` measures server time from the request entering the app to
its last body chunk. The per-client limit is raised for the run (each timed call would otherwise be the
same client's sixth); every other setting is the default. Each figure: 20 untimed calls, then `--runs`
timed calls, p50 / p99.

Targets: a stored request p50 ≤ 10 ms (one INSERT and one rate-limit hit); the types list p50 ≤ 2 ms.

Run: `.venv/bin/python bench/bench_contact.py [--runs 300]`. Nothing is asserted; figures go to stdout.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import httpx
from _common import Row, ServerTimer, machine_info, percentile, render_table, run_loop

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.runtime.bootstrap import build_runtime

BODY = {
    "type": "wrong-answer",
    "message": "express 5.3.0 is shown deprecated, but the registry has no deprecation notice.",
    "email": "dev@example.org",
    "ecosystem": "npm",
    "package": "express",
}


async def _time(client: httpx.AsyncClient, timer: ServerTimer, runs: int, call: Any) -> list[float]:
    for _ in range(20):
        await call(client)
    out: list[float] = []
    for _ in range(runs):
        resp = await call(client)
        assert resp.status_code in (200, 201), resp.text
        assert timer.last is not None
        out.append(timer.last * 1000)
    return out


async def run(args: argparse.Namespace, workdir: Path) -> list[Row]:
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{workdir / 'bench.db'}",
        initial_ingest=False,
        contact_limit="1000000/hour",
    )
    async with build_runtime(settings) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=timer), base_url="http://bench"
        ) as client:
            post = await _time(
                client, timer, args.runs, lambda c: c.post("/api/contact", json=BODY)
            )
            types = await _time(client, timer, args.runs, lambda c: c.get("/api/contact/types"))
    rows = []
    for name, values, target in (
        ("POST /api/contact (stored)", post, 10.0),
        ("GET /api/contact/types", types, 2.0),
    ):
        p50, p99 = percentile(values, 50), percentile(values, 99)
        assert p50 is not None and p99 is not None
        rows.append(
            Row(name, f"p50 {p50:.2f} ms, p99 {p99:.2f} ms", f"p50 ≤ {target:g} ms", p50 <= target)
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="asyncio")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-contact-"))
    try:
        rows = run_loop(args, run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(render_table(rows))
    print(json.dumps({"machine": machine_info()}, indent=1))


if __name__ == "__main__":
    main()
