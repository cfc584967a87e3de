"""
Figures for scale (issue 33, item 6), against a real `pkgintel serve`:

1. **mixed reads, 1/2/4 workers on PostgreSQL + Redis**: the `--names-limit` most downloaded npm
   names loaded with `pkgintel ingest names` (and the npm OSV records of `osv-converted/`), then
   for each worker count `serve --workers N` and `wrk --latency` for `--duration` s over a
   weighted mix (`_wrk_mix.py`): 60 % `GET /api/exists/npm/<name>` (real names, 5 % absent
   variants), 15 % `GET /api/typosquat/npm/<name>`, 10 % `POST /api/check_bulk` (10 real names),
   10 % `GET /api/check/npm/<name>` warm (the packages the replay registry records, each asked
   once before), 5 % `GET /api/status`; req/s, p50, p99, non-2xx, and each process's RSS after;
2. **one worker with the full name indexes**: all of `names/npm.tsv.gz` and `names/pypi.tsv.gz`
   in a SQLite database (`--names-db` keeps it for later runs; the load is timed when it happens),
   `serve` with 1 worker: time to `/readyz` 200, the first and later typosquat/exists answers on
   both ecosystems, then VmRSS and VmHWM of the worker (`/proc/<pid>/status`);
3. **scan time**: `POST /api/scan` of a `package-lock.json` (v3) of 1k, 10k and 50k real npm names
   at their latest versions, on PostgreSQL + Redis, 1 worker, a fresh process per size (cold: its
   first scan; warm: the median of the next ones); `PKGINTEL_MAX_LOCKFILE_BYTES` raised to
   `--scan-max-bytes` since the 50k file is over the 5 MiB default; server time (`_response_ms`),
   client time, packages/s and whether the time grows linearly;
4. **OSV ingestion**: every `osv/<ecosystem>/all.zip` with `pkgintel ingest osv` into a fresh
   SQLite database and a fresh PostgreSQL database each (migrated first, untimed): wall seconds of
   the command (process start included), the loader's own seconds, records/s.

PostgreSQL and Redis: by default a private cluster and server on free loopback ports, started the
way `.ci/run` starts them (initdb/pg_ctl as the `postgres` user, `--no-sync`, fsync off; Redis
without persistence) and stopped at the end; or `--database-url` (a server where the user may
create databases: the bench creates its own and drops them) and `--redis-url`. The upstreams are
`tests/fake_registry.py` in a subprocess; the anonymous rate limit is raised (requests are counted,
never refused); the embedded worker is off. Everything listens on 127.0.0.1. Prints JSON and
writes `bench/results/scale-<timestamp>.json`; nothing is asserted.

Run: `.venv/bin/python bench/bench_scale.py [--names-db ~/.cache/pkgintel-names.db] [--skip-osv]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, machine_info, pkgintel_cmd
from _wrk_mix import Request, interleave, wrk_script
from bench_api import (
    COLD_NPM,
    DEFAULT_SHARED,
    Processes,
    absent_variants,
    free_port,
    name_path,
    prepare_database,
    read_names,
    run_wrk,
    service_env,
    wait_http,
)

RESULTS = REPO / "bench" / "results"
MIX = {"exists": 60, "typosquat": 15, "check_bulk": 10, "check": 10, "status": 5}
"""Shares (percent) of the mixed read workload."""
TARGETS = {
    "scan_linear": "time grows linearly with the package count (issue 33)",
    "osv_all_ecosystems": "every OSV ecosystem of the shared data ingested (issue 33)",
}


# -- PostgreSQL and Redis ---------------------------------------------------------------------------


class Servers:
    """A private PostgreSQL cluster and Redis server (as `.ci/run` starts them), or given ones."""

    def __init__(self, procs: Processes, database_url: str | None, redis_url: str | None) -> None:
        self.procs = procs
        self.pg_dir: Path | None = None
        self.pg_bin: str | None = None
        self.created: list[str] = []
        if database_url is None:
            self.server_url = self._start_postgres()
        else:
            self.server_url = database_url
        self.redis_url = redis_url or self._start_redis()

    def _as_postgres(self, command: str) -> None:
        subprocess.run(
            ["su", "postgres", "-s", "/bin/sh", "-c", command],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def _start_postgres(self) -> str:
        bins = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not bins:
            raise SystemExit(
                "PostgreSQL not installed (apt-get install postgresql) and no --database-url"
            )
        self.pg_bin = str(bins[-1].parent)
        self.pg_dir = Path(tempfile.mkdtemp(prefix="pkgintel-scale-pg-"))
        shutil.chown(self.pg_dir, "postgres")
        port = free_port()
        data = self.pg_dir / "pg"
        self._as_postgres(f"{self.pg_bin}/initdb -D {data} -A trust -U postgres --no-sync")
        opts = f"-p {port} -k {self.pg_dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(
            f"{self.pg_bin}/pg_ctl -D {data} -l {self.pg_dir}/pg.log -w -o '{opts}' start"
        )
        return f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"

    def _start_redis(self) -> str:
        port = free_port()
        cmd = ["redis-server", "--port", str(port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no"]
        self.procs.start("redis", cmd, {"PATH": "/usr/bin:/bin"})
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            done = subprocess.run(
                ["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False
            )
            if done.stdout.strip() == "PONG":
                return f"redis://127.0.0.1:{port}/0"
            time.sleep(0.1)
        raise RuntimeError("redis did not answer")

    def database(self, label: str) -> str:
        """A new, empty database on the server (dropped at the end); its URL."""
        from sqlalchemy.engine import make_url

        name = f"pkgintel_scale_{label}_{int(time.time())}_{len(self.created)}"
        url = make_url(self.server_url)

        async def create() -> None:
            import asyncpg

            conn = await asyncpg.connect(
                host=url.host, port=url.port, user=url.username, password=url.password,
                database=url.database or "postgres",
            )  # fmt: skip
            try:
                await conn.execute(f'CREATE DATABASE "{name}"')
            finally:
                await conn.close()

        asyncio.run(create())
        self.created.append(name)
        return url.set(database=name).render_as_string(hide_password=False)

    def close(self) -> None:
        from sqlalchemy.engine import make_url

        url = make_url(self.server_url)

        async def drop() -> None:
            import asyncpg

            conn = await asyncpg.connect(
                host=url.host, port=url.port, user=url.username, password=url.password,
                database=url.database or "postgres",
            )  # fmt: skip
            try:
                for name in self.created:
                    await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            finally:
                await conn.close()

        if self.pg_dir is None:  # a given server: drop what was created there
            with contextlib.suppress(Exception):
                asyncio.run(drop())
        else:
            with contextlib.suppress(subprocess.CalledProcessError):
                self._as_postgres(f"{self.pg_bin}/pg_ctl -D {self.pg_dir / 'pg'} -m fast -w stop")
            shutil.rmtree(self.pg_dir, ignore_errors=True)
        self.procs.stop("redis")


# -- processes and memory ---------------------------------------------------------------------------


def proc_status(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of `pid` in MiB (empty when the process is gone)."""
    out: dict[str, float] = {}
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = round(int(value.split()[0]) / 1024, 1)
    return out


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants."""
    out = [pid]
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                out += process_tree(int(child))
    return out


def tree_memory(pid: int) -> list[dict[str, Any]]:
    """RSS of the serve process and each of its descendants (uvicorn's workers)."""
    rows = []
    for p in process_tree(pid):
        cmd = ""
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80]
        rows.append({"pid": p, "cmd": cmd.strip(), **proc_status(p)})
    return rows


def start_serve(
    procs: Processes, label: str, env: dict[str, str], workers: int
) -> tuple[str, subprocess.Popen[bytes], float]:
    """`pkgintel serve --workers N` on a free port; (base URL, process, seconds to /readyz 200)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.monotonic()
    cmd = [*pkgintel_cmd(), "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = procs.start(label, [*cmd, "--workers", str(workers)], env)
    try:
        wait_http(base + "/livez", proc, timeout_s=120)
        with httpx.Client(timeout=10.0) as client:
            deadline = time.monotonic() + 300
            while client.get(base + "/readyz").status_code != 200:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{label}: /readyz never 200")
                time.sleep(0.05)
    except (RuntimeError, httpx.HTTPError):
        print(procs.log_tail(label))
        raise
    return base, proc, round(time.monotonic() - started, 2)


def cli(env: dict[str, str], workdir: Path, *argv: str) -> tuple[float, str]:
    """Run `pkgintel <argv>`; (wall seconds, output). Raises on failure."""
    started = time.perf_counter()
    done = subprocess.run(
        [*pkgintel_cmd(), *argv], cwd=workdir, env=env, capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(
            f"pkgintel {' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}"
        )
    return took, done.stdout + done.stderr


# -- 1. mixed reads ---------------------------------------------------------------------------------


def mixed_requests(rows: list[tuple[str, int]], seed: int, length: int) -> list[Request]:
    """`length` requests in MIX's shares over real names (ASCII ones, so bodies stay plain)."""
    rng = random.Random(seed)
    names = [n for n, _ in rows if n.isascii()]
    known = {n.lower() for n in names}
    present = rng.sample(names, min(len(names), 1200))
    exists = present[:1140] + absent_variants(rng, present, known, 60)
    rng.shuffle(exists)
    typo = rng.sample(names, min(len(names), 300))
    pools: dict[str, list[Request]] = {
        "exists": [Request("exists", "GET", "/api/exists/npm/" + name_path(n)) for n in exists],
        "typosquat": [
            Request("typosquat", "GET", "/api/typosquat/npm/" + name_path(n)) for n in typo
        ],
        "check_bulk": [
            Request(
                "check_bulk",
                "POST",
                "/api/check_bulk",
                json.dumps(
                    {"items": [{"ecosystem": "npm", "package": n} for n in rng.sample(names, 10)]},
                    separators=(",", ":"),
                ),
            )
            for _ in range(200)
        ],
        "check": [Request("check", "GET", "/api/check/npm/" + name_path(n)) for n in COLD_NPM],
        "status": [Request("status", "GET", "/api/status")],
    }
    seen = dict.fromkeys(MIX, 0)
    out = []
    for kind in interleave(MIX, length):
        pool = pools[kind]
        out.append(pool[seen[kind] % len(pool)])
        seen[kind] += 1
    return out


def spot_check(base: str, requests: list[Request]) -> dict[str, Any]:
    """Each kind asked 10 times sequentially on one connection, unloaded: non-2xx answers and the
    median client time per kind (where the mix's time goes)."""
    by_kind: dict[str, list[Request]] = {}
    for r in requests:
        by_kind.setdefault(r.kind, []).append(r)
    out: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=30.0, headers={"Accept-Encoding": "gzip"}) as client:
        for kind, reqs in by_kind.items():
            bad, times = 0, []
            for r in reqs[:10]:
                started = time.perf_counter()
                resp = client.request(
                    r.method,
                    r.path,
                    content=r.body,
                    headers={"Content-Type": "application/json"} if r.body else None,
                )
                times.append((time.perf_counter() - started) * 1000)
                bad += not 200 <= resp.status_code < 300
            out[kind] = {"non_2xx": bad, "median_ms": round(statistics.median(times), 2)}
    return out


def run_mixed(
    args: argparse.Namespace,
    workdir: Path,
    procs: Processes,
    db_url: str,
    redis_url: str,
    registry: str,
    rows: list[tuple[str, int]],
) -> list[dict[str, Any]]:
    requests = mixed_requests(rows, args.seed, 2000)
    script = wrk_script(requests, args.wrk_threads)
    out = []
    for workers in args.workers:
        env = service_env(db_url, registry, cold=False, log_level="warning")
        env["PKGINTEL_REDIS_URL"] = redis_url
        label = f"mixed-{workers}"
        base, proc, ready_s = start_serve(procs, label, env, workers)
        with httpx.Client(base_url=base, timeout=60.0) as client:
            for name in COLD_NPM:  # prime: the report is stored (Redis), later asks are warm
                client.get("/api/check/npm/" + name_path(name))
        bad = spot_check(base, requests)
        wrk_args = argparse.Namespace(
            wrk_threads=args.wrk_threads,
            wrk_connections=args.wrk_connections,
            duration=args.warmup,
            workers=workers,
        )
        run_wrk(wrk_args, f"warm-up {workers}", base, ["/api/status"], workdir, script)
        wrk_args.duration = args.duration
        fig = run_wrk(wrk_args, f"mixed {workers}", base, ["/api/status"], workdir, script)
        memory = tree_memory(proc.pid)
        procs.stop(label)
        row = {
            "workers": workers,
            "rps": fig.rps,
            "p50_ms": fig.p50_ms,
            "p99_ms": fig.p99_ms,
            "requests": fig.n,
            "non_2xx": fig.errors,
            "sequential_by_kind": bad,
            "ready_s": ready_s,
            "processes": memory,
            "note": fig.note,
            "wrk_output": fig.extra.get("wrk_output", ""),
        }
        print(
            f"  {workers} worker(s): {fig.rps} req/s, p50 {fig.p50_ms} ms, p99 {fig.p99_ms} ms, "
            f"non-2xx {fig.errors}"
        )
        out.append(row)
    return out


# -- 2. one worker, full name indexes ------------------------------------------------------------


def full_names_db(args: argparse.Namespace, workdir: Path) -> tuple[str, dict[str, Any]]:
    """The SQLite database with both full name lists (loaded now, timed, unless it exists)."""
    path = args.names_db or workdir / "names-full.db"
    url = f"sqlite+aiosqlite:///{path}"
    info: dict[str, Any] = {"database": str(path), "loaded_this_run": not path.exists()}
    if path.exists():
        return url, info
    env = service_env(url, "http://127.0.0.1:9", cold=False, log_level="warning")
    cli(env, workdir, "migrate")
    for eco in ("npm", "pypi"):
        source = args.shared / "names" / f"{eco}.tsv.gz"
        took, _ = cli(env, workdir, "ingest", "names", "--ecosystem", eco, "--from", str(source))
        count = sum(1 for _ in read_names(source))
        info[f"ingest_{eco}"] = {"names": count, "s": round(took, 1), "per_s": round(count / took)}
        print(f"  loaded {count:,} {eco} names in {took:.0f} s")
    return url, info


def run_full_index(
    args: argparse.Namespace, workdir: Path, procs: Processes, registry: str
) -> dict[str, Any]:
    url, info = full_names_db(args, workdir)
    env = service_env(url, registry, cold=False, log_level="warning")
    base, proc, ready_s = start_serve(procs, "full-index", env, 1)
    info["ready_s"] = ready_s
    info["at_ready"] = proc_status(proc.pid)
    npm = sorted(read_names(args.shared / "names" / "npm.tsv.gz"), key=lambda r: -r[1])
    npm_names = [n for n, _ in npm[:200] if "/" not in n][:25]
    pypi_names = ["requests", "numpy", "django", "flask", "pandas", "boto3", "urllib3", "pyyaml"]
    pypi_names += ["setuptools", "pytest", "click", "jinja2", "attrs", "scipy", "pillow"]
    answers: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=60.0) as client:
        for eco, names in (("npm", npm_names), ("pypi", pypi_names)):
            for kind, fmt in (
                ("typosquat", "/api/typosquat/{}/{}x"),
                ("exists", "/api/exists/{}/{}"),
            ):
                times, statuses = [], set()
                for n in names:
                    t = time.perf_counter()
                    resp = client.get(fmt.format(eco, name_path(n)))
                    times.append((time.perf_counter() - t) * 1000)
                    statuses.add(resp.status_code)
                answers[f"{kind} {eco}"] = {
                    "first_ms": round(times[0], 2),
                    "later_median_ms": round(statistics.median(times[1:]), 2),
                    "statuses": sorted(statuses),
                }
    info["answers"] = answers
    time.sleep(1)
    info["after_answers"] = proc_status(proc.pid)
    info["processes"] = tree_memory(proc.pid)
    procs.stop("full-index")
    print(f"  ready in {ready_s} s; worker {info['after_answers']}")
    return info


# -- 3. scan time -----------------------------------------------------------------------------------


def real_lockfile(rows: list[tuple[str, str]], count: int) -> str:
    """A package-lock v3 of the first `count` (name, version) rows."""
    packages: dict[str, dict[str, str]] = {"": {"name": "scale-app", "version": "1.0.0"}}
    for name, version in rows[:count]:
        base = name.rsplit("/", 1)[-1]
        packages[f"node_modules/{name}"] = {
            "version": version,
            "resolved": f"https://registry.npmjs.org/{name}/-/{base}-{version}.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
        }
    return json.dumps({"name": "scale-app", "lockfileVersion": 3, "packages": packages})


def npm_versions(path: Path, limit: int) -> list[tuple[str, str]]:
    """(name, latest version) of the `limit` most downloaded npm names that have a version."""
    import csv
    import gzip

    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader, None)
        rows = [(r[0], r[1], int(r[2] or 0)) for r in reader if len(r) > 2 and r[0] and r[1]]
    rows.sort(key=lambda r: -r[2])
    return [(n, v) for n, v, _ in rows[:limit]]


def run_scans(
    args: argparse.Namespace, procs: Processes, db_url: str, redis_url: str, registry: str
) -> dict[str, Any]:
    rows = npm_versions(args.shared / "names" / "npm.tsv.gz", max(args.scan_sizes))
    out: dict[str, Any] = {"max_lockfile_bytes": args.scan_max_bytes, "sizes": []}
    for size in args.scan_sizes:
        lockfile = real_lockfile(rows, size)
        body = json.dumps({"lockfile": lockfile, "filename": "package-lock.json"})
        env = service_env(db_url, registry, cold=False, log_level="warning")
        env["PKGINTEL_REDIS_URL"] = redis_url
        env["PKGINTEL_MAX_LOCKFILE_BYTES"] = str(args.scan_max_bytes)
        label = f"scan-{size}"
        base, proc, _ = start_serve(procs, label, env, 1)
        server, client_s, counts = [], [], []
        with httpx.Client(base_url=base, timeout=args.scan_timeout) as client:
            for _ in range(1 + args.scan_warm):
                t = time.perf_counter()
                try:
                    resp = client.post(
                        "/api/scan", content=body, headers={"Content-Type": "application/json"}
                    )
                except httpx.TimeoutException:
                    break
                client_s.append(time.perf_counter() - t)
                if resp.status_code != 200:
                    raise RuntimeError(f"scan {size}: {resp.status_code} {resp.text[:300]}")
                data = resp.json()
                server.append(data["_response_ms"] / 1000)
                counts.append(len(data["packages"]))
        rss = proc_status(proc.pid)
        procs.stop(label)
        if not server:
            print(f"  {size:,} packages: no answer within {args.scan_timeout:g} s")
            out["sizes"].append(
                {"packages": size, "finished": False, "timeout_s": args.scan_timeout, "rss": rss}
            )
            break
        warm = statistics.median(server[1:]) if len(server) > 1 else None
        row = {
            "packages": size,
            "finished": True,
            "packages_answered": counts[0],
            "body_mb": round(len(body) / 1e6, 2),
            "cold_server_s": round(server[0], 3),
            "cold_client_s": round(client_s[0], 3),
            "warm_server_s": round(warm, 3) if warm is not None else None,
            "warm_client_s": round(statistics.median(client_s[1:]), 3) if warm else None,
            "cold_packages_per_s": round(size / server[0]),
            "warm_packages_per_s": round(size / warm) if warm else None,
            "rss_after": rss,
        }
        print(
            f"  {size:,} packages: cold {row['cold_server_s']} s, warm {row['warm_server_s']} s "
            f"({row['warm_packages_per_s']} packages/s)"
        )
        out["sizes"].append(row)
    done = [row for row in out["sizes"] if row["finished"]]
    out["linear"] = linearity(done)
    if len(done) < len(out["sizes"]):
        out["linear"]["met"] = False  # a size that never answered is not linear
    return out


def linearity(sizes: list[dict[str, Any]]) -> dict[str, Any]:
    """Time ratio of each size to the previous against the size ratio (linear: at most 1.3×)."""
    steps = []
    for a, b in itertools.pairwise(sizes):
        for phase in ("cold", "warm"):
            ta, tb = a[f"{phase}_server_s"], b[f"{phase}_server_s"]
            if not ta or not tb:
                continue
            size_ratio = b["packages"] / a["packages"]
            steps.append(
                {
                    "phase": phase,
                    "from": a["packages"],
                    "to": b["packages"],
                    "size_ratio": round(size_ratio, 2),
                    "time_ratio": round(tb / ta, 2),
                    "linear": tb / ta <= 1.3 * size_ratio,
                }
            )
    return {"steps": steps, "met": bool(steps) and all(s["linear"] for s in steps)}


# -- 4. OSV ingestion -------------------------------------------------------------------------------


_LOADER = re.compile(r"([\d,]+) records\b.*?\(([\d.]+) s\)")
"""The loader's own line: `osv:Go: 4,291 records — added ... (1.4 s)`."""


def run_osv(
    args: argparse.Namespace, workdir: Path, servers: Servers | None
) -> list[dict[str, Any]]:
    out = []
    for folder in sorted(p for p in (args.shared / "osv").iterdir() if (p / "all.zip").exists()):
        eco = folder.name
        archive = folder / "all.zip"
        with zipfile.ZipFile(archive) as zf:
            records = sum(1 for n in zf.namelist() if n.endswith(".json"))
        backends = [("sqlite", f"sqlite+aiosqlite:///{workdir / f'osv-{eco}.db'}")]
        if servers is not None:
            backends.append(("postgresql", servers.database("osv")))
        for backend, url in backends:
            env = service_env(url, "http://127.0.0.1:9", cold=False, log_level="warning")
            cli(env, workdir, "migrate")
            wall, text = cli(
                env, workdir, "ingest", "osv", "--ecosystem", eco, "--from", str(archive)
            )
            m = _LOADER.search(text)
            loader_s = float(m.group(2)) if m else None
            row = {
                "ecosystem": eco,
                "backend": backend,
                "records": records,
                "loaded": int(m.group(1).replace(",", "")) if m else None,
                "wall_s": round(wall, 2),
                "loader_s": loader_s,
                "records_per_s_wall": round(records / wall),
                "records_per_s_loader": round(records / loader_s) if loader_s else None,
            }
            print(f"  {eco} → {backend}: {row['wall_s']} s wall, loader {loader_s} s")
            out.append(row)
    return out


# -- orchestration ----------------------------------------------------------------------------------


@contextlib.contextmanager
def replay_registry(procs: Processes, args: argparse.Namespace) -> Iterator[str]:
    port = free_port()
    registry = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, str(REPO / "tests" / "fake_registry.py"), "--port", str(port)]
    cmd += ["--latency-ms", str(args.latency_ms), "--shared", str(args.shared)]
    env = service_env("sqlite+aiosqlite:///unused.db", "", cold=False, log_level="warning")
    proc = procs.start("registry", cmd, env)
    wait_http(f"{registry}/npm/-/none", proc)
    try:
        yield registry
    finally:
        procs.stop("registry")


def run(args: argparse.Namespace, workdir: Path, procs: Processes) -> dict[str, Any]:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    load_at_start = [round(x, 2) for x in __import__("os").getloadavg()]
    result: dict[str, Any] = {"timestamp": stamp, "loadavg_at_start": load_at_start}
    needs_pg = not (args.skip_mixed and args.skip_scan and args.skip_osv)
    servers = Servers(procs, args.database_url, args.redis_url) if needs_pg else None
    try:
        with replay_registry(procs, args) as registry:
            if servers is not None and not (args.skip_mixed and args.skip_scan):
                db_url = servers.database("reads")
                print(
                    f"loading the {args.names_limit:,} most downloaded npm names (PostgreSQL) ..."
                )
                started = time.monotonic()
                rows, _ = prepare_database(args, workdir, db_url)
                result["names_subset"] = {
                    "names": len(rows),
                    "load_s": round(time.monotonic() - started, 1),
                }
                npm_osv = args.shared / "osv-converted" / "npm" / "all.zip"
                if npm_osv.exists():
                    env = service_env(db_url, "http://127.0.0.1:9", cold=False, log_level="warning")
                    cli(env, workdir, "ingest", "osv", "--ecosystem", "npm", "--from", str(npm_osv))
                if not args.skip_mixed:
                    print("1. mixed reads on PostgreSQL + Redis ...")
                    result["mixed"] = run_mixed(
                        args, workdir, procs, db_url, servers.redis_url, registry, rows
                    )
                if not args.skip_scan:
                    print("3. scan time ...")
                    result["scan"] = run_scans(args, procs, db_url, servers.redis_url, registry)
            if not args.skip_rss:
                print("2. one worker with the full npm and PyPI name indexes ...")
                result["full_index"] = run_full_index(args, workdir, procs, registry)
        if not args.skip_osv:
            print("4. OSV ingestion ...")
            result["osv"] = run_osv(args, workdir, servers)
    finally:
        if servers is not None:
            servers.close()
    result["machine"] = machine_info()
    result["config"] = {
        "names_limit": args.names_limit,
        "workers": args.workers,
        "duration_s": args.duration,
        "warmup_s": args.warmup,
        "wrk_threads": args.wrk_threads,
        "wrk_connections": args.wrk_connections,
        "mix_percent": MIX,
        "latency_ms": args.latency_ms,
        "scan_sizes": args.scan_sizes,
        "scan_max_bytes": args.scan_max_bytes,
        "database": "own cluster" if args.database_url is None else "given server",
    }
    result["targets"] = TARGETS
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"scale-{stamp}.json"
    path.write_text(json.dumps(result, indent=2, default=str))
    printable = json.loads(json.dumps(result, default=str))
    for row in printable.get("mixed", []):
        row.pop("wrk_output", None)
    print(json.dumps(printable, indent=2))
    print(f"\nwrote {path.relative_to(REPO)}")
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="shared data folder")
    parser.add_argument("--database-url", help="a PostgreSQL server to use (postgresql+asyncpg://)")
    parser.add_argument("--redis-url", help="a Redis server to use (redis://)")
    parser.add_argument(
        "--names-limit", type=int, default=60000, help="npm names loaded for the mixed reads"
    )
    parser.add_argument(
        "--names-db", type=Path, help="SQLite file with both full name lists (made when absent)"
    )
    parser.add_argument(
        "--workers", type=lambda s: [int(x) for x in s.split(",")], default=[1, 2, 4]
    )
    parser.add_argument("--duration", type=int, default=10, help="seconds of wrk per worker count")
    parser.add_argument("--warmup", type=int, default=2, help="seconds of wrk before each run")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--wrk-connections", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=50.0, help="replay registry latency")
    parser.add_argument(
        "--scan-sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1000, 10000, 50000]
    )
    parser.add_argument("--scan-warm", type=int, default=2, help="warm scans after the cold one")
    parser.add_argument(
        "--scan-timeout", type=float, default=240.0, help="seconds one scan may take"
    )
    parser.add_argument("--scan-max-bytes", type=int, default=64 * 1024 * 1024)
    parser.add_argument("--seed", type=int, default=7)
    for part in ("mixed", "rss", "scan", "osv"):
        parser.add_argument(f"--skip-{part}", action="store_true")
    args = parser.parse_args(argv)
    args.names_sample = 0  # prepare_database reads only names_limit and shared
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not (args.shared / "names" / "npm.tsv.gz").exists():
        print(f"SKIP: {args.shared}/names/npm.tsv.gz not found (no made-up names stand in)")
        return 0
    if shutil.which("wrk") is None:
        args.skip_mixed = True
        print("SKIP mixed reads: wrk not installed")

    def on_term(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-scale-"))
    procs = Processes(workdir)
    try:
        run(args, workdir, procs)
    except KeyboardInterrupt:
        print("\ninterrupted; stopping what was started", file=sys.stderr)
        return 130
    finally:
        procs.stop_all()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
