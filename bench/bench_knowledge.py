"""
Benchmark of the package-knowledge endpoints (issue 18): compare (10 packages, warm), search (from the
name index), and alongside them alternatives, a breaking-change transition, bug search, trending and
the cost of recording one call in the usage log.

How:
* A temporary SQLite database (removed on exit) is migrated; the shared npm and PyPI name lists
  (`../shared/data/names/*.tsv.gz`, 227k + 886k names, or their `--names-limit` first rows) are loaded
  with `NameService.ingest` (full-text index filled by the migration's triggers, as in production);
  the curated knowledge is loaded; gocardless/business's releases (shared GitHub fixture) and its real
  changelog (tests/recordings) are harvested through `HarvestService` against the replay registry.
* The registries are `tests/fake_registry.py` (recorded bodies, no artificial latency) called in process
  through `httpx.ASGITransport`; the OSV API fallback is off, so nothing leaves the process.
* The app is `create_app(settings, runtime=...)` called through `httpx.ASGITransport`; a pure ASGI
  wrapper (`_common.ServerTimer`) measures server time from the request entering the app to its last
  body chunk. Each figure: untimed warm-up calls, then `--runs` timed calls, p50 / p99.
* compare: 10 recorded npm packages in one call, after one priming call (their registry data is then in
  the in-process cache; each call still builds 10 reports concurrently).
* search: PyPI (index only: PyPI has no search API) for several real queries, and npm with the
  registry search answer cached, both over the full name index.

Run: `.venv/bin/python bench/bench_knowledge.py [--names-limit 0] [--runs 200] [--db kept.db]`.
Nothing is asserted; figures go to stdout and `bench/results/<timestamp>-knowledge.json`.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
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
from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.curated import load_curated
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.services.knowledge.curated_ingest import ingest_curated
from pkgintel.sources.name_lists import parse_name_list
from tests.fake_registry import build

DEFAULT_SHARED = REPO.parent / "shared" / "data"
COMPARE_10 = "lodash,chalk,etag,is-stream,jquery,node-forge,react,axios,express,request"
PYPI_QUERIES = ["requests", "http client", "django rest", "yaml", "async web framework", "crypto"]
NPM_QUERIES = ["http client"]
"""The replay registry answers every npm search with one recorded body, so npm is timed on that query."""


def _lines(path: Path, limit: int) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        lines = fh.readlines() if limit <= 0 else list(itertools.islice(fh, limit + 1))
    return lines


async def _timed(
    client: httpx.AsyncClient, timer: ServerTimer, paths: list[str], runs: int, warm: int = 3
) -> tuple[list[float], int]:
    statuses: set[int] = set()
    for p in paths[:warm] if len(paths) >= warm else paths * warm:
        await client.get(p)
    out = []
    for i in range(runs):
        r = await client.get(paths[i % len(paths)], headers={"Accept-Encoding": "gzip"})
        statuses.add(r.status_code)
        assert timer.last is not None
        out.append(timer.last * 1000)
    return out, max(statuses)


def _fmt(ms: list[float]) -> str:
    return f"p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms (n={len(ms)})"


async def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    shared: Path = args.shared
    registry = build(shared)
    for item in json.loads((shared / "registry-fixtures/npm-live/INDEX.json").read_text()):
        raw = (shared / "registry-fixtures/npm-live" / item["file"]).read_bytes()
        registry.add(item["url"], gzip.decompress(raw) if item.get("gzipped") else raw)
    gh = "https://api.github.com/repos/gocardless/business"
    registry.add(
        f"{gh}/releases",
        json.loads(
            (
                shared
                / "registry-fixtures/github/api.github.com_repos_gocardless_business_releases_per_page_100.json"
            ).read_text()
        ),
    )
    registry.add(
        f"{gh}/contents/CHANGELOG.md",
        (REPO / "tests/recordings/changelogs/gocardless-business-CHANGELOG.md").read_bytes(),
    )
    registry.add(
        f"{gh}/issues", (REPO / "tests/recordings/github/business-bug-issues.json").read_bytes()
    )
    registry.add(
        "https://registry.npmjs.org/-/v1/search",
        json.loads((REPO / "tests/recordings/npm/search-http-client.json").read_text())["body"],
    )
    settings = Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{args.db or workdir / 'bench.db'}",
        upstream_npm_url="http://registry.test/npm",
        upstream_npm_downloads_url="http://registry.test/npm-downloads",
        upstream_pypi_url="http://registry.test/pypi",
        upstream_pypistats_url="http://registry.test/pypistats",
        upstream_pypi_files_url="http://registry.test/pypi-files",
        upstream_github_api_url="http://registry.test/github",
        osv_api_fallback=False,
        ip_hash_secret="bench-only-not-a-secret",  # noqa: S106
    )
    rows: list[Row] = []
    extra: dict[str, Any] = {}
    async with build_runtime(settings, transport=httpx.ASGITransport(app=registry.app)) as runtime:
        assert runtime.knowledge is not None
        k = runtime.knowledge
        loaded = {s.ecosystem for s in await runtime.names.index_states()}
        for eco, file in ((Ecosystem.NPM, "npm.tsv.gz"), (Ecosystem.PYPI, "pypi.tsv.gz")):
            if eco in loaded:  # a kept database (--db)
                continue
            started = time.perf_counter()
            raw = "".join(_lines(shared / "names" / file, args.names_limit)).encode()
            n = await runtime.names.ingest(eco, parse_name_list(eco, raw), source=file)
            secs = time.perf_counter() - started
            rows.append(
                Row(f"setup: ingest {eco.value} names (with FTS)", f"{n:,} names in {secs:.1f} s")
            )
        await ingest_curated(k.store, load_curated(), runtime.reports._clock())
        await k.harvest.harvest(Ecosystem.RUBYGEMS, "business", repository="gocardless/business")
        await runtime.names.warm()

        timer = ServerTimer(create_app(settings, runtime=runtime))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=timer), base_url="http://bench"
        ) as client:
            # compare, 10 packages, warm
            path = f"/api/compare/npm/{COMPARE_10}"
            first = await client.get(path)
            body = first.json()
            ok = sum(1 for p in body["packages"] if p["status"] == "ok")
            ms, status = await _timed(client, timer, [path], args.runs)
            p50 = percentile(ms, 50) or 0.0
            rows.append(
                Row(
                    "compare 10 npm packages, warm (server)",
                    _fmt(ms) + f", {ok}/10 reports",
                    "p50 <= 30 ms",
                    p50 <= 30 and status == 200,
                )
            )
            started = time.perf_counter()
            for _ in range(20):
                await k.compare.compare(Ecosystem.NPM, COMPARE_10)
            rows.append(
                Row(
                    "  CompareService.compare alone",
                    f"{(time.perf_counter() - started) / 20 * 1000:.2f} ms mean",
                )
            )

            for eco, queries in (("pypi", PYPI_QUERIES), ("npm", NPM_QUERIES)):
                paths = [f"/api/search/{eco}?q={q.replace(' ', '%20')}&limit=10" for q in queries]
                for p in paths:
                    await client.get(p)
                ms, status = await _timed(client, timer, paths, args.runs)
                p50 = percentile(ms, 50) or 0.0
                label = "index only" if eco == "pypi" else "index + cached registry search"
                rows.append(
                    Row(
                        f"search {eco} ({label}), {len(queries)} queries",
                        _fmt(ms),
                        "p50 <= 20 ms",
                        p50 <= 20 and status == 200,
                    )
                )
                extra[f"search_{eco}_sample"] = {
                    q: [h["name"] for h in (await client.get(p)).json()["results"][:5]]
                    for q, p in zip(queries, paths, strict=True)
                }

            for label, paths in (
                ("alternatives npm/request, warm", ["/api/alternatives/npm/request"]),
                (
                    "migration npm/request/axios (curated), warm",
                    ["/api/migration/npm/request/axios"],
                ),
                (
                    "breaking rubygems/business 1.17.0 → 2.3.0",
                    ["/api/breaking/rubygems/business?from_version=1.17.0&to_version=2.3.0"],
                ),
                ("bugs/search q=calendar", ["/api/bugs/search?q=calendar"]),
                ("popular npm limit=20", ["/api/popular?ecosystem=npm"]),
                ("trending", ["/api/trending"]),
            ):
                ms, status = await _timed(client, timer, paths, args.runs)
                rows.append(Row(label + f" (HTTP {status})", _fmt(ms)))

        started = time.perf_counter()
        for i in range(20000):
            k.usage.record(
                "api:/api/check/{ecosystem}/{package}",
                ecosystem="npm",
                package=f"p{i % 50}",
                user_agent="claude-code/1.0",
                client="c" * 32,
            )
        per = (time.perf_counter() - started) / 20000 * 1e6
        await k.usage.flush()
        rows.append(Row("usage log: record() per call (in-memory)", f"{per:.2f} µs"))
        started = time.perf_counter()
        for _ in range(5):
            for j in range(200):
                k.usage.record(
                    "api:/x", ecosystem="npm", package=f"p{j}", user_agent="x", client="c"
                )
            await k.usage.flush()
        rows.append(
            Row(
                "usage log: one batched write of 200 events",
                f"{(time.perf_counter() - started) / 5 * 1000:.2f} ms mean",
            )
        )
    return rows, extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--names-limit", type=int, default=0, help="rows per name list (0 = all)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--db", type=Path, help="SQLite file to use and keep (names loaded once)")
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default=default_loop)
    args = parser.parse_args()
    if not (args.shared / "names").is_dir():
        sys.exit(f"shared data not found at {args.shared}")
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-knowledge-"))
    try:
        rows, extra = run_loop(args, run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(render_table(rows))
    print(json.dumps({"machine": machine_info(), **extra}, indent=1))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / f"{time.strftime('%Y%m%dT%H%M%S')}-knowledge.json").write_text(
        json.dumps(
            {"rows": [r.__dict__ for r in rows], "machine": machine_info(), **extra}, indent=1
        )
    )


if __name__ == "__main__":
    main()
