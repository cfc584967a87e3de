"""
Advisory benchmark (issue 3): OSV/KEV/EPSS ingestion into SQLite, and `AdvisoryService` lookups.

What is measured, and how:

* **ingestion**: a fresh SQLite file database (migrated first, not timed) receives every export
  under the shared `osv/`, `osv-converted/` and `osv-malicious/` folders, in the order
  `pkgintel ingest all --osv-from <folder> ...` uses (feed = folder name, ecosystems in the
  `osv_ecosystems` setting's order), in this process with `AdvisoryIngestor` + `SqlAdvisoryStore` +
  `sources.osv_export.iter_records`. Reported: records, seconds, records/s and the process's peak
  RSS (`ru_maxrss`) after the run. Then the same ingestion again (nothing changed: incremental),
  then KEV and EPSS from the shared files.
* **lookups**: a new engine and an `AdvisoryService` built as `bootstrap.assemble` builds it, with
  `osv_api=None` (ingested data only). `for_version` for pypi django 3.0.0 and for one npm package
  with a malicious report: the first call of the service (cold), then the same call 1,000 times
  (warm). Every other version the django records name, once each (package warm, version new).
  1,000 distinct (package, version) pairs drawn from the vulnerability feeds (`osv`,
  `osv-converted`; a seeded sample of the packages their records name, with a version the record
  names): every pair once on a fresh service (first ask of each package), then all again.
  `malicious()` warm, and over 1,000 distinct names from `osv-malicious`, first ask of each.
* **breakdown**: the parts of a django `for_version` timed alone (coverage, cached advisories,
  matching, the KEV, EPSS and records queries). When a lookup figure misses its target (or with
  `--profile`), cProfile of three loops (warm repeat, django versions, distinct packages) goes to
  `bench/results/<timestamp>-advisories-profile.txt`. cProfile puts SQLAlchemy's greenlet
  switches on the wrong frames (see README); the breakdown is the reliable split for DB calls.

Nothing is asserted. The figures are printed as a table and written as JSON to
`bench/results/<timestamp>-advisories.json`; the temporary database is removed on exit
(`--keep-db` keeps it).

Run: `.venv/bin/python bench/bench_advisories.py [--shared ../shared/data] [--loop asyncio]`.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from _common import REPO, Row, machine_info, percentile, render_table, run_loop

import pkgintel
from pkgintel.config import Settings
from pkgintel.domain.matching import affecting, group_by_alias
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.osv_ecosystems import ecosystem_from_osv
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.advisories.enrichment import cve_ids
from pkgintel.services.advisories.ingest import AdvisoryIngestor
from pkgintel.services.advisories.service import AdvisoryService
from pkgintel.sources.osv_export import export_location, is_missing_locally, iter_records
from pkgintel.storage.advisories import SqlAdvisoryStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import create_engine

RESULTS = REPO / "bench" / "results"
DEFAULT_SHARED = REPO.parent / "shared" / "data"
OSV_FOLDERS = ("osv", "osv-converted", "osv-malicious")
VULN_FEEDS = ("osv", "osv-converted")
MALICIOUS_FEED = "osv-malicious"
DJANGO = (Ecosystem.PYPI, "django", "3.0.0")

TARGETS = {"ingest_s": 60.0, "ingest_rss_mb": 500.0, "lookup_ms": 1.0}


# -- small helpers ---------------------------------------------------------------------------------


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ms_stats(seconds: list[float]) -> tuple[float, float, float]:
    """(p50, p99, mean) in ms."""
    ms = [s * 1000 for s in seconds]
    return percentile(ms, 50) or 0.0, percentile(ms, 99) or 0.0, sum(ms) / len(ms)


async def timed(call: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        out.append(time.perf_counter() - started)
    return out


# -- ingestion -------------------------------------------------------------------------------------


async def ingest_osv_all(ingestor: AdvisoryIngestor, shared: Path) -> tuple[int, Counter[str]]:
    """Every export under the OSV folders, as `ingest all` orders them; (records, per-kind counts)."""
    total = 0
    counts: Counter[str] = Counter()
    for folder in OSV_FOLDERS:
        location = str(shared / folder)
        for eco in Settings().osv_ecosystems:
            where = export_location(location, eco)
            if is_missing_locally(where):
                continue
            summary = await ingestor.ingest_osv(
                feed=folder, osv_ecosystem=eco, location=where, entries=iter_records(Path(where))
            )
            total += summary.total
            for kind in ("added", "updated", "unchanged", "withdrawn", "removed"):
                counts[kind] += getattr(summary, kind)
            counts["skipped"] += sum(summary.skipped.values())
    return total, counts


# -- sampling (plain sqlite3 on the benchmark's own database) --------------------------------------


def _versions_named(affected: dict[str, Any]) -> list[str]:
    """Versions an OSV `affected[]` entry names: its `versions`, else its range bounds."""
    if affected.get("versions"):
        return [str(v) for v in affected["versions"]]
    bounds = [
        str(value)
        for rng in affected.get("ranges") or ()
        if rng.get("type") != "GIT"
        for event in rng.get("events") or ()
        for kind, value in event.items()
        if kind in ("introduced", "fixed", "last_affected") and value not in ("0", "0.0.0")
    ]
    return bounds


def sample_pairs(
    db: Path, feeds: tuple[str, ...], n: int, rng: random.Random
) -> list[tuple[Ecosystem, str, str]]:
    """Up to `n` (ecosystem, package, version) from records of `feeds`, distinct packages."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        marks = ",".join("?" * len(feeds))
        rows = conn.execute(
            f"SELECT record FROM advisory_record WHERE feed IN ({marks}) AND NOT withdrawn",  # noqa: S608
            feeds,
        ).fetchall()
    finally:
        conn.close()
    rng.shuffle(rows)
    seen: set[tuple[Ecosystem, str]] = set()
    pairs: list[tuple[Ecosystem, str, str]] = []
    for (blob,) in rows:
        record = orjson.loads(zlib.decompress(blob))
        for affected in record.get("affected") or ():
            package = affected.get("package") or {}
            eco = ecosystem_from_osv(str(package.get("ecosystem", "")))
            name = package.get("name")
            versions = _versions_named(affected)
            if eco is None or not name or not versions:
                continue
            key = (eco, normalise_name(eco, name))
            if key in seen:
                continue
            seen.add(key)
            pairs.append((eco, name, rng.choice(versions)))
            break
        if len(pairs) >= n:
            break
    return pairs


def package_versions(db: Path, ecosystem: Ecosystem, name: str) -> list[str]:
    """Every version the vulnerability records of one package name (listed or as a range bound)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT r.record FROM advisory_package p JOIN advisory_record r"
            " ON r.feed = p.feed AND r.osv_ecosystem = p.osv_ecosystem AND r.id = p.advisory_id"
            " WHERE p.ecosystem = ? AND p.name = ?",
            (ecosystem.value, normalise_name(ecosystem, name)),
        ).fetchall()
    finally:
        conn.close()
    found: dict[str, None] = {}
    for (blob,) in rows:
        for affected in orjson.loads(zlib.decompress(blob)).get("affected") or ():
            package = affected.get("package") or {}
            if ecosystem_from_osv(str(package.get("ecosystem", ""))) is ecosystem and (
                normalise_name(ecosystem, str(package.get("name", "")))
                == normalise_name(ecosystem, name)
            ):
                found.update(dict.fromkeys(_versions_named(affected)))
    return sorted(found)


# -- lookups ---------------------------------------------------------------------------------------


async def measure_lookups(
    args: argparse.Namespace, db_url: str, db: Path, rows: list[Row], extra: dict[str, Any]
) -> None:
    settings = Settings()
    engine = create_engine(db_url)
    store = SqlAdvisoryStore(engine)
    await store.count_records()  # the pool's connection is open before anything is timed

    def new_service() -> AdvisoryService:
        return AdvisoryService(
            store,
            clock=lambda: datetime.now(UTC),
            stale_after_s=settings.advisory_stale_after_s,
            osv_api=None,
            api_ttl_s=settings.cache_ttl_s,
        )

    rng = random.Random(args.seed)
    malicious_pairs = sample_pairs(db, (MALICIOUS_FEED,), args.distinct, rng)
    npm_mal = next(p for p in malicious_pairs if p[0] is Ecosystem.NPM)
    vuln_pairs = sample_pairs(db, VULN_FEEDS, args.distinct, rng)
    django_versions = [v for v in package_versions(db, *DJANGO[:2]) if v != DJANGO[2]]
    extra["npm_malicious_example"] = f"{npm_mal[1]}@{npm_mal[2]}"
    extra["distinct_vuln_pairs_by_ecosystem"] = dict(Counter(e.value for e, _, _ in vuln_pairs))
    limit = f"<= {TARGETS['lookup_ms']:g} ms"

    def judged(label: str, times: list[float], *, by: str = "p50", total: bool = False) -> Row:
        p50, p99, mean = ms_stats(times)
        figure = mean if by == "mean" else p50
        head = f"{sum(times):.2f} s total; " if total else ""
        return Row(
            label,
            f"{head}mean {mean:.3f}, p50 {p50:.3f}, p99 {p99:.3f} ms",
            f"{by} {limit}",
            figure <= TARGETS["lookup_ms"],
        )

    service = new_service()
    for eco, name, version in (DJANGO, npm_mal):
        label = f"for_version {eco.value} {name} {version}"
        started = time.perf_counter()
        report = await service.for_version(eco, name, version)
        cold_ms = (time.perf_counter() - started) * 1000
        first = "first call of the service" if eco is Ecosystem.PYPI else "first call for it"
        rows.append(Row(f"{label}: cold ({first})", f"{cold_ms:.2f} ms"))
        times = await timed(lambda e=eco, n=name, v=version: service.for_version(e, n, v), args.n)
        hits = len(report.details)
        rows.append(judged(f"{label}: warm, same call x{args.n:,} ({hits} advisories hit)", times))
    times = []
    for version in django_versions:
        t0 = time.perf_counter()
        await service.for_version(DJANGO[0], DJANGO[1], version)
        times.append(time.perf_counter() - t0)
    rows.append(
        judged(
            f"for_version pypi django, {len(times)} other versions (package warm, version new)",
            times,
        )
    )
    eco, name, version = npm_mal
    times = await timed(lambda: service.malicious(eco, name, version), args.n)
    rows.append(judged(f"malicious npm {name} {version}: warm x{args.n:,}", times))

    service = new_service()
    await service.coverage()
    for attempt in ("first ask of each package", "the same pairs again"):
        times = []
        for eco, name, version in vuln_pairs:
            t0 = time.perf_counter()
            await service.for_version(eco, name, version)
            times.append(time.perf_counter() - t0)
        label = f"for_version, {len(vuln_pairs):,} distinct pairs, {attempt}"
        rows.append(judged(label, times, by="mean", total=True))
    times = []
    for eco, name, version in malicious_pairs:
        t0 = time.perf_counter()
        await service.malicious(eco, name, version)
        times.append(time.perf_counter() - t0)
    label = f"malicious, {len(malicious_pairs):,} distinct names, first ask of each"
    rows.append(judged(label, times, by="mean", total=True))

    extra["breakdown_ms"] = await breakdown(service, store, args.n)
    if args.profile or any(r.met is False for r in rows):
        warm = new_service()
        await warm.for_version(*DJANGO)

        async def repeated() -> None:
            for _ in range(args.n):
                await warm.for_version(*DJANGO)

        async def versions() -> None:
            for v in django_versions:
                await warm.for_version(DJANGO[0], DJANGO[1], v)

        first = new_service()
        await first.coverage()

        async def packages() -> None:
            for e, n, v in vuln_pairs:
                await first.for_version(e, n, v)

        loops: dict[str, Callable[[], Awaitable[Any]]] = {
            f"warm pypi django 3.0.0 x{args.n}": repeated,
            f"pypi django, {len(django_versions)} other versions": versions,
            f"{len(vuln_pairs)} distinct packages, first ask": packages,
        }
        extra["profile_text"] = await profile_loops(loops, args.profile_top)
    await engine.dispose()


async def breakdown(service: AdvisoryService, store: SqlAdvisoryStore, n: int) -> dict[str, float]:
    """p50 of the parts of a `for_version(pypi, django, 3.0.0)` whose report is not cached,
    each timed alone with the package's advisories cached (the path for a new version)."""
    eco, name, version = DJANGO
    await service.for_version(eco, name, version)
    advisories = await service.advisories(eco, name)
    hits = [a for a in affecting(advisories, eco, name, version) if not a.is_malicious]
    cves = sorted({c for g in group_by_alias(hits) for a in g for c in cve_ids(a)})
    record_count = len(await store.records_for(eco, normalise_name(eco, name)))

    async def pure(fn: Callable[[], Any]) -> None:
        fn()

    parts: dict[str, Callable[[], Awaitable[Any]]] = {
        "for_version, same call repeated": lambda: service.for_version(eco, name, version),
        "coverage() (cached)": service.coverage,
        f"advisories() (cached, {len(advisories)} advisories)": lambda: service.advisories(
            eco, name
        ),
        f"affecting() (pure, {len(advisories)} advisories, {len(hits)} hits)": lambda: pure(
            lambda: affecting(advisories, eco, name, version)
        ),
        "group_by_alias(hits) (pure)": lambda: pure(lambda: group_by_alias(hits)),
        f"store.epss_for({len(cves)} CVEs) (DB)": lambda: store.epss_for(cves),
        f"store.kev_for({len(cves)} CVEs) (DB)": lambda: store.kev_for(cves),
        f"store.records_for (DB, {record_count} records, uncached advisories)": lambda: (
            store.records_for(eco, normalise_name(eco, name))
        ),
        "store.kev_for(None) (DB, whole catalog, once per coverage change)": lambda: store.kev_for(
            None
        ),
        "store.runs() (DB, coverage reads it every 5 s)": store.runs,
    }
    out = {}
    for label, call in parts.items():
        p50, _, _ = ms_stats(await timed(call, n))
        out[label] = round(p50, 4)
    return out


async def profile_loops(loops: dict[str, Callable[[], Awaitable[Any]]], top: int) -> str:
    """cProfile of each loop: the top functions by own time and by cumulative time."""
    text = []
    for label, loop in loops.items():
        profiler = cProfile.Profile()
        profiler.enable()
        await loop()
        profiler.disable()
        for order in ("tottime", "cumulative"):
            buf = io.StringIO()
            pstats.Stats(profiler, stream=buf).strip_dirs().sort_stats(order).print_stats(top)
            text.append(f"==== {label}, sorted by {order} ====\n{buf.getvalue()}")
    return "\n".join(text)


# -- orchestration ---------------------------------------------------------------------------------


async def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    db = workdir / "advisories.db"
    db_url = f"sqlite+aiosqlite:///{db}"
    rows: list[Row] = []
    extra: dict[str, Any] = {"rss_after_imports_mb": round(peak_rss_mb(), 1)}

    engine = create_engine(db_url)
    await upgrade(engine)
    ingestor = AdvisoryIngestor(SqlAdvisoryStore(engine), clock=lambda: datetime.now(UTC))
    started = time.perf_counter()
    records, counts = await ingest_osv_all(ingestor, args.shared)
    seconds = time.perf_counter() - started
    rss = peak_rss_mb()
    extra["first_run_counts"] = dict(counts)
    rows.append(
        Row(
            f"OSV ingest, fresh DB: {records:,} records ({', '.join(OSV_FOLDERS)})",
            f"{seconds:.1f} s, {records / seconds:,.0f} records/s",
            f"<= {TARGETS['ingest_s']:g} s",
            seconds <= TARGETS["ingest_s"],
        )
    )
    rows.append(
        Row(
            "peak RSS of the process after the OSV ingest",
            f"{rss:.0f} MB (of which {extra['rss_after_imports_mb']:.0f} MB after imports)",
            f"< {TARGETS['ingest_rss_mb']:g} MB",
            rss < TARGETS["ingest_rss_mb"],
        )
    )
    started = time.perf_counter()
    again, counts = await ingest_osv_all(ingestor, args.shared)
    seconds = time.perf_counter() - started
    extra["second_run_counts"] = dict(counts)
    rows.append(
        Row(
            f"OSV ingest again, nothing changed ({counts['unchanged']:,} of {again:,} unchanged)",
            f"{seconds:.1f} s",
        )
    )
    kev = args.shared / "kev" / "known_exploited_vulnerabilities.json"
    started = time.perf_counter()
    line = await ingestor.ingest_kev(location=str(kev), data=kev.read_bytes())
    rows.append(
        Row(f"KEV ingest ({line.split(', ')[0]})", f"{time.perf_counter() - started:.2f} s")
    )
    epss = sorted((args.shared / "epss").glob("epss_scores-*.csv.gz"))[-1]
    started = time.perf_counter()
    with epss.open("rb") as fh:
        line = await ingestor.ingest_epss(location=str(epss), stream=fh)
    rows.append(
        Row(f"EPSS ingest ({line.split(' of ')[0]})", f"{time.perf_counter() - started:.2f} s")
    )
    rows.append(Row("peak RSS after KEV + EPSS", f"{peak_rss_mb():.0f} MB"))
    await engine.dispose()
    extra["db_size_mb"] = round(db.stat().st_size / 2**20, 1)

    await measure_lookups(args, db_url, db, rows, extra)
    return rows, extra


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="shared data folder")
    parser.add_argument("--n", type=int, default=1000, help="repeated calls per warm figure")
    parser.add_argument("--distinct", type=int, default=1000, help="distinct pairs to look up")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default=default_loop)
    parser.add_argument("--profile", action="store_true", help="profile the warm lookup anyway")
    parser.add_argument("--profile-top", type=int, default=30, help="cProfile rows per table")
    parser.add_argument("--keep-db", action="store_true", help="keep the benchmark database")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    missing = [f for f in (*OSV_FOLDERS, "kev", "epss") if not (args.shared / f).is_dir()]
    if missing:
        print(f"SKIP: {', '.join(missing)} not found under {args.shared} (nothing is made up)")
        return 0
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-adv-"))
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
    print(table)
    print("\nfor_version(pypi, django, 3.0.0) by part, each timed alone, p50 ms:")
    for label, value in extra["breakdown_ms"].items():
        print(f"  {label:66s} {value:8.4f}")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    RESULTS.mkdir(parents=True, exist_ok=True)
    profile_text = extra.pop("profile_text", None)
    result = {
        "timestamp": stamp,
        "machine": machine_info(),
        "config": {
            "loop": args.loop,
            "n": args.n,
            "distinct": args.distinct,
            "seed": args.seed,
            "pkgintel_source": str(Path(pkgintel.__file__).parent),
        },
        "targets": TARGETS,
        "rows": [r.__dict__ for r in rows],
        "extra": extra,
        "table": table,
    }
    out = RESULTS / f"{stamp}-advisories.json"
    out.write_text(json.dumps(result, indent=2, default=str))
    print(f"\nwrote {out.relative_to(REPO)}")
    if profile_text:
        prof = RESULTS / f"{stamp}-advisories-profile.txt"
        prof.write_text(profile_text)
        print(f"wrote {prof.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
