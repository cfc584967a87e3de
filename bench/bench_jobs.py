"""
Job-table throughput: how many jobs per second our queue enqueues and runs (claim → run → finish,
with a heartbeat row per job), on SQLite and PostgreSQL, with 1 and 4 workers; and, when a Redis
server is given, the same loop on a Redis stream (XADD / XREADGROUP / XACK) for comparison.

    .venv/bin/python bench/bench_jobs.py --jobs 2000
    .venv/bin/python bench/bench_jobs.py --pg postgresql+asyncpg://postgres@127.0.0.1:5432/bench \
        --redis redis://127.0.0.1:6379/0

Figures, not assertions (see bench/README.md, section "bench_jobs.py"). The numbers feed ADR 0018.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import machine_info, percentile

from pkgintel.services.operations.jobs import JobContext, JobKind, JobQueue, Worker
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.ops import SqlOpsStore
from pkgintel.storage.sql import create_engine


async def _noop(ctx: JobContext) -> dict[str, Any]:
    return {"ok": True}


async def bench_table(url: str, jobs: int, workers: int) -> dict[str, Any]:
    engine = create_engine(url)
    if url.startswith("postgresql"):
        from sqlalchemy import text

        async with engine.begin() as conn:
            await conn.execute(text("DROP SCHEMA public CASCADE"))
            await conn.execute(text("CREATE SCHEMA public"))
    await upgrade(engine)
    store = SqlOpsStore(engine)
    queue = JobQueue(store, {"noop": JobKind(run=_noop)})
    t0 = time.perf_counter()
    for _ in range(jobs):
        await queue.enqueue("noop")
    enqueue_s = time.perf_counter() - t0
    pool = [Worker(queue, worker_id=f"w{i}", heartbeat_s=1.0, lease_s=30.0) for i in range(workers)]
    latencies: list[float] = []

    async def drain(w: Worker) -> None:
        while True:
            t = time.perf_counter()
            done = await w.run_one()
            if done is None:
                return
            latencies.append((time.perf_counter() - t) * 1000)

    t1 = time.perf_counter()
    await asyncio.gather(*(drain(w) for w in pool))
    run_s = time.perf_counter() - t1
    counts = await store.job_counts()
    await engine.dispose()
    return {
        "backend": "postgresql" if url.startswith("postgresql") else "sqlite",
        "workers": workers,
        "jobs": jobs,
        "enqueue_per_s": round(jobs / enqueue_s),
        "run_per_s": round(jobs / run_s),
        "job_p50_ms": round(percentile(latencies, 50) or 0, 2),
        "job_p99_ms": round(percentile(latencies, 99) or 0, 2),
        "succeeded": counts.get("succeeded", 0),
    }


async def bench_redis(url: str, jobs: int, workers: int) -> dict[str, Any]:
    from redis.asyncio import Redis

    r = Redis.from_url(url)
    stream, group = "bench:jobs", "workers"
    await r.delete(stream)
    await r.xgroup_create(stream, group, id="0", mkstream=True)
    t0 = time.perf_counter()
    for i in range(jobs):
        await r.xadd(stream, {"kind": "noop", "n": str(i)})
    enqueue_s = time.perf_counter() - t0
    latencies: list[float] = []
    seen: set[bytes] = set()

    async def drain(name: str) -> None:
        while True:
            t = time.perf_counter()
            got = await r.xreadgroup(group, name, {stream: ">"}, count=1)
            if not got:
                return
            for _, entries in got:
                for entry_id, _fields in entries:
                    seen.add(entry_id)
                    await r.xack(stream, group, entry_id)
            latencies.append((time.perf_counter() - t) * 1000)

    t1 = time.perf_counter()
    await asyncio.gather(*(drain(f"w{i}") for i in range(workers)))
    run_s = time.perf_counter() - t1
    await r.delete(stream)
    await r.aclose()
    return {
        "backend": "redis-stream",
        "workers": workers,
        "jobs": jobs,
        "enqueue_per_s": round(jobs / enqueue_s),
        "run_per_s": round(jobs / run_s),
        "job_p50_ms": round(percentile(latencies, 50) or 0, 2),
        "job_p99_ms": round(percentile(latencies, 99) or 0, 2),
        "succeeded": len(seen),
    }


async def main(args: argparse.Namespace) -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 4):
            db = Path(tmp) / f"jobs{workers}.db"
            rows.append(await bench_table(f"sqlite+aiosqlite:///{db}", args.jobs, workers))
            if args.pg:
                rows.append(await bench_table(args.pg, args.jobs, workers))
            if args.redis:
                rows.append(await bench_redis(args.redis, args.jobs, workers))
    info = machine_info()
    print(f"machine: {info['nproc']} cores ({info['cpu_model']}), loadavg {info['loadavg_at_end']}")
    head = ["backend", "workers", "jobs", "enqueue_per_s", "run_per_s", "job_p50_ms", "job_p99_ms"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(str(row[h]) for h in head) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--pg", help="PostgreSQL URL (its public schema is dropped and recreated)")
    parser.add_argument("--redis", help="Redis URL for the stream comparison")
    asyncio.run(main(parser.parse_args()))
