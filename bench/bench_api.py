"""
HTTP benchmark of the pkgintel foundation: exists, warm and cold check, status.

What is measured, and how:

* **exists** (`/api/exists/npm/<name>`), answered from the name index only. The index is the shared npm
  name list (`../shared/data/names/npm.tsv.gz`, or its `--names-limit` most downloaded rows) loaded
  into a temporary SQLite database with `pkgintel ingest names`. Two workloads, both real names from
  that list with 5 % absent ones mixed in (typos and suffixed variants of real names, checked absent):
  a rotation over about 1,000 names (the same names asked again and again, so whatever the service
  keeps per process is reused), and a long list of distinct names ("first ask": each name is asked
  once, so the database is always consulted). Without the shared list the exists figures are skipped:
  no made-up name list stands in for it.
* **warm check** (`/api/check/npm/lodash`, `/api/check/pypi/requests`) after a priming call, so the
  registry data comes from the in-process cache.
* **cold check**: every recorded package (9 npm, 10 PyPI) through a service whose cache keeps nothing
  (`PKGINTEL_CACHE_TTL_S=0`, `PKGINTEL_CACHE_STALE_S=0`; a stored snapshot is only read when the
  upstream fails), so each request calls the registry and the downloads source; every answer is
  checked to say `_cache: miss`. The time is set against the artificial latency and against the
  slowest single upstream call for that package, timed alone against the replay registry (target:
  cold <= slowest upstream + 20 ms, i.e. the two upstream calls of one report run concurrently).
* **status** (`/api/status`).

Each is timed two ways:

* **in-process server time**: the app is built with `create_app(settings, runtime=...)` around a
  runtime from `build_runtime` and called through `httpx.ASGITransport` on the event loop uvicorn
  would use (uvloop when installed); a pure ASGI wrapper records the time from the request entering
  the app to its last body chunk, so client overhead is excluded.
* **over HTTP** against `pkgintel serve` in a subprocess: sequential requests on one keep-alive
  connection (unloaded latency, client-side time), and `wrk -t2 -c32 --latency` with a Lua script
  rotating over the paths, for throughput (skipped with `--skip-wrk` or when wrk is not installed).

Every client sends `Accept-Encoding: gzip`, as agents' HTTP libraries do. The upstreams are
`tests/fake_registry.py` (recorded bodies, `--latency-ms` of artificial latency per request) in a
subprocess. Everything listens on 127.0.0.1 only; every loop is bounded in count and in time
(`LOOP_CAP_S`). The figures are printed as a table and written to `bench/results/<timestamp>.json`;
nothing is asserted. `--profile` also profiles the in-process loops (pyinstrument when importable,
else cProfile) into `bench/results/<timestamp>-profile.txt` and times the exists path by component.
Everything started is stopped, and the temporary folder removed, on exit, error, Ctrl-C or SIGTERM.

Run: `.venv/bin/python bench/bench_api.py [--latency-ms 50] [--duration 10] [--workers 1] [--skip-wrk]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import gzip
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
from _common import REPO, Profiles, ServerTimer, percentile, pkgintel_cmd, run_loop
from _common import machine_info as common_machine_info

RESULTS = REPO / "bench" / "results"
DEFAULT_SHARED = REPO.parent / "shared" / "data"

COLD_NPM = ("lodash", "chalk", "react", "jquery", "etag", "is-stream", "node-forge", "base62")
COLD_NPM += ("@types/jquery",)
COLD_PYPI = ("requests", "django", "flask", "urllib3", "pyyaml", "nose", "pycrypto", "fastapi")
COLD_PYPI += ("pendulum", "luigi")
COLD_PACKAGES = tuple(("npm", n) for n in COLD_NPM) + tuple(("pypi", n) for n in COLD_PYPI)
"""Every package the shared registry fixtures hold a recording of (registry body)."""
WARM_PATHS = ("/api/check/npm/lodash", "/api/check/pypi/requests")
STATUS_PATH = "/api/status"

TARGETS = {
    "exists_server_p50_ms": 1.0,
    "exists_http_rps": 1500.0,
    "warm_check_p50_ms": 5.0,
    "cold_overhead_ms": 20.0,
    "status_p50_ms": 2.0,
}
LOOP_CAP_S = 120.0
"""No single measuring loop runs longer than this, whatever its count."""


# -- small helpers ---------------------------------------------------------------------------------


@dataclass
class Figure:
    """One row of the results table; times in ms."""

    name: str
    how: str
    p50_ms: float | None = None
    p99_ms: float | None = None
    rps: float | None = None
    n: int = 0
    errors: int = 0
    target: str = ""
    met: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_samples(cls, name: str, how: str, seconds: list[float], **kw: Any) -> Figure:
        ms = [s * 1000 for s in seconds]
        return cls(name, how, percentile(ms, 50), percentile(ms, 99), n=len(ms), **kw)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def name_path(name: str) -> str:
    return quote(name, safe="@/")


def machine_info() -> dict[str, Any]:
    """`_common.machine_info()` plus the version of `wrk`, which drives the HTTP figures."""
    wrk = shutil.which("wrk")
    wrk_version = None
    if wrk:
        out = subprocess.run([wrk, "--version"], capture_output=True, text=True, check=False)
        wrk_version = (
            (out.stdout or out.stderr).splitlines()[0] if (out.stdout or out.stderr) else None
        )
    return {**common_machine_info(), "wrk": wrk_version}


# -- processes -------------------------------------------------------------------------------------


class Processes:
    """Subprocesses this benchmark started (each in its own session), stopped by process group."""

    def __init__(self, workdir: Path) -> None:
        self._workdir = workdir
        self._procs: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}

    def start(self, label: str, cmd: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
        log = self._workdir / f"{label}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                cmd,
                cwd=self._workdir,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self._procs[label] = (proc, log)
        return proc

    def log_tail(self, label: str, lines: int = 30) -> str:
        _, log = self._procs[label]
        with contextlib.suppress(OSError):
            return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def stop(self, label: str) -> None:
        entry = self._procs.pop(label, None)
        if entry is None:
            return
        proc, _ = entry
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)

    def stop_all(self) -> None:
        for label in list(self._procs):
            self.stop(label)


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout_s: float = 60.0) -> None:
    """Poll `url` until it answers (any status) or raise when the process dies or time runs out."""
    deadline = time.monotonic() + timeout_s
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"process exited with {proc.returncode} before {url} answered")
            with contextlib.suppress(httpx.HTTPError):
                client.get(url)
                return
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout_s:g} s")


def service_env(db_url: str, registry: str, *, cold: bool, log_level: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    env.update(
        {
            "PKGINTEL_DATABASE_URL": db_url,
            "PKGINTEL_UPSTREAM_NPM_URL": f"{registry}/npm",
            "PKGINTEL_UPSTREAM_NPM_DOWNLOADS_URL": f"{registry}/npm-downloads",
            "PKGINTEL_UPSTREAM_PYPI_URL": f"{registry}/pypi",
            "PKGINTEL_UPSTREAM_PYPISTATS_URL": f"{registry}/pypistats",
            "PKGINTEL_LOG_LEVEL": log_level,
            "PKGINTEL_BULK_HINT_THRESHOLD": "1000000",
            "PKGINTEL_WORKER_EMBEDDED": "false",  # measure the API alone, no background jobs
            # Requests are counted against the limits as in production, never refused.
            "PKGINTEL_RATE_LIMIT_ANONYMOUS": "1000000000/minute",
        }
    )
    if cold:
        env["PKGINTEL_CACHE_TTL_S"] = "0"
        env["PKGINTEL_CACHE_STALE_S"] = "0"
    # The one setting passed through: how long a cold report waits for its second round.
    if "PKGINTEL_REPORT_SIGNAL_WAIT_S" in os.environ:
        env["PKGINTEL_REPORT_SIGNAL_WAIT_S"] = os.environ["PKGINTEL_REPORT_SIGNAL_WAIT_S"]
    return env


def settings_for(db_url: str, registry: str, *, cold: bool) -> Any:
    from pkgintel.config import Settings

    kwargs: dict[str, Any] = {
        "database_url": db_url,
        "upstream_npm_url": f"{registry}/npm",
        "upstream_npm_downloads_url": f"{registry}/npm-downloads",
        "upstream_pypi_url": f"{registry}/pypi",
        "upstream_pypistats_url": f"{registry}/pypistats",
        "upstream_pypi_files_url": f"{registry}/pypi-files",
        "log_level": "warning",
        "bulk_hint_threshold": 1_000_000,
    }
    if cold:
        kwargs.update(cache_ttl_s=0, cache_stale_s=0)
    return Settings(_env_file=None, **kwargs)  # type: ignore[call-arg]


# -- name list ------------------------------------------------------------------------------------


def read_names(path: Path) -> list[tuple[str, int]]:
    """`(name, monthly downloads)` rows of the shared npm TSV (header skipped)."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        next(reader, None)
        rows = []
        for row in reader:
            if not row or not row[0]:
                continue
            try:
                downloads = int(row[2]) if len(row) > 2 and row[2] else 0
            except ValueError:
                downloads = 0
            rows.append((row[0], downloads))
    return rows


def subset_file(source: Path, limit: int, dest: Path) -> Path:
    """The `limit` most downloaded rows of `source`, with its header, gzip-compressed at `dest`."""
    with gzip.open(source, "rt", encoding="utf-8", newline="") as fh:
        header = fh.readline()
        lines = fh.readlines()

    def downloads(line: str) -> int:
        parts = line.split("\t")
        try:
            return int(parts[2]) if len(parts) > 2 and parts[2] else 0
        except ValueError:
            return 0

    lines.sort(key=downloads, reverse=True)
    with gzip.open(dest, "wt", encoding="utf-8", newline="") as out:
        out.write(header)
        out.writelines(lines[:limit])
    return dest


def absent_variants(rng: random.Random, bases: list[str], known: set[str], count: int) -> list[str]:
    """`count` names absent from `known`: typos (two letters swapped) and suffixed real names."""
    suffixes = ("-utils-pro", "-helperkit", "-lite2", "-extra-core", "js-plus")
    out: dict[str, None] = {}
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        base = rng.choice(bases)
        if "/" in base or len(base) < 4:
            continue
        if attempts % 2:
            i = rng.randrange(len(base) - 1)
            candidate = base[:i] + base[i + 1] + base[i] + base[i + 2 :]
        else:
            candidate = base + rng.choice(suffixes)
        if candidate.lower() not in known:
            out[candidate] = None
    return list(out)


@dataclass
class Workload:
    """Exists paths: a small rotation (answers get reused) and a long list of distinct names."""

    rotation: list[str]
    unique: list[str]
    absent: set[str]
    have_fixtures: bool

    def present(self, paths: list[str]) -> list[str]:
        return [p for p in paths if p not in self.absent]

    def absent_of(self, paths: list[str]) -> list[str]:
        return [p for p in paths if p in self.absent]

    def exists_ok(self, path: str, resp: httpx.Response) -> bool:
        """The answer is right: `exists` true for a listed name, false for an absent one."""
        return resp.json().get("exists") is (path not in self.absent)


def build_workload(
    rows: list[tuple[str, int]], args: argparse.Namespace, have_fixtures: bool
) -> Workload:
    """Real names from the loaded list (5 % absent variants mixed in), shuffled with a fixed seed."""
    if not rows:
        return Workload([], [], set(), have_fixtures)
    rng = random.Random(args.seed)
    names = [n for n, _ in rows]
    known = {n.lower() for n in names}
    share = 0.05
    n_rot_absent = round(args.names_sample * share)
    n_uni_absent = round(args.unique_names * share)
    wanted = args.names_sample - n_rot_absent + args.unique_names - n_uni_absent
    present = rng.sample(names, min(wanted, len(names)))
    split = args.names_sample - n_rot_absent
    absent = absent_variants(rng, present, known, n_rot_absent + n_uni_absent)
    rotation = present[:split] + absent[:n_rot_absent]
    unique = present[split:] + absent[n_rot_absent:]
    rng.shuffle(rotation)
    rng.shuffle(unique)

    def paths(items: list[str]) -> list[str]:
        return [EXISTS_PREFIX + name_path(n) for n in items]

    return Workload(paths(rotation), paths(unique), set(paths(absent)), have_fixtures)


# -- in-process measurements ----------------------------------------------------------------------

ACCEPT_ENCODING = "gzip"
"""Sent by every client here (wrk included), as agents' HTTP libraries do."""
EXISTS_PREFIX = "/api/exists/npm/"


Check = Callable[[str, httpx.Response], bool]


async def inproc_loop(
    client: httpx.AsyncClient,
    timer: ServerTimer,
    paths: list[str],
    count: int,
    check: Check | None = None,
) -> tuple[list[float], int]:
    """Server times of `count` GETs rotating over `paths` (at most LOOP_CAP_S), and the error count."""
    times: list[float] = []
    errors = 0
    deadline = time.monotonic() + LOOP_CAP_S
    for i in range(count if paths else 0):
        path = paths[i % len(paths)]
        resp = await client.get(path)
        if resp.status_code != 200 or (check is not None and not check(path, resp)):
            errors += 1
        if timer.last is not None:
            times.append(timer.last)
        if time.monotonic() > deadline:
            break
    return times, errors


@contextlib.asynccontextmanager
async def inproc_app(settings: Any) -> Any:
    """(runtime, timer, client): the app around a real runtime, called through ASGITransport."""
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        transport = httpx.ASGITransport(app=timer, client=("127.0.0.1", 50123))
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://pkgintel.bench",
            headers={"Accept-Encoding": ACCEPT_ENCODING},
            timeout=30.0,
        ) as client:
            yield runtime, timer, client


async def run_inprocess(
    args: argparse.Namespace,
    db_url: str,
    registry: str,
    work: Workload,
    profiles: Profiles | None,
    extra: dict[str, Any],
) -> list[Figure]:
    figures: list[Figure] = []
    how = "in-process server"
    extra["thread_hop_ms"] = await thread_hop_ms()
    settings = settings_for(db_url, registry, cold=False)
    async with inproc_app(settings) as (runtime, timer, client):
        await client.get(STATUS_PATH)
        if work.rotation:
            # One untimed pass: loads the suggestion pool and lets the service keep what it keeps.
            await inproc_loop(client, timer, work.rotation, len(work.rotation))
            times, errors = await inproc_loop(
                client, timer, work.rotation, args.inproc_n, work.exists_ok
            )
            figures.append(
                Figure.from_samples(
                    f"exists npm, {len(work.rotation):,}-name rotation",
                    how,
                    times,
                    errors=errors,
                    target=f"p50 <= {TARGETS['exists_server_p50_ms']:g} ms",
                    note="repeat asks; errors = wrong answers",
                )
            )
            first = work.present(work.unique)[: args.inproc_n]
            times, errors = await inproc_loop(client, timer, first, len(first), work.exists_ok)
            figures.append(
                Figure.from_samples(
                    "exists npm, first ask (present)",
                    how,
                    times,
                    errors=errors,
                    note="distinct names, none asked before",
                )
            )
            first = work.absent_of(work.unique)[: max(1, args.inproc_n // 4)]
            times, errors = await inproc_loop(client, timer, first, len(first), work.exists_ok)
            figures.append(
                Figure.from_samples(
                    "exists npm, first ask (absent)",
                    how,
                    times,
                    errors=errors,
                    note="distinct names; answer has did_you_mean",
                )
            )
            if profiles is not None:
                with profiles.run("exists, rotation (repeat asks)"):
                    await inproc_loop(client, timer, work.rotation, args.inproc_n)
                later = work.unique[3 * args.inproc_n : 4 * args.inproc_n]
                with profiles.run("exists, first asks (5 % absent)"):
                    await inproc_loop(client, timer, later, len(later))
                extra["exists_breakdown"] = await exists_breakdown(runtime, work, db_url, args)
        if work.have_fixtures:
            for path in WARM_PATHS:
                label = f"warm check {path.removeprefix('/api/check/')}"
                prime = await client.get(path)
                if prime.status_code != 200:
                    figures.append(Figure(label, how, note=f"priming got {prime.status_code}"))
                    continue
                times, errors = await inproc_loop(client, timer, [path], args.warm_n)
                encoding = prime.headers.get("content-encoding", "identity")
                figures.append(
                    Figure.from_samples(
                        label,
                        how,
                        times,
                        errors=errors,
                        target=f"p50 <= {TARGETS['warm_check_p50_ms']:g} ms",
                        note=f"body {len(prime.content):,} B ({encoding} on the wire)",
                    )
                )
                if profiles is not None:
                    with profiles.run(label):
                        await inproc_loop(client, timer, [path], args.warm_n)
        times, errors = await inproc_loop(client, timer, [STATUS_PATH], args.inproc_n)
        figures.append(
            Figure.from_samples(
                "status",
                how,
                times,
                errors=errors,
                target=f"p50 <= {TARGETS['status_p50_ms']:g} ms",
            )
        )
        if profiles is not None:
            with profiles.run("status"):
                await inproc_loop(client, timer, [STATUS_PATH], args.inproc_n)

    if work.have_fixtures:
        cold_settings = settings_for(db_url, registry, cold=True)
        async with inproc_app(cold_settings) as (_runtime, timer, client):

            async def get(path: str) -> tuple[float, httpx.Response]:
                resp = await client.get(path)
                return (timer.last or 0.0), resp

            for eco, name in (("npm", "lodash"), ("pypi", "requests")):
                first_s, _ = await get(f"/api/check/{eco}/{name}")
                extra[f"inproc_first_check_of_runtime_{eco}_ms"] = round(first_s * 1000, 2)
            figures.extend(await cold_rounds(args, how, get, cold_settings))
            if profiles is not None:
                with profiles.run("cold check (every package, 3 times)"):
                    for _ in range(3):
                        for eco, name in COLD_PACKAGES:
                            await client.get(f"/api/check/{eco}/{name_path(name)}")
    return figures


async def thread_hop_ms(count: int = 500) -> dict[str, Any]:
    """p50/p99 of one loop -> thread -> loop round trip (a no-op in the default executor): the unit
    cost every aiosqlite call and every sync FastAPI dependency pays, and the figure that moves most
    between runs on a shared virtual machine."""
    loop = asyncio.get_running_loop()
    hops = []
    for _ in range(count):
        started = time.perf_counter()
        await loop.run_in_executor(None, int)
        hops.append((time.perf_counter() - started) * 1000)
    return {
        "p50": round(percentile(hops, 50) or 0, 4),
        "p99": round(percentile(hops, 99) or 0, 4),
        "n": len(hops),
    }


async def exists_breakdown(
    runtime: Any, work: Workload, db_url: str, args: argparse.Namespace
) -> dict[str, Any]:
    """Where a first exists ask's time goes: each store query, raw sqlite3 as a floor, suggestions."""
    from pkgintel.domain.names.rules import normalise_name
    from pkgintel.domain.packages import Ecosystem

    eco = Ecosystem.NPM
    unseen = work.unique[5 * args.inproc_n :]
    present = [p.removeprefix(EXISTS_PREFIX) for p in work.present(unseen)][:500]
    absent = [p.removeprefix(EXISTS_PREFIX) for p in work.absent_of(unseen)][:50]
    store = runtime.names._store  # read-only use, to time the store queries alone
    out: dict[str, Any] = {}

    def summary(samples: list[float]) -> dict[str, Any]:
        return {
            "p50_ms": round(percentile(samples, 50) or 0, 4),
            "p99_ms": round(percentile(samples, 99) or 0, 4),
            "n": len(samples),
        }

    async def timed(label: str, names: list[str], fn: Callable[[str], Awaitable[Any]]) -> None:
        samples = []
        for n in names:
            started = time.perf_counter()
            await fn(n)
            samples.append((time.perf_counter() - started) * 1000)
        out[label] = summary(samples)

    await timed("SqlStore.get_name", present, lambda n: store.get_name(eco, normalise_name(eco, n)))
    await timed("SqlStore.get_index_state", present, lambda n: store.get_index_state(eco))
    await timed("NameService.suggest (absent)", absent, lambda n: runtime.names.suggest(eco, n))
    await timed(
        "NameService.exists (first ask, present)",
        present[:250],
        lambda n: runtime.names.exists(eco, n),
    )
    await timed(
        "NameService.exists (repeat ask, present)",
        present[:250],
        lambda n: runtime.names.exists(eco, n),
    )
    hop = await thread_hop_ms()
    out["one thread hop (run_in_executor no-op)"] = {
        "p50_ms": hop["p50"],
        "p99_ms": hop["p99"],
        "n": hop["n"],
    }
    conn = sqlite3.connect(db_url.split(":///", 1)[1])
    try:
        samples = []
        for n in present:
            started = time.perf_counter()
            conn.execute(
                "SELECT * FROM package_name WHERE ecosystem = ? AND name = ?",
                ("npm", normalise_name(eco, n)),
            ).fetchone()
            samples.append((time.perf_counter() - started) * 1000)
        out["raw sqlite3 lookup, same thread (floor)"] = summary(samples)
    finally:
        conn.close()
    return out


# -- cold check ------------------------------------------------------------------------------------


def upstream_urls_for(adapter: Any, name: str) -> tuple[str, str]:
    """The registry and downloads URLs one report of `name` calls."""
    registry = (
        adapter.packument_url(name)
        if hasattr(adapter, "packument_url")
        else adapter.project_url(name)
    )
    return registry, adapter.downloads_url(name)


async def slowest_upstream_s(client: httpx.AsyncClient, urls: tuple[str, str]) -> float:
    """The slower of the two upstream calls of one report, each timed alone (body read)."""
    worst = 0.0
    for url in urls:
        started = time.perf_counter()
        resp = await client.get(url)
        await resp.aread()
        worst = max(worst, time.perf_counter() - started)
    return worst


async def cold_rounds(
    args: argparse.Namespace,
    how: str,
    get: Callable[[str], Awaitable[tuple[float, httpx.Response]]],
    settings: Any,
) -> list[Figure]:
    """`args.cold_rounds` passes over COLD_PACKAGES; per package the median cold time and overhead."""
    from pkgintel.domain.packages import Ecosystem
    from pkgintel.runtime.adapters import build_adapters

    per_pkg: dict[str, dict[str, list[float]]] = {}
    errors = 0
    deadline = time.monotonic() + LOOP_CAP_S
    async with httpx.AsyncClient(timeout=30.0) as upstream:
        adapters = build_adapters(settings, upstream)
        for _ in range(args.cold_rounds):
            for eco, name in COLD_PACKAGES:
                slot = per_pkg.setdefault(f"{eco}/{name}", {"cold": [], "upstream": []})
                urls = upstream_urls_for(adapters[Ecosystem(eco)], name)
                slot["upstream"].append(await slowest_upstream_s(upstream, urls))
                elapsed, resp = await get(f"/api/check/{eco}/{name_path(name)}")
                if resp.status_code != 200 or resp.json().get("_cache") != "miss":
                    errors += 1
                    continue
                slot["cold"].append(elapsed)
            if time.monotonic() > deadline:
                break
    rows: dict[str, dict[str, float]] = {}
    colds: list[float] = []
    for key, slot in per_pkg.items():
        if not slot["cold"]:
            continue
        cold_ms = percentile([c * 1000 for c in slot["cold"]], 50) or 0.0
        up_ms = percentile([u * 1000 for u in slot["upstream"]], 50) or 0.0
        rows[key] = {
            "cold_p50_ms": round(cold_ms, 2),
            "slowest_upstream_p50_ms": round(up_ms, 2),
            "cold_minus_upstream_ms": round(cold_ms - up_ms, 2),
            "cold_minus_latency_ms": round(cold_ms - args.latency_ms, 2),
        }
        colds.extend(c * 1000 for c in slot["cold"])
    by_upstream = [r["cold_minus_upstream_ms"] for r in rows.values()]
    by_latency = [r["cold_minus_latency_ms"] for r in rows.values()]
    worst = max(rows, key=lambda k: rows[k]["cold_minus_upstream_ms"]) if rows else "-"
    worst_lat = max(rows, key=lambda k: rows[k]["cold_minus_latency_ms"]) if rows else "-"
    limit = TARGETS["cold_overhead_ms"]
    return [
        Figure(
            "cold check (total)",
            how,
            percentile(colds, 50),
            percentile(colds, 99),
            n=len(colds),
            errors=errors,
            note=f"{len(rows)} packages x {args.cold_rounds}; errors = not 200 or not a miss",
            extra={"per_package": rows},
        ),
        Figure(
            "cold - slowest upstream",
            how,
            percentile(by_upstream, 50),
            max(by_upstream, default=None),
            n=len(by_upstream),
            target=f"<= {limit:g} ms (worst pkg)",
            met=max(by_upstream) <= limit if by_upstream else None,
            note=f"median of packages; p99 col = worst ({worst})",
        ),
        Figure(
            "cold - latency",
            how,
            percentile(by_latency, 50),
            max(by_latency, default=None),
            n=len(by_latency),
            note=f"median of packages; p99 col = worst ({worst_lat})",
        ),
    ]


# -- over HTTP ---------------------------------------------------------------------------------------


def http_sequential(
    base: str, paths: list[str], count: int, check: Check | None = None
) -> tuple[list[float], int]:
    """Client-side times of `count` GETs on one keep-alive connection (at most LOOP_CAP_S)."""
    times: list[float] = []
    errors = 0
    deadline = time.monotonic() + LOOP_CAP_S
    with httpx.Client(
        base_url=base, headers={"Accept-Encoding": ACCEPT_ENCODING}, timeout=30.0
    ) as client:
        client.get(STATUS_PATH)
        for i in range(count if paths else 0):
            path = paths[i % len(paths)]
            started = time.perf_counter()
            resp = client.get(path)
            times.append(time.perf_counter() - started)
            if resp.status_code != 200 or (check is not None and not check(path, resp)):
                errors += 1
            if time.monotonic() > deadline:
                break
    return times, errors


_WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}
LUA_ROTATE = """
local paths = {%s}
local counter = 0
local threads = 0
setup = function(thread)
  thread:set("offset", threads * math.floor(#paths / 2))
  threads = threads + 1
end
init = function(args)
  counter = offset or 0
end
request = function()
  counter = counter + 1
  return wrk.format("GET", paths[(counter %% #paths) + 1])
end
"""


def run_wrk(
    args: argparse.Namespace,
    label: str,
    base: str,
    paths: list[str],
    workdir: Path,
    script_text: str | None = None,
) -> Figure:
    """`wrk -t2 -c32 -d<duration>s --latency`, rotating over `paths` with a Lua script (or running
    `script_text`, a whole wrk Lua script, when given; `paths[0]` is then only wrk's URL)."""
    script = workdir / f"wrk-{len(list(workdir.glob('wrk-*.lua')))}.lua"
    script.write_text(script_text or LUA_ROTATE % ", ".join(json.dumps(p) for p in paths))
    cmd = [
        "wrk",
        f"-t{args.wrk_threads}",
        f"-c{args.wrk_connections}",
        f"-d{args.duration}s",
        "--latency",
        "-H",
        f"Accept-Encoding: {ACCEPT_ENCODING}",
        "-s",
        str(script),
        base + paths[0],
    ]
    how = f"HTTP wrk -t{args.wrk_threads} -c{args.wrk_connections}, {args.workers} worker(s)"
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=args.duration + 60, check=False
    )
    out = done.stdout
    fig = Figure(label, how, extra={"wrk_output": out})
    pct = {
        m.group(1): float(m.group(2)) * _WRK_UNITS[m.group(3)]
        for m in re.finditer(r"^\s+(\d+)%\s+([\d.]+)(us|ms|s)\s*$", out, re.MULTILINE)
    }
    fig.p50_ms, fig.p99_ms = pct.get("50"), pct.get("99")
    if m := re.search(r"Requests/sec:\s+([\d.]+)", out):
        fig.rps = float(m.group(1))
    if m := re.search(r"(\d+) requests in", out):
        fig.n = int(m.group(1))
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    fig.errors = int(bad.group(1)) if bad else 0
    if sock:
        fig.extra["socket_errors"] = dict(
            zip(("connect", "read", "write", "timeout"), map(int, sock.groups()), strict=True)
        )
        fig.note = "socket errors: " + ", ".join(
            f"{k} {v}" for k, v in fig.extra["socket_errors"].items() if v
        )
    if done.returncode != 0:
        fig.note = f"wrk exited {done.returncode}: {done.stderr.strip()[:200]}"
    return fig


def run_http(
    args: argparse.Namespace, base: str, work: Workload, workdir: Path, use_wrk: bool
) -> list[Figure]:
    figures: list[Figure] = []
    seq = "HTTP sequential, 1 connection"
    target_rps = f">= {TARGETS['exists_http_rps']:g} req/s"
    with httpx.Client(base_url=base, timeout=30.0) as client:
        warmup = work.absent_of(work.unique)[-4 * args.workers :] or [STATUS_PATH]
        for path in warmup:  # every worker loads its suggestion pool before anything is timed
            client.get(path, headers={"Connection": "close"})
    for path in WARM_PATHS if work.have_fixtures else ():
        for _ in range(4 * args.workers):  # fresh connections so every worker gets primed
            with httpx.Client(base_url=base, timeout=30.0) as client:
                client.get(path)
    if work.rotation:
        label = f"exists npm, {len(work.rotation):,}-name rotation"
        http_sequential(base, work.rotation, len(work.rotation))  # the untimed first pass
        times, errors = http_sequential(base, work.rotation, args.http_n, work.exists_ok)
        figures.append(Figure.from_samples(label, seq, times, errors=errors))
        tail = work.unique[-args.http_n :]
        times, errors = http_sequential(base, tail, len(tail), work.exists_ok)
        figures.append(
            Figure.from_samples("exists npm, first ask (5 % absent)", seq, times, errors=errors)
        )
        if use_wrk:
            fig = run_wrk(args, label, base, work.rotation, workdir)
            fig.target = target_rps
            fig.met = fig.rps is not None and fig.rps >= TARGETS["exists_http_rps"]
            figures.append(fig)
            fig = run_wrk(
                args,
                "exists npm, first ask (5 % absent)",
                base,
                work.unique[: -args.http_n],
                workdir,
            )
            fig.note = (fig.note + "; " if fig.note else "") + (
                f"rotation of {len(work.unique) - args.http_n:,} distinct names"
            )
            figures.append(fig)
    for path in WARM_PATHS if work.have_fixtures else ():
        label = f"warm check {path.removeprefix('/api/check/')}"
        times, errors = http_sequential(base, [path], args.http_n)
        figures.append(Figure.from_samples(label, seq, times, errors=errors))
        if use_wrk:
            figures.append(run_wrk(args, label, base, [path], workdir))
    times, errors = http_sequential(base, [STATUS_PATH], args.http_n)
    figures.append(Figure.from_samples("status", seq, times, errors=errors))
    if use_wrk:
        figures.append(run_wrk(args, "status", base, [STATUS_PATH], workdir))
    return figures


async def run_http_cold(
    args: argparse.Namespace, base: str, settings: Any, extra: dict[str, Any]
) -> list[Figure]:
    async with httpx.AsyncClient(
        base_url=base, headers={"Accept-Encoding": ACCEPT_ENCODING}, timeout=30.0
    ) as client:

        async def get(path: str) -> tuple[float, httpx.Response]:
            started = time.perf_counter()
            resp = await client.get(path)
            return time.perf_counter() - started, resp

        # Process warm-up: the first check of each ecosystem also loads its typosquat pool.
        for eco, name in (("npm", "lodash"), ("pypi", "requests")):
            elapsed, _ = await get(f"/api/check/{eco}/{name}")
            extra[f"http_first_check_of_process_{eco}_ms"] = round(elapsed * 1000, 2)
        return await cold_rounds(args, "HTTP sequential, cold service", get, settings)


# -- output ----------------------------------------------------------------------------------------


def judge(fig: Figure) -> None:
    """Fill `met` for the p50 targets (throughput and cold set theirs where they are measured)."""
    if fig.met is not None or fig.p50_ms is None or not fig.target.startswith("p50"):
        return
    limit = float(fig.target.split("<=")[1].split()[0])
    fig.met = fig.p50_ms <= limit


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def render_table(figures: list[Figure]) -> str:
    head = ("measurement", "how", "p50 ms", "p99 ms", "req/s", "n", "err", "target", "met")
    rows = [
        (
            f.name,
            f.how,
            fmt(f.p50_ms),
            fmt(f.p99_ms),
            fmt(f.rps, 0),
            str(f.n),
            str(f.errors),
            f.target,
            {True: "yes", False: "NO", None: ""}[f.met],
        )
        for f in figures
    ]
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(len(head))]
    line = "  ".join
    out = [line(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    out.append(line("-" * w for w in widths))
    out += [line(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join(out)


# -- orchestration ---------------------------------------------------------------------------------


def prepare_database(
    args: argparse.Namespace, workdir: Path, db_url: str
) -> tuple[list[tuple[str, int]], str]:
    """Load the npm name list (or its most downloaded subset); [] when the list is absent."""
    env = service_env(db_url, "http://127.0.0.1:9", cold=False, log_level="warning")
    source = args.shared / "names" / "npm.tsv.gz"
    if not source.exists():
        print(f"SKIP exists: {source} not found (no substitute names are made up)")
        subprocess.run([*pkgintel_cmd(), "migrate"], cwd=workdir, env=env, check=True)
        return [], "none"
    if args.names_limit:
        source = subset_file(source, args.names_limit, workdir / "npm-subset.tsv.gz")
    started = time.monotonic()
    subprocess.run(
        [*pkgintel_cmd(), "ingest", "names", "--ecosystem", "npm", "--from", str(source)],
        cwd=workdir,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rows = read_names(source)
    print(f"loaded {len(rows):,} npm names in {time.monotonic() - started:.1f} s")
    return rows, str(source)


def start_service(
    procs: Processes, label: str, port: int, env: dict[str, str], workers: int
) -> str:
    base = f"http://127.0.0.1:{port}"
    cmd = [*pkgintel_cmd(), "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = procs.start(label, [*cmd, "--workers", str(workers)], env)
    try:
        wait_http(base + STATUS_PATH, proc)
    except RuntimeError:
        print(procs.log_tail(label))
        raise
    return base


def run(args: argparse.Namespace, workdir: Path, procs: Processes) -> dict[str, Any]:
    import pkgintel

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    db_url = f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
    rows, names_source = prepare_database(args, workdir, db_url)
    have_fixtures = (args.shared / "registry-fixtures" / "npm" / "INDEX.json").exists()
    if not have_fixtures:
        print("SKIP check: no registry fixtures under --shared; warm and cold checks not measured")
    work = build_workload(rows, args, have_fixtures)

    reg_port = free_port()
    registry = f"http://127.0.0.1:{reg_port}"
    reg_cmd = [sys.executable, str(REPO / "tests" / "fake_registry.py"), "--port", str(reg_port)]
    reg_cmd += ["--latency-ms", str(args.latency_ms), "--shared", str(args.shared)]
    reg = procs.start("registry", reg_cmd, service_env(db_url, "", cold=False, log_level="warning"))
    wait_http(f"{registry}/npm/-/none", reg)

    figures: list[Figure] = []
    extra: dict[str, Any] = {}
    profiles = Profiles(args.profile_top) if args.profile else None
    print(f"in-process measurements ({args.loop} loop) ...")
    figures += run_loop(args, run_inprocess(args, db_url, registry, work, profiles, extra))

    use_wrk = not args.skip_wrk and shutil.which("wrk") is not None
    if not args.skip_wrk and not use_wrk:
        print("SKIP wrk: not installed (apt-get install wrk); HTTP throughput not measured")
    print(f"HTTP measurements ({args.workers} worker(s)) ...")
    env = service_env(db_url, registry, cold=False, log_level=args.log_level)
    base = start_service(procs, "service", free_port(), env, args.workers)
    figures += run_http(args, base, work, workdir, use_wrk)
    procs.stop("service")

    if have_fixtures:
        print("cold checks over HTTP ...")
        env = service_env(db_url, registry, cold=True, log_level=args.log_level)
        base = start_service(procs, "cold-service", free_port(), env, 1)
        cold_settings = settings_for(db_url, registry, cold=True)
        figures += asyncio.run(run_http_cold(args, base, cold_settings, extra))
        procs.stop("cold-service")
    procs.stop("registry")

    for fig in figures:
        judge(fig)
    table = render_table(figures)
    print()
    print(table)
    result = {
        "timestamp": stamp,
        "label": args.label,
        "machine": machine_info(),
        "config": {
            "latency_ms": args.latency_ms,
            "duration_s": args.duration,
            "workers": args.workers,
            "inprocess_loop": args.loop,
            "wrk": use_wrk,
            "wrk_threads": args.wrk_threads,
            "wrk_connections": args.wrk_connections,
            "accept_encoding": ACCEPT_ENCODING,
            "log_level": args.log_level,
            "names_source": names_source,
            "names_loaded": len(rows),
            "exists_rotation": len(work.rotation),
            "exists_unique": len(work.unique),
            "exists_absent": len(work.absent),
            "inproc_n": args.inproc_n,
            "warm_n": args.warm_n,
            "http_n": args.http_n,
            "cold_rounds": args.cold_rounds,
            "pkgintel_source": str(Path(pkgintel.__file__).parent),
        },
        "targets": TARGETS,
        "figures": [f.__dict__ for f in figures],
        "extra": extra,
        "table": table,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    suffix = f"-{re.sub(r'[^A-Za-z0-9_.-]+', '-', args.label)}" if args.label else ""
    out = RESULTS / f"{stamp}{suffix}.json"
    out.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {out.relative_to(REPO)}")
    if extra.get("exists_breakdown"):
        print("\nexists breakdown (ms):")
        for label, stats in extra["exists_breakdown"].items():
            print(f"  {label:45s} p50 {stats['p50_ms']:8.4f}  p99 {stats['p99_ms']:8.4f}")
    if profiles is not None and profiles.results:
        prof_out = RESULTS / f"{stamp}{suffix}-profile.txt"
        prof_out.write_text(
            "".join(
                f"==== {label} ({profiles.tool}) ====\n{text}\n"
                for label, text in profiles.results.items()
            )
        )
        print(f"wrote {prof_out.relative_to(REPO)}")
    return result


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=50.0, help="replay registry latency")
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers of the service")
    parser.add_argument("--skip-wrk", action="store_true", help="no wrk throughput runs")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="shared data folder")
    parser.add_argument(
        "--names-limit", type=int, default=0, help="load only the N most downloaded names (0 = all)"
    )
    parser.add_argument("--names-sample", type=int, default=1000, help="exists rotation size")
    parser.add_argument(
        "--unique-names", type=int, default=60000, help="distinct names for first-ask runs"
    )
    parser.add_argument("--inproc-n", type=int, default=2000, help="in-process calls per loop")
    parser.add_argument("--warm-n", type=int, default=500, help="in-process warm check calls")
    parser.add_argument("--http-n", type=int, default=500, help="sequential HTTP calls per path")
    parser.add_argument("--cold-rounds", type=int, default=3, help="passes over cold packages")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--wrk-connections", type=int, default=32)
    parser.add_argument(
        "--loop", choices=("uvloop", "asyncio"), default=default_loop, help="in-process loop"
    )
    parser.add_argument(
        "--log-level", default="warning", help="service log level (info = access log)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--label", default="", help="free text kept in the JSON and its file name")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also profile the in-process loops (pyinstrument or cProfile)",
    )
    parser.add_argument("--profile-top", type=int, default=35, help="cProfile rows per table")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def on_term(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    # Also when started in the background, where SIGINT arrives ignored: Ctrl-C / kill -INT stop it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-"))
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
