"""
Audit benchmark (issue 4): `POST /api/scan` and `POST /api/check_bulk`, in-process through the app.

What is measured, and how:

* **setup (timed, not judged)**: a fresh SQLite file database in a temporary folder, migrated, then
  every OSV export under the shared `osv/`, `osv-converted/` and `osv-malicious/` folders in the
  order `pkgintel ingest all --osv-from <folder> ...` uses (feed = folder name), in this process with
  `AdvisoryIngestor` + `SqlAdvisoryStore` + `sources.osv_export.iter_records`; the shared KEV and EPSS
  files (`--no-enrich` skips them); then the PyPI and npm name lists with
  `pkgintel ingest names --ecosystem ... --from <shared>/names/<eco>.tsv.gz` in a subprocess.
* **app**: `create_app(settings, runtime=...)` around `build_runtime(settings)`, called through
  `httpx.ASGITransport` on the loop uvicorn uses (uvloop when installed). `osv_api_fallback` is off
  and every upstream URL points at a closed port: both endpoints are database-only. The client sends
  `Accept-Encoding: gzip`. Three times per request: **server** (a pure ASGI wrapper, from entering the
  app to the last body chunk: body read, validation, parsing, audit, JSON, compression), the
  handler's own `_response_ms` (integer ms; it stops before serialisation and compression) and
  **wall** (the client's call, ASGITransport included).
* **scan**: the largest real lockfiles of the shared `lockfiles/` folder (the `--top` largest by
  package count, plus the largest of every other ecosystem), sent as `{"lockfile", "filename"}` like
  a client would. Per file: the **cold** run (the first scan of that file, with the advisory service's
  caches emptied just before it, so every package is a first ask), one untimed warm-up, then
  `--runs` warm runs (p50 / p99); `--uncached-runs` runs with the caches emptied before each
  (p50); and one CycloneDX and one SPDX run (warm). The first request of the process (a one-package
  scan) is reported apart.
* **check_bulk**: 100 (ecosystem, package) pairs, npm and PyPI, drawn with a fixed seed from the
  loaded data: popular names (top of the name index by rank / downloads), standard-library names
  (`knowledge/stdlib`, no `_private` modules), names with a malicious report (`osv-malicious`) and
  unknown names (typos and suffixed variants of popular names, checked absent from the index; no
  other names are made up). The same 100 pairs `--bulk-runs` times after 3 untimed runs, and
  `--bulk-runs` distinct sets of 100 (each pair asked once; stdlib names repeat).
* **breakdown**: for the largest lockfile and for the slowest per package (warm, and caches emptied):
  body validation, `parse_lockfile`, `AuditService.audit` warm and uncached step by step (KEV
  catalog loads counted; once more with the catalog loaded beforehand), JSON, gzip, `to_sbom` per
  format with cProfile shares of the SBOM libraries, and the request again after `gc.freeze()` (a
  what-if; full collections are counted with `gc.callbacks` here and in the warm runs). For
  `check_bulk`: `BulkCheckService.check` part by part. When a target is missed (or with
  `--profile`), the loops run once more under a profiler (pyinstrument when importable, else
  cProfile) and the profile goes to `bench/results/<timestamp>-audit-profile.txt`.

Nothing is asserted. The table is printed and written as JSON to `bench/results/<timestamp>-audit.json`;
the temporary database is removed on exit (`--keep-db` keeps it).

Run: `.venv/bin/python bench/bench_audit.py [--shared ../shared/data] [--loop asyncio] [--profile]`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import gzip
import json
import math
import os
import pstats
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
from _common import (
    REPO,
    Profiles,
    Row,
    ServerTimer,
    machine_info,
    percentile,
    pkgintel_cmd,
    render_table,
    run_loop,
)

from pkgintel.config import Settings
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.stdlib import stdlib_list
from pkgintel.lockfiles import parse_lockfile
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.audit.scan import to_sbom
from pkgintel.sources.osv_export import export_location, is_missing_locally, iter_records
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import create_engine

RESULTS = REPO / "bench" / "results"
DEFAULT_SHARED = REPO.parent / "shared" / "data"
OSV_FOLDERS = ("osv", "osv-converted", "osv-malicious")
NAME_LISTS = (Ecosystem.PYPI, Ecosystem.NPM)
BULK_ECOSYSTEMS = (Ecosystem.NPM, Ecosystem.PYPI)
BULK_MIX = {"popular": 40, "stdlib": 14, "malicious": 26, "unknown": 20}
"""Pairs per kind in one bulk request (half npm, half PyPI); sums to 100."""
ACCEPT_ENCODING = "gzip"
CLOSED_PORT_URL = "http://127.0.0.1:9"
"""Every upstream URL of the service: nothing here may reach a registry."""

TARGETS = {"scan_1000_server_ms": 300.0, "bulk_p50_ms": 15.0}


# -- small helpers ---------------------------------------------------------------------------------


@dataclass
class Sample:
    """One request: server span (ASGI), the handler's `_response_ms`, client wall time (ms)."""

    server_ms: float
    response_ms: float | None
    wall_ms: float


def summarise(samples: list[Sample]) -> dict[str, float | None]:
    server = [s.server_ms for s in samples]
    wall = [s.wall_ms for s in samples]
    handler = [s.response_ms for s in samples if s.response_ms is not None]
    return {
        "n": len(samples),
        "server_p50_ms": percentile(server, 50),
        "server_p99_ms": percentile(server, 99),
        "response_ms_p50": percentile(handler, 50),
        "wall_p50_ms": percentile(wall, 50),
        "wall_p99_ms": percentile(wall, 99),
    }


class GcWatch:
    """Full (generation 2) garbage collections while a block runs: count and pause times."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._started = 0.0

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.pauses.append((time.perf_counter() - self._started) * 1000)

    @contextlib.contextmanager
    def watch(self) -> Iterator[GcWatch]:
        gc.callbacks.append(self._callback)
        try:
            yield self
        finally:
            gc.callbacks.remove(self._callback)

    def note(self) -> str:
        if not self.pauses:
            return "; no full GC"
        return f"; {len(self.pauses)} full GCs, {max(self.pauses):.0f} ms max"

    def as_dict(self) -> dict[str, Any]:
        return {"count": len(self.pauses), "pauses_ms": [round(p, 1) for p in self.pauses]}


def fmt_ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


# -- setup -----------------------------------------------------------------------------------------


async def ingest_advisories(db_url: str, shared: Path, enrich: bool) -> list[Row]:
    """Migrate, then every OSV export under the shared folders (as `ingest all` orders them)."""
    rows: list[Row] = []
    engine = create_engine(db_url)
    try:
        await upgrade(engine)
        ingestor = AdvisoryIngestor(SqlAdvisoryStore(engine), clock=lambda: datetime.now(UTC))
        started = time.perf_counter()
        total = 0
        for folder in OSV_FOLDERS:
            location = str(shared / folder)
            for eco in Settings().osv_ecosystems:
                where = export_location(location, eco)
                if is_missing_locally(where):
                    continue
                summary = await ingestor.ingest_osv(
                    feed=folder,
                    osv_ecosystem=eco,
                    location=where,
                    entries=iter_records(Path(where)),
                )
                total += summary.total
        rows.append(
            Row(
                f"setup: OSV ingest ({', '.join(OSV_FOLDERS)}), {total:,} records",
                f"{time.perf_counter() - started:.1f} s",
            )
        )
        if enrich:
            kev = shared / "kev" / "known_exploited_vulnerabilities.json"
            epss = sorted((shared / "epss").glob("epss_scores-*.csv.gz"))
            started = time.perf_counter()
            if kev.is_file():
                await ingestor.ingest_kev(location=str(kev), data=kev.read_bytes())
            if epss:
                with epss[-1].open("rb") as fh:
                    await ingestor.ingest_epss(location=str(epss[-1]), stream=fh)
            rows.append(Row("setup: KEV + EPSS ingest", f"{time.perf_counter() - started:.1f} s"))
    finally:
        await engine.dispose()
    return rows


def ingest_names(db_url: str, shared: Path, workdir: Path) -> list[Row]:
    """`pkgintel ingest names` for each shared list; a missing list is reported, not replaced."""
    rows: list[Row] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith("PKGINTEL_")}
    env.update(PKGINTEL_DATABASE_URL=db_url, PKGINTEL_LOG_LEVEL="warning")
    for eco in NAME_LISTS:
        source = shared / "names" / f"{eco.value}.tsv.gz"
        if not source.is_file():
            rows.append(Row(f"setup: {eco.value} names", f"SKIPPED: {source} not found"))
            continue
        started = time.perf_counter()
        done = subprocess.run(
            [*pkgintel_cmd(), "ingest", "names", "--ecosystem", eco.value, "--from", str(source)],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "loaded"
        rows.append(
            Row(f"setup: {line.split(' from ')[0]}", f"{time.perf_counter() - started:.1f} s")
        )
    return rows


# -- workload --------------------------------------------------------------------------------------


@dataclass
class Lockfile:
    path: Path
    kind: str
    ecosystem: str
    packages: int
    text: str


def pick_lockfiles(shared: Path, top: int) -> list[Lockfile]:
    """The `top` largest lockfiles by package count, plus the largest of each other ecosystem."""
    folder = shared / "lockfiles"
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    found: list[Lockfile] = []
    for entry in manifest:
        path = folder / entry["file"]
        text = path.read_text(encoding="utf-8")
        parsed = parse_lockfile(text, filename=path.name)
        found.append(
            Lockfile(path, parsed.kind, parsed.ecosystem.value, len(parsed.packages), text)
        )
    found.sort(key=lambda lf: lf.packages, reverse=True)
    chosen = found[:top]
    for lf in found:
        if lf.ecosystem not in {c.ecosystem for c in chosen}:
            chosen.append(lf)
    return chosen


def db_query(db: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute(sql, params).fetchall()


def unknown_variants(
    rng: random.Random, bases: list[str], known: set[str], count: int
) -> list[str]:
    """`count` names absent from `known`: typos (two letters swapped) and suffixed real names."""
    suffixes = ("-utils-pro", "-helperkit", "-lite2", "-extra-core", "-plus-kit")
    out: dict[str, None] = {}
    attempts = 0
    while len(out) < count and attempts < count * 50:
        attempts += 1
        base = rng.choice(bases)
        if "/" in base or "@" in base or len(base) < 5:
            continue
        if attempts % 2:
            i = rng.randrange(len(base) - 1)
            candidate = base[:i] + base[i + 1] + base[i] + base[i + 2 :]
        else:
            candidate = base + rng.choice(suffixes)
        if candidate.lower() not in known and candidate not in out:
            out[candidate] = None
    return list(out)


@dataclass
class BulkPools:
    """Per ecosystem and kind, the names to draw from (shuffled)."""

    names: dict[tuple[Ecosystem, str], list[str]]
    turns: Counter[tuple[Ecosystem, str]] = field(default_factory=Counter)

    def take(self, eco: Ecosystem, kind: str, n: int, *, reuse: bool = False) -> list[str]:
        """`n` names not taken before; with `reuse`, the next `n` of a rotation over the pool."""
        pool = self.names[(eco, kind)]
        if reuse:
            start = self.turns[(eco, kind)]
            self.turns[(eco, kind)] += n
            return [pool[(start + i) % len(pool)] for i in range(n)]
        taken, self.names[(eco, kind)] = pool[:n], pool[n:]
        return taken


def valid(eco: Ecosystem, name: str) -> bool:
    """Whether the API accepts `name` (npm's `path/win32`-style built-ins are not package names)."""
    try:
        validate_name(eco, name)
    except InvalidInput:
        return False
    return True


def build_bulk_pools(db: Path, rng: random.Random, sets: int) -> BulkPools:
    per_eco = {kind: math.ceil(n / len(BULK_ECOSYSTEMS)) for kind, n in BULK_MIX.items()}
    need = {kind: n * (sets + 1) for kind, n in per_eco.items()}
    names: dict[tuple[Ecosystem, str], list[str]] = {}
    for eco in BULK_ECOSYSTEMS:
        popular = [
            r[0]
            for r in db_query(
                db,
                "SELECT display_name FROM package_name WHERE ecosystem = ? "
                "ORDER BY popularity_rank IS NULL, popularity_rank, monthly_downloads DESC LIMIT ?",
                (eco.value, max(need["popular"], 15000)),
            )
        ]
        malicious = sorted(
            {
                r[0]
                for r in db_query(
                    db,
                    "SELECT DISTINCT p.name FROM advisory_package p JOIN advisory_record r "
                    "ON r.feed = p.feed AND r.osv_ecosystem = p.osv_ecosystem AND r.id = p.advisory_id "
                    "WHERE p.ecosystem = ? AND r.is_malicious AND NOT r.withdrawn",
                    (eco.value,),
                )
            }
        )
        listing = stdlib_list(eco)
        stdlib = sorted(
            n for n in (listing.names if listing else ()) if not n.startswith("_") and valid(eco, n)
        )
        known = {
            r[0]
            for r in db_query(db, "SELECT name FROM package_name WHERE ecosystem = ?", (eco.value,))
        }
        unknown = unknown_variants(
            rng,
            popular,
            known | {normalise_name(eco, n) for n in known},
            need["unknown"] * 13 // 10,
        )
        unknown = [u for u in unknown if normalise_name(eco, u) not in known]
        malicious = [n for n in malicious if valid(eco, n)]
        popular = [n for n in popular if valid(eco, n)]
        unknown = [n for n in unknown if valid(eco, n)]
        rng.shuffle(malicious)
        top = popular[: need["popular"]]
        rng.shuffle(top)
        rng.shuffle(stdlib)
        rng.shuffle(unknown)
        names[(eco, "popular")] = top
        names[(eco, "malicious")] = malicious
        names[(eco, "stdlib")] = stdlib
        names[(eco, "unknown")] = unknown
    return BulkPools(names)


def bulk_items(pools: BulkPools, rng: random.Random) -> list[dict[str, str]]:
    """One request's 100 pairs, in a shuffled order."""
    items: list[dict[str, str]] = []
    for kind, count in BULK_MIX.items():
        for i, eco in enumerate(BULK_ECOSYSTEMS):
            n = count // len(BULK_ECOSYSTEMS) + (1 if i < count % len(BULK_ECOSYSTEMS) else 0)
            for name in pools.take(eco, kind, n, reuse=kind == "stdlib"):
                items.append({"ecosystem": eco.value, "package": name})
    rng.shuffle(items)
    return items


# -- in-process app --------------------------------------------------------------------------------


def service_settings(db_url: str) -> Settings:
    closed = {
        f"upstream_{k}_url": CLOSED_PORT_URL
        for k in (
            "npm",
            "npm_downloads",
            "pypi",
            "pypistats",
            "osv_export",
            "osv_api",
            "kev",
            "epss",
        )
    }
    return Settings(
        database_url=db_url,
        redis_url=None,
        osv_api_fallback=False,
        migrate_on_start=False,
        log_level="warning",
        **closed,
    )


@contextlib.asynccontextmanager
async def inproc_app(settings: Settings) -> Any:
    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings) as runtime:
        timer = ServerTimer(create_app(settings, runtime=runtime))
        transport = httpx.ASGITransport(app=timer, client=("127.0.0.1", 50123))
        async with httpx.AsyncClient(
            transport=transport,
            base_url="http://pkgintel.bench",
            headers={"Accept-Encoding": ACCEPT_ENCODING},
            timeout=120.0,
        ) as client:
            yield runtime, timer, client


class Caller:
    """POSTs a prepared JSON body and returns (Sample, parsed response)."""

    def __init__(self, client: httpx.AsyncClient, timer: ServerTimer) -> None:
        self.client = client
        self.timer = timer
        self.errors: list[str] = []

    async def post(
        self, path: str, body: bytes, headers: dict[str, str] | None = None
    ) -> tuple[Sample, Any]:
        started = time.perf_counter()
        resp = await self.client.post(
            path, content=body, headers={"Content-Type": "application/json", **(headers or {})}
        )
        wall = (time.perf_counter() - started) * 1000
        data = resp.json() if resp.content else None
        if resp.status_code != 200:
            self.errors.append(f"{path}: HTTP {resp.status_code} {resp.text[:200]}")
        server = (self.timer.last or 0.0) * 1000
        handler = data.get("_response_ms") if isinstance(data, dict) else None
        return Sample(server, handler, wall), data


async def timed_ms(
    call: Callable[[], Awaitable[Any]] | Callable[[], Any], n: int
) -> tuple[float, Any]:
    """p50 ms of `n` calls of `call` (awaited when it returns an awaitable), and the last result."""
    times: list[float] = []
    result: Any = None
    for _ in range(n):
        started = time.perf_counter()
        result = call()
        if asyncio.iscoroutine(result):
            result = await result
        times.append((time.perf_counter() - started) * 1000)
    return percentile(times, 50) or 0.0, result


# -- scan ------------------------------------------------------------------------------------------


def scan_body(lf: Lockfile, fmt: str = "native") -> bytes:
    return orjson.dumps({"lockfile": lf.text, "filename": lf.path.name, "format": fmt})


async def measure_scans(
    args: argparse.Namespace,
    runtime: Any,
    caller: Caller,
    lockfiles: list[Lockfile],
    rows: list[Row],
    extra: dict[str, Any],
) -> bool:
    """Rows for every lockfile; returns whether every judged figure met its target."""
    met_all = True
    limit = TARGETS["scan_1000_server_ms"]
    first_body = orjson.dumps({"ecosystem": "npm", "packages": {"lodash": "4.17.20"}})
    sample, _ = await caller.post("/api/scan", first_body)
    rows.append(
        Row(
            "scan: first request of the process (1 package, npm)",
            f"server {sample.server_ms:.1f} ms",
        )
    )
    per_file: dict[str, Any] = {}
    for lf in lockfiles:
        body = scan_body(lf)
        label = f"{lf.path.name} ({lf.kind}, {lf.ecosystem}, {lf.packages:,} pkgs, {len(lf.text) / 1024:,.0f} KiB)"
        runtime.advisories.invalidate()
        cold, data = await caller.post("/api/scan", body)
        summary = data.get("summary", {}) if isinstance(data, dict) else {}
        if summary.get("packages") != lf.packages:
            caller.errors.append(
                f"{lf.path.name}: {summary.get('packages')} packages, expected {lf.packages}"
            )
        await caller.post("/api/scan", body)  # warm-up
        with GcWatch().watch() as gc_warm:
            warm = [(await caller.post("/api/scan", body))[0] for _ in range(args.runs)]
        uncached: list[Sample] = []
        for _ in range(args.uncached_runs):
            runtime.advisories.invalidate()
            uncached.append((await caller.post("/api/scan", body))[0])
        await caller.post("/api/scan", body)  # caches filled again before the SBOM runs
        sboms = {
            fmt: (await caller.post("/api/scan", scan_body(lf, fmt)))[0]
            for fmt in ("cyclonedx", "spdx")
        }
        w, u = summarise(warm), summarise(uncached)
        judged = lf.packages >= 1000
        ok_cold = cold.server_ms <= limit
        ok_warm = (w["server_p50_ms"] or 0) <= limit
        ok_uncached = (u["server_p50_ms"] or 0) <= limit
        if judged:
            met_all = met_all and ok_cold and ok_warm and ok_uncached
        target = f"<= {limit:g} ms (1,000-pkg lockfile)" if judged else ""

        def per_1000(ms: float | None, n: int = lf.packages) -> str:
            return f"; {ms * 1000 / n:,.0f} ms per 1,000 pkgs" if ms else ""

        rows.append(
            Row(
                f"scan native {label}: cold (first scan, caches empty)",
                f"server {cold.server_ms:,.1f} ms, _response_ms {cold.response_ms}, wall {cold.wall_ms:,.1f} ms"
                + per_1000(cold.server_ms),
                target,
                ok_cold if judged else None,
            )
        )
        rows.append(
            Row(
                f"scan native {label}: warm, {w['n']} runs",
                f"server p50 {fmt_ms(w['server_p50_ms'])} / p99 {fmt_ms(w['server_p99_ms'])} ms, "
                f"_response_ms p50 {fmt_ms(w['response_ms_p50'])}, wall p50 {fmt_ms(w['wall_p50_ms'])} ms"
                + per_1000(w["server_p50_ms"])
                + gc_warm.note(),
                target,
                ok_warm if judged else None,
            )
        )
        if uncached:
            rows.append(
                Row(
                    f"scan native {label}: caches emptied before each, {u['n']} runs",
                    f"server p50 {fmt_ms(u['server_p50_ms'])} ms, _response_ms p50 "
                    f"{fmt_ms(u['response_ms_p50'])}, wall p50 {fmt_ms(u['wall_p50_ms'])} ms"
                    + per_1000(u["server_p50_ms"]),
                    target,
                    ok_uncached if judged else None,
                )
            )
        ok_sbom = all(sb.server_ms <= limit for sb in sboms.values())
        if judged:
            met_all = met_all and ok_sbom
        rows.append(
            Row(
                f"scan {label}: CycloneDX / SPDX, once each (warm)",
                f"server {sboms['cyclonedx'].server_ms:,.1f} / {sboms['spdx'].server_ms:,.1f} ms, "
                f"wall {sboms['cyclonedx'].wall_ms:,.1f} / {sboms['spdx'].wall_ms:,.1f} ms",
                target,
                ok_sbom if judged else None,
            )
        )
        per_file[lf.path.name] = {
            "kind": lf.kind,
            "ecosystem": lf.ecosystem,
            "packages": lf.packages,
            "bytes": len(lf.text.encode()),
            "summary": {
                k: summary.get(k)
                for k in (
                    "packages",
                    "resolved",
                    "vulnerable_packages",
                    "malicious",
                    "by_status",
                    "vulnerability_data",
                )
            },
            "cold": cold.__dict__,
            "warm": w,
            "warm_full_gc": gc_warm.as_dict(),
            "uncached": u,
            "cyclonedx": sboms["cyclonedx"].__dict__,
            "spdx": sboms["spdx"].__dict__,
        }
        print(
            f"  scanned {lf.path.name}: warm p50 {fmt_ms(w['server_p50_ms'])} ms, cold {cold.server_ms:.1f} ms"
        )
    extra["scan"] = per_file
    return met_all


async def scan_breakdown(runtime: Any, caller: Caller, lf: Lockfile, n: int) -> dict[str, float]:
    """The parts of one scan of `lf`, each timed alone (p50 ms of `n`; uncached parts fewer)."""
    from pkgintel.api.http import plain_json
    from pkgintel.application.schemas.audit import ScanBody

    raw = scan_body(lf)
    out: dict[str, float] = {}
    out[f"ScanBody.model_validate_json (body of {len(raw) // 1024} KiB)"], body = await timed_ms(
        lambda: ScanBody.model_validate_json(raw), n
    )
    out["parse_lockfile"], parsed = await timed_ms(
        lambda: parse_lockfile(body.lockfile, filename=body.filename), n
    )
    out["AuditService.audit, warm"], result = await timed_ms(lambda: runtime.audit.audit(parsed), n)

    eco = parsed.ecosystem
    names = sorted({p.name for p in parsed.packages})
    resolved = [p for p in parsed.packages if p.resolved and p.version]
    parts: dict[str, list[float]] = {}
    uncached_n = max(3, n // 4)
    for _ in range(uncached_n):
        runtime.advisories.invalidate()
        steps: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            (
                "  uncached: advisories.prefetch (records_for_many + parse_osv)",
                lambda: runtime.advisories.prefetch(eco, names),
            ),
            ("  uncached: packages.stored_many", lambda: runtime.packages.stored_many(eco, names)),
            (
                "  uncached: gather for_version (matching; first ask of each)",
                lambda: asyncio.gather(
                    *(runtime.advisories.for_version(eco, p.name, p.version) for p in resolved)
                ),
            ),
            (
                "  uncached: gather malicious",
                lambda: asyncio.gather(
                    *(runtime.advisories.malicious(eco, p.name, p.version) for p in resolved)
                ),
            ),
        ]
        for label, step in steps:
            started = time.perf_counter()
            await step()
            parts.setdefault(label, []).append((time.perf_counter() - started) * 1000)
        runtime.advisories.invalidate()
        with count_calls(runtime.advisories._store, "kev_for") as kev_loads:
            started = time.perf_counter()
            await runtime.audit.audit(parsed)
            parts.setdefault("AuditService.audit, caches emptied", []).append(
                (time.perf_counter() - started) * 1000
            )
        parts.setdefault("  KEV catalog loads (store.kev_for calls) in that audit", []).append(
            kev_loads[0]
        )
        runtime.advisories.invalidate()
        cov = await runtime.advisories.coverage()
        await runtime.advisories.enrichment.kev_for(
            ["CVE-0000-0000"], cov
        )  # the catalog, loaded once
        started = time.perf_counter()
        await runtime.audit.audit(parsed)
        parts.setdefault(
            "AuditService.audit, caches emptied but the KEV catalog loaded once beforehand", []
        ).append((time.perf_counter() - started) * 1000)
    for label, values in parts.items():
        out[label] = percentile(values, 50) or 0.0
    await runtime.audit.audit(parsed)

    payload = {
        "kind": parsed.kind,
        "ecosystem": eco.value,
        "summary": result.summary,
        "packages": list(result.packages),
        "warnings": list(result.warnings),
    }
    out["plain_json(payload)"], response = await timed_ms(lambda: plain_json(payload), n)
    size = len(response.body)
    (
        out[
            f"gzip level 9 of the {size / 1024:,.0f} KiB body (what the middleware's fallback may cost)"
        ],
        _,
    ) = await timed_ms(lambda: gzip.compress(response.body, 9), max(3, n // 4))
    body_native = scan_body(lf)
    ident = [
        (await caller.post("/api/scan", body_native, {"Accept-Encoding": "identity"}))[0].server_ms
        for _ in range(n)
    ]
    out["whole request, warm, Accept-Encoding: identity (server)"] = percentile(ident, 50) or 0.0
    gz = [(await caller.post("/api/scan", body_native))[0].server_ms for _ in range(n)]
    out["whole request, warm, Accept-Encoding: gzip (server)"] = percentile(gz, 50) or 0.0
    with GcWatch().watch() as gc_plain:
        plain = [(await caller.post("/api/scan", body_native))[0].server_ms for _ in range(n)]
    gc.collect()
    gc.freeze()  # what-if: the heap as it is now moved out of the collector's sight
    try:
        with GcWatch().watch() as gc_frozen:
            frozen = [(await caller.post("/api/scan", body_native))[0].server_ms for _ in range(n)]
    finally:
        gc.unfreeze()
    out[f"  again{gc_plain.note()}"] = percentile(plain, 50) or 0.0
    out[f"  again after gc.freeze() (what-if){gc_frozen.note()}"] = percentile(frozen, 50) or 0.0
    created = datetime.now(UTC).replace(microsecond=0)
    for fmt, parts_of in SBOM_PARTS.items():
        started = time.perf_counter()
        to_sbom(parsed, result, fmt, name=parsed.kind, created=created, tool_version="bench")
        out[f"to_sbom {fmt} ({len(result.vulnerabilities)} advisories attached)"] = (
            time.perf_counter() - started
        ) * 1000
        prof = cProfile.Profile()
        prof.enable()
        to_sbom(parsed, result, fmt, name=parsed.kind, created=created, tool_version="bench")
        prof.disable()
        for label, share in cumulative_shares(prof, "to_sbom", parts_of).items():
            out[f"  share of to_sbom {fmt} under cProfile (%): {label}"] = share
    return out


SBOM_PARTS = {
    "cyclonedx": {
        "our model → cyclonedx objects (_component)": ("sbom/cyclonedx.py", "_component"),
        "Bom(...) (cyclonedx-python-lib: SortedSets of components)": (
            "cyclonedx/model/bom.py",
            "__init__",
        ),
        "JsonV1Dot6.output_as_string (validate + serialise)": (
            "cyclonedx/output/json.py",
            "output_as_string",
        ),
        "  of which Bom.validate (register_dependency scans all dependencies per component)": (
            "cyclonedx/model/bom.py",
            "validate",
        ),
    },
    "spdx": {
        "validate_document (one pass; spdx-tools' per-element validators)": (
            "sbom/spdx.py",
            "validate_document",
        ),
        "  of which validate_package (spdx-tools, per package)": (
            "validation/package_validator.py",
            "validate_package",
        ),
        "  of which validate_license_expression (spdx-tools, per package)": (
            "validation/license_expression_validator.py",
            "validate_license_expression",
        ),
        "our model → spdx-tools objects (_package)": ("sbom/spdx.py", "_package"),
        "write_document_to_stream (spdx-tools JSON writer)": (
            "writer/json/json_writer.py",
            "write_document_to_stream",
        ),
    },
}
"""Functions whose cumulative time is shown as a share of `to_sbom` (file suffix, function name)."""


def cumulative_shares(
    prof: cProfile.Profile, root: str, parts: dict[str, tuple[str, str]]
) -> dict[str, float]:
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    cumulative = {}
    for (filename, _, func), (_, _, _, ct, _) in stats.items():
        for label, (suffix, name) in parts.items():
            if func == name and filename.replace("\\", "/").endswith(suffix):
                cumulative[label] = max(cumulative.get(label, 0.0), ct)
    total = max((v[3] for k, v in stats.items() if k[2] == root), default=0.0)
    return {
        label: round(100 * cumulative[label] / total, 1) if total else 0.0
        for label in parts
        if label in cumulative
    }


@contextlib.contextmanager
def count_calls(obj: Any, method: str) -> Iterator[list[int]]:
    """Count calls of `obj.method` (an async method) while the block runs."""
    original = getattr(obj, method)
    counter = [0]

    async def counted(*a: Any, **kw: Any) -> Any:
        counter[0] += 1
        return await original(*a, **kw)

    had_own = method in vars(obj)
    setattr(obj, method, counted)
    try:
        yield counter
    finally:
        if had_own:
            setattr(obj, method, original)
        else:
            delattr(obj, method)


# -- bulk ------------------------------------------------------------------------------------------


async def measure_bulk(
    args: argparse.Namespace,
    caller: Caller,
    pools: BulkPools,
    rng: random.Random,
    rows: list[Row],
    extra: dict[str, Any],
) -> tuple[bool, list[dict[str, str]]]:
    limit = TARGETS["bulk_p50_ms"]
    fixed = bulk_items(pools, rng)
    body = orjson.dumps({"items": fixed})
    first, data = await caller.post("/api/check_bulk", body)
    statuses = (
        Counter(r["status"] for r in data["results"]) if isinstance(data, dict) else Counter()
    )
    extra["bulk_fixed_statuses"] = dict(statuses)
    extra["bulk_fixed_items"] = fixed
    for _ in range(2):
        await caller.post("/api/check_bulk", body)
    with GcWatch().watch() as gc_warm:
        warm = [(await caller.post("/api/check_bulk", body))[0] for _ in range(args.bulk_runs)]
    sets = [bulk_items(pools, rng) for _ in range(args.bulk_runs)]
    distinct: list[Sample] = []
    distinct_statuses: Counter[str] = Counter()
    for items in sets:
        sample, data = await caller.post("/api/check_bulk", orjson.dumps({"items": items}))
        distinct.append(sample)
        if isinstance(data, dict):
            distinct_statuses.update(r["status"] for r in data["results"])
    extra["bulk_distinct_statuses"] = dict(distinct_statuses)
    w, d = summarise(warm), summarise(distinct)
    ok_w = (w["server_p50_ms"] or 0) <= limit
    ok_d = (d["server_p50_ms"] or 0) <= limit
    mix = ", ".join(f"{k} {v}" for k, v in statuses.most_common())
    rows.append(
        Row(
            f"check_bulk, 100 pairs ({mix}): first call (pools warmed)",
            f"server {first.server_ms:,.1f} ms, wall {first.wall_ms:,.1f} ms",
        )
    )
    rows.append(
        Row(
            f"check_bulk, the same 100 pairs, {w['n']} runs",
            f"server p50 {fmt_ms(w['server_p50_ms'])} / p99 {fmt_ms(w['server_p99_ms'])} ms, "
            f"_response_ms p50 {fmt_ms(w['response_ms_p50'])}, wall p50 {fmt_ms(w['wall_p50_ms'])} / "
            f"p99 {fmt_ms(w['wall_p99_ms'])} ms" + gc_warm.note(),
            f"p50 <= {limit:g} ms",
            ok_w,
        )
    )
    dmix = ", ".join(f"{k} {v}" for k, v in distinct_statuses.most_common())
    rows.append(
        Row(
            f"check_bulk, {d['n']} distinct sets of 100 ({dmix})",
            f"server p50 {fmt_ms(d['server_p50_ms'])} / p99 {fmt_ms(d['server_p99_ms'])} ms, "
            f"_response_ms p50 {fmt_ms(d['response_ms_p50'])}, wall p50 {fmt_ms(d['wall_p50_ms'])} / "
            f"p99 {fmt_ms(d['wall_p99_ms'])} ms",
            f"p50 <= {limit:g} ms",
            ok_d,
        )
    )
    extra["bulk"] = {
        "first": first.__dict__,
        "same": w,
        "same_full_gc": gc_warm.as_dict(),
        "distinct": d,
    }
    return ok_w and ok_d, fixed


async def bulk_breakdown(runtime: Any, fixed: list[dict[str, str]], n: int) -> dict[str, float]:
    """The parts of `BulkCheckService.check` for the fixed 100 pairs (warm), each timed alone."""
    from pkgintel.knowledge.stdlib import is_stdlib

    items = [(Ecosystem(i["ecosystem"]), i["package"], None) for i in fixed]
    bulk = runtime.bulk
    out: dict[str, float] = {}
    out["BulkCheckService.check, whole"], _ = await timed_ms(lambda: bulk.check(items), n)
    by_eco: dict[Ecosystem, list[str]] = {}
    for eco, name, _ in items:
        by_eco.setdefault(eco, []).append(name)
    known: dict[Ecosystem, Any] = {}
    flagged_by_eco: dict[Ecosystem, set[str] | None] = {}
    for eco, names in by_eco.items():
        out[f"  names.known_many {eco.value} ({len(names)} names)"], known[eco] = await timed_ms(
            lambda eco=eco, names=names: runtime.names.known_many(eco, names), n
        )
        keys = [normalise_name(eco, x) for x in names]
        out[f"  advisories.malicious_names {eco.value}"], flagged = await timed_ms(
            lambda eco=eco, keys=keys: runtime.advisories.malicious_names(eco, keys), n
        )
        flagged_by_eco[eco] = flagged
        (
            out[f"  advisories.prefetch {eco.value} ({len(flagged or ())} flagged, cached)"],
            _,
        ) = await timed_ms(
            lambda eco=eco, flagged=flagged: runtime.advisories.prefetch(
                eco, sorted(flagged or ())
            ),
            n,
        )

    async def per_item() -> None:
        for eco, name, version in items:
            await bulk._one(eco, name, version, known[eco], flagged_by_eco[eco])

    out["  the per-item loop (_one x 100)"], _ = await timed_ms(per_item, n)

    flagged_items = [
        (eco, name, version)
        for eco, name, version in items
        if not is_stdlib(eco, name) and normalise_name(eco, name) in (flagged_by_eco[eco] or ())
    ]

    async def malicious_flagged() -> None:
        for eco, name, version in flagged_items:
            await runtime.advisories.malicious(eco, name, version)

    (
        out[f"    advisories.malicious for the {len(flagged_items)} flagged non-stdlib items"],
        _,
    ) = await timed_ms(malicious_flagged, n)
    reaching: list[tuple[Ecosystem, str]] = []
    for eco, name, version in items:
        if is_stdlib(eco, name):
            continue
        mal = await runtime.advisories.malicious(eco, name, version)
        if mal.advisories and mal.extra.get("all_versions"):
            continue
        reaching.append((eco, name))

    async def typos() -> None:
        for eco, name in reaching:
            await runtime.names.typosquat(eco, name)

    out[f"    names.typosquat for the {len(reaching)} items that reach it"], _ = await timed_ms(
        typos, n
    )
    outside: list[tuple[Ecosystem, str]] = []
    for eco, name in reaching:
        pool = await runtime.names.pools.get(eco)
        if normalise_name(eco, name) not in pool.names:
            outside.append((eco, name))
    if outside:

        async def typos_first_ask() -> None:
            for eco, name in outside:
                (await runtime.names.pools.get(eco)).hints.clear()
                await runtime.names.typosquat(eco, name)

        total, _ = await timed_ms(typos_first_ask, n)
        out[
            f"      of which {len(outside)} names outside the popular pool, first ask "
            "(near-miss search), per name"
        ] = total / len(outside)
    return out


# -- orchestration ---------------------------------------------------------------------------------


def per_package(extra: dict[str, Any], lf: Lockfile, which: str) -> float:
    """Server p50 ms per package of `lf`'s `warm` or `uncached` scans (the cold run when none)."""
    figures = extra["scan"][lf.path.name]
    ms = figures[which]["server_p50_ms"] or figures["cold"]["server_ms"]
    return ms / max(lf.packages, 1)


async def measure(
    args: argparse.Namespace, db_url: str, db: Path, rows: list[Row], extra: dict[str, Any]
) -> None:
    rng = random.Random(args.seed)
    lockfiles = pick_lockfiles(args.shared, args.top)
    pools = build_bulk_pools(db, rng, args.bulk_runs)
    extra["bulk_pool_sizes"] = {f"{e.value}:{k}": len(v) for (e, k), v in pools.names.items()}
    settings = service_settings(db_url)
    async with inproc_app(settings) as (runtime, timer, client):
        caller = Caller(client, timer)
        print("scans ...")
        scan_ok = await measure_scans(args, runtime, caller, lockfiles, rows, extra)
        extra["gc_tracked_objects_after_scans"] = len(gc.get_objects())
        print("bulk checks ...")
        # `pkgintel serve` warms the name pools at start (NameService.warm); this app has no
        # lifespan, so the same call is made and timed here before the first check_bulk.
        started = time.perf_counter()
        warmed = await runtime.names.warm()
        rows.append(
            Row(
                "name pools: load and index (done by pkgintel serve at start): "
                + ", ".join(e.value for e in warmed),
                f"{(time.perf_counter() - started) * 1000:,.1f} ms",
            )
        )
        bulk_ok, fixed = await measure_bulk(args, caller, pools, rng, rows, extra)
        print("breakdowns ...")
        largest = max(lockfiles, key=lambda lf: lf.packages)
        costly = max(lockfiles, key=lambda lf: per_package(extra, lf, "uncached"))
        slow_warm = max(lockfiles, key=lambda lf: per_package(extra, lf, "warm"))
        extra["scan_breakdown_ms"] = {}
        for lf in {id(x): x for x in (largest, slow_warm, costly)}.values():
            label = f"{lf.path.name} ({lf.packages:,} packages)"
            extra["scan_breakdown_ms"][label] = await scan_breakdown(
                runtime, caller, lf, args.breakdown_n
            )
        extra["bulk_breakdown_ms"] = await bulk_breakdown(runtime, fixed, args.breakdown_n)
        if caller.errors:
            rows.append(Row("errors", f"{len(caller.errors)}: " + "; ".join(caller.errors[:3])))
        extra["errors"] = caller.errors
        if args.profile or not (scan_ok and bulk_ok):
            print(f"profiling ({'asked' if args.profile else 'a target was missed'}) ...")
            profiles = Profiles(args.profile_top)
            extra["profile_tool"] = profiles.tool
            body = scan_body(largest)
            with profiles.run(f"scan {largest.path.name}, warm, 10 runs"):
                for _ in range(10):
                    await caller.post("/api/scan", body)
            with profiles.run(f"scan {largest.path.name}, caches emptied, 3 runs"):
                for _ in range(3):
                    runtime.advisories.invalidate()
                    await caller.post("/api/scan", body)
            if costly is not largest:
                with profiles.run(f"scan {costly.path.name}, caches emptied, 3 runs"):
                    for _ in range(3):
                        runtime.advisories.invalidate()
                        await caller.post("/api/scan", scan_body(costly))
            for fmt in ("cyclonedx", "spdx"):
                with profiles.run(f"scan {largest.path.name}, format {fmt}, once"):
                    await caller.post("/api/scan", scan_body(largest, fmt))
            bulk_body = orjson.dumps({"items": fixed})
            with profiles.run("check_bulk, the same 100 pairs, 50 runs"):
                for _ in range(50):
                    await caller.post("/api/check_bulk", bulk_body)
            distinct = [orjson.dumps({"items": bulk_items(pools, rng)}) for _ in range(50)]
            with profiles.run("check_bulk, 50 distinct sets of 100"):
                for each in distinct:
                    await caller.post("/api/check_bulk", each)
            extra["profile_text"] = "".join(
                f"==== {label} ({profiles.tool}) ====\n{text}\n"
                for label, text in profiles.results.items()
            )


async def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    db = args.db or workdir / "audit.db"
    db_url = f"sqlite+aiosqlite:///{db}"
    rows: list[Row] = []
    extra: dict[str, Any] = {}
    if args.db:
        print(f"reusing {db} (no ingestion)")
        rows.append(Row("setup", f"reused {db}"))
        await measure(args, db_url, db, rows, extra)
        return rows, extra
    print("ingesting advisories ...")
    rows += await ingest_advisories(db_url, args.shared, not args.no_enrich)
    print("ingesting name lists ...")
    rows += await asyncio.to_thread(ingest_names, db_url, args.shared, workdir)
    extra["db_size_mb"] = round(db.stat().st_size / 2**20, 1)
    await measure(args, db_url, db, rows, extra)
    return rows, extra


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="shared data folder")
    parser.add_argument("--top", type=int, default=5, help="largest lockfiles by package count")
    parser.add_argument("--runs", type=int, default=20, help="warm scan runs per lockfile")
    parser.add_argument(
        "--uncached-runs", type=int, default=5, help="scan runs with caches emptied"
    )
    parser.add_argument(
        "--bulk-runs", type=int, default=200, help="check_bulk runs (and distinct sets)"
    )
    parser.add_argument("--breakdown-n", type=int, default=20, help="calls per breakdown figure")
    parser.add_argument("--no-enrich", action="store_true", help="do not load KEV and EPSS")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default=default_loop)
    parser.add_argument("--profile", action="store_true", help="profile even when targets are met")
    parser.add_argument("--profile-top", type=int, default=35, help="cProfile rows per table")
    parser.add_argument("--keep-db", action="store_true", help="keep the benchmark database")
    parser.add_argument(
        "--db", type=Path, default=None, help="reuse a database kept with --keep-db (no ingestion)"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = [f for f in (*OSV_FOLDERS, "lockfiles") if not (args.shared / f).is_dir()]
    if missing:
        print(f"SKIP: {', '.join(missing)} not found under {args.shared} (nothing is made up)")
        return 0
    loadavg_at_start = [round(x, 2) for x in os.getloadavg()]
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-audit-"))
    try:
        rows, extra = run_loop(args, run(args, workdir))
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    finally:
        if args.keep_db:
            print(f"database kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    table = render_table(rows)
    print()
    print(table)
    for name, parts in extra["scan_breakdown_ms"].items():
        print(f"\nscan of {name} by part, each timed alone, p50 ms (shares in %, counts as such):")
        for label, value in parts.items():
            print(f"  {label:100s} {value:9.3f}")
    print("\ncheck_bulk (the same 100 pairs) by part, each timed alone, p50 ms:")
    for label, value in extra["bulk_breakdown_ms"].items():
        print(f"  {label:100s} {value:9.3f}")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    RESULTS.mkdir(parents=True, exist_ok=True)
    profile_text = extra.pop("profile_text", None)
    machine = machine_info()
    machine["loadavg_at_start"] = loadavg_at_start
    print(f"\nloadavg at start {loadavg_at_start}, at end {machine['loadavg_at_end']}")
    result = {
        "timestamp": stamp,
        "machine": machine,
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "targets": TARGETS,
        "rows": [r.__dict__ for r in rows],
        "extra": extra,
        "table": table,
    }
    out = RESULTS / f"{stamp}-audit.json"
    out.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {out.relative_to(REPO)}")
    if profile_text:
        prof = RESULTS / f"{stamp}-audit-profile.txt"
        prof.write_text(profile_text)
        print(f"wrote {prof.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
