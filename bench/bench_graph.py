"""
Benchmark of the dependency tree, the licences across it and the health history (issue 16, items
7-8): tree cold and warm for express, history reads over a year of snapshots, snapshot-job throughput.

Data:
* Registry bodies are real npm packuments. `--record DIR` fetches them once from registry.npmjs.org
  (the npm registry only) by letting the service resolve express's tree through a recording
  transport; later runs replay DIR (default `/tmp/pkgintel-bench-graph`, outside the repository)
  through `tests/fake_registry.py` with `--latency-ms` of artificial latency per request. Without
  a recording the shared npm-live express packument alone is replayed (its dependencies then answer
  404 and the tree stops at the first level; the figures say so).
* A temporary SQLite database (removed on exit); the OSV API fallback is off, so nothing leaves the
  process (each node's vulnerability status is "unavailable", which is what a node costs without
  ingested advisories: one database lookup).

Figures (server time through `httpx.ASGITransport`, `_common.ServerTimer`):
* tree cold: a fresh runtime per run (empty cache), `GET /api/tree/npm/express` (depth 3, 200 deps).
* tree, registry warm: package data cached, tree not (a new `max_deps` each call).
* tree warm: the cached tree (24 h entry).
* licences warm: `/api/licenses/npm/express?target=MIT` over the cached tree.
* history read: `/api/history/npm/<pkg>?days=365` with 365 snapshots of that package among
  `--history-packages` × 90 others.
* snapshot job: `HistoryService.run` over the tree's packages, cold (registry latency) and warm.
* other ecosystems: Composer `monolog/monolog` and NuGet `NuGet.Server.Core` trees on the recorded
  bodies of ../shared/data/registry-fixtures (no network), cold and warm.
* Go: minimal version selection over a generated module graph (`go_graph`; `--go-only` runs just
  this), cold and warm.
* Maven: scopes, exclusions, dependencyManagement and nearest-wins mediation over a generated POM
  graph (`maven_graph`; `--maven-only` runs just this), cold and warm.
* Conda, Homebrew, CocoaPods: recorded and generated trees (`_trees_conda_homebrew_cocoapods.py`; `--conda-homebrew-cocoapods-only` runs just
  these), cold and warm.
* JSR (with `npm:` imports), CRAN, Julia and Hackage: generated graphs (`jsr_cran_julia_hackage_graphs`) and the
  recorded readxl, cold and warm (`--jsr-cran-julia-hackage-only` runs just these).
* CPAN: the recorded Dpkg and a generated graph (`_trees_cpan.py`; `--cpan-only` runs just these),
  cold and warm.

Run: `.venv/bin/python bench/bench_graph.py [--record DIR] [--latency-ms 30] [--runs 200]`.
Nothing is asserted; figures go to stdout and `bench/results/<timestamp>-graph.json`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from _common import (
    REPO,
    Row,
    ServerTimer,
    machine_info,
    percentile,
    render_table,
    run_loop,
    tree_cold_and_warm,
)

sys.path.insert(0, str(REPO))

from _trees_conda_homebrew_cocoapods import conda_homebrew_cocoapods_trees
from _trees_cpan import cpan_trees

from pkgintel.app import create_app
from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.history import HealthSnapshot
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.storage.history import SqlHistoryStore
from pkgintel.storage.sql import create_engine
from tests.fake_registry import ReplayRegistry, build

DEFAULT_SHARED = REPO.parent / "shared" / "data"
DEFAULT_RECORDING = Path(tempfile.gettempdir()) / "pkgintel-bench-graph"
NPM = "https://registry.npmjs.org"


class Recorder(httpx.AsyncBaseTransport):
    """Sends to the real registry and keeps every 200 body of registry.npmjs.org."""

    def __init__(self, folder: Path) -> None:
        self.inner = httpx.AsyncHTTPTransport(retries=1)
        self.folder = folder
        self.index: list[dict[str, str]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host != "registry.npmjs.org":
            return httpx.Response(404, json={"error": "not recorded"}, request=request)
        response = await self.inner.handle_async_request(request)
        body = await response.aread()
        if response.status_code == 200:
            name = f"{len(self.index):04d}.json.gz"
            (self.folder / name).write_bytes(gzip.compress(body))
            self.index.append({"url": str(request.url), "file": name})
        return httpx.Response(response.status_code, content=body, request=request)


def _settings(workdir: Path, db: str, npm_url: str) -> Settings:
    return Settings(
        _env_file=None,
        database_url=f"sqlite+aiosqlite:///{workdir / db}",
        upstream_npm_url=npm_url,
        upstream_npm_downloads_url="http://registry.test/npm-downloads",
        upstream_pypi_url="http://registry.test/pypi",
        upstream_pypistats_url="http://registry.test/pypistats",
        upstream_pypi_files_url="http://registry.test/pypi-files",
        osv_api_fallback=False,
        usage_log_enabled=False,
        ip_hash_secret="bench-only-not-a-secret",  # noqa: S106
    )


async def record(folder: Path, workdir: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    recorder = Recorder(folder)
    settings = _settings(workdir, "record.db", NPM)
    async with build_runtime(settings, transport=recorder) as rt:
        assert rt.graph is not None
        tree = await rt.graph.trees.tree(Ecosystem.NPM, "express")
    (folder / "INDEX.json").write_text(json.dumps(recorder.index, indent=0))
    return len(tree.nodes)


def replay(folder: Path, shared: Path, latency_ms: float) -> tuple[ReplayRegistry, str]:
    reg = build(None, latency_ms=latency_ms)
    index = folder / "INDEX.json"
    if index.exists():
        for item in json.loads(index.read_text()):
            reg.add(item["url"], gzip.decompress((folder / item["file"]).read_bytes()))
        return reg, f"recorded transitive packuments ({len(reg.recordings)})"
    raw = (shared / "registry-fixtures/npm-live/registry.npmjs.org_express.json.gz").read_bytes()
    reg.add(f"{NPM}/express", gzip.decompress(raw))
    return reg, "shared npm-live express only (dependencies answer 404)"


def _ms(values: list[float]) -> str:
    p50, p99 = percentile(values, 50), percentile(values, 99)
    return f"p50 {p50:.1f} ms, p99 {p99:.1f} ms" if p50 is not None and p99 is not None else "-"


async def run(args: argparse.Namespace, workdir: Path) -> tuple[list[Row], dict[str, Any]]:
    reg, data = replay(args.record or DEFAULT_RECORDING, args.shared, args.latency_ms)
    transport = httpx.ASGITransport(app=reg.app)
    rows: list[Row] = []
    extra: dict[str, Any] = {"data": data, "latency_ms": args.latency_ms}

    # -- tree cold: a fresh runtime (empty cache, empty database) per run
    colds: list[float] = []
    nodes = 0
    for i in range(args.cold_runs):
        settings = _settings(workdir, f"cold{i}.db", "http://registry.test/npm")
        async with build_runtime(settings, transport=transport) as rt:
            timer = ServerTimer(create_app(settings, runtime=rt))
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=timer), base_url="http://bench"
            ) as client:
                body = (await client.get("/api/tree/npm/express")).json()
                assert timer.last is not None
                colds.append(timer.last * 1000)
                nodes = len(body["nodes"])
                extra["tree"] = {
                    "nodes": nodes,
                    "unresolved": len(body["unresolved"]),
                    "deepest": body["summary"]["deepest"],
                    "truncated": body["truncated"],
                }
    rows.append(
        Row(
            f"tree cold, express ({nodes} nodes, {args.latency_ms:g} ms/registry call)",
            f"median {sorted(colds)[len(colds) // 2]:.0f} ms of {len(colds)}",
            "< 2,000 ms",
            sorted(colds)[len(colds) // 2] < 2000,
        )
    )

    settings = _settings(workdir, "warm.db", "http://registry.test/npm")
    async with build_runtime(settings, transport=transport) as rt:
        assert rt.graph is not None
        timer = ServerTimer(create_app(settings, runtime=rt))
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=timer), base_url="http://bench"
        ) as client:
            await client.get("/api/tree/npm/express")
            # registry warm, tree not cached: another max_deps is another tree
            regwarm = []
            for i in range(min(args.runs, 50)):
                await client.get(f"/api/tree/npm/express?max_deps={1000 - i}")
                assert timer.last is not None
                regwarm.append(timer.last * 1000)
            rows.append(Row("tree, registry data cached, tree not", _ms(regwarm), "p50 < 150 ms"))
            rows[-1].met = (percentile(regwarm, 50) or 1e9) < 150
            warm = []
            for _ in range(args.runs):
                await client.get("/api/tree/npm/express")
                assert timer.last is not None
                warm.append(timer.last * 1000)
            rows.append(Row("tree warm (cached tree)", _ms(warm), "p50 < 10 ms"))
            rows[-1].met = (percentile(warm, 50) or 1e9) < 10
            lic = []
            for _ in range(args.runs):
                await client.get("/api/licenses/npm/express?target=MIT")
                assert timer.last is not None
                lic.append(timer.last * 1000)
            rows.append(Row("licences warm, target=MIT", _ms(lic), "p50 < 15 ms"))
            rows[-1].met = (percentile(lic, 50) or 1e9) < 15

            # -- history reads: 365 days of one package among many others
            engine = create_engine(settings.database_url)
            today = datetime.now(UTC).date()
            await _fill_history(SqlHistoryStore(engine), today, args.history_packages)
            await engine.dispose()
            hist = []
            for _ in range(args.runs):
                r = await client.get("/api/history/npm/pkg-0?days=365")
                assert r.json()["count"] == 365
                assert timer.last is not None
                hist.append(timer.last * 1000)
            rows.append(
                Row(
                    f"history read, 365 snapshots (table: {args.history_packages} x 90 + 365 rows)",
                    _ms(hist),
                    "p50 < 10 ms",
                )
            )
            rows[-1].met = (percentile(hist, 50) or 1e9) < 10

            # -- snapshot job over the tree's packages, registry data warm
            targets = [
                (Ecosystem.NPM, n["name"])
                for n in (await client.get("/api/tree/npm/express")).json()["nodes"]
            ]
            started = time.perf_counter()
            result = await rt.graph.history.run(targets)
            warm_s = time.perf_counter() - started
            rows.append(
                Row(
                    f"snapshot job, {result.recorded}/{result.packages} packages, data cached",
                    f"{result.packages / warm_s:.0f} packages/s",
                    "> 50 packages/s",
                    result.packages / warm_s > 50,
                )
            )

    # -- snapshot job cold: empty cache, every package fetched with the artificial latency
    settings = _settings(workdir, "jobcold.db", "http://registry.test/npm")
    async with build_runtime(settings, transport=transport) as rt:
        assert rt.graph is not None
        started = time.perf_counter()
        result = await rt.graph.history.run(targets)
        cold_s = time.perf_counter() - started
        rows.append(
            Row(
                f"snapshot job, {result.recorded}/{result.packages} packages, cold",
                f"{result.packages / cold_s:.1f} packages/s ({cold_s:.1f} s)",
                "> 10 packages/s",
                result.packages / cold_s > 10,
            )
        )
    rows.extend(await other_ecosystems(args, workdir, extra))
    rows.extend(await go_tree(args, workdir, extra))
    rows.extend(await maven_tree(args, workdir, extra))
    rows.extend(await conda_homebrew_cocoapods_trees(args, workdir, extra, _other_settings))
    rows.extend(await jsr_cran_julia_hackage_trees(args, workdir, extra))
    rows.extend(await cpan_trees(args, workdir, extra, _other_settings))
    return rows, extra


OTHER_TREES = (
    # (ecosystem, package as in the URL): recorded bodies of ../shared/data/registry-fixtures
    ("composer", "monolog%2Fmonolog"),
    ("nuget", "NuGet.Server.Core"),
)


async def other_ecosystems(
    args: argparse.Namespace, workdir: Path, extra: dict[str, Any]
) -> list[Row]:
    """Trees of the other ecosystems on the shared recorded registry bodies (no network), cold
    (median of `--cold-runs` fresh runtimes) and warm (the cached tree)."""
    reg = build(args.shared, latency_ms=args.latency_ms)
    transport = httpx.ASGITransport(app=reg.app)
    rows: list[Row] = []
    for eco, package in OTHER_TREES:
        colds, warm, body = await tree_cold_and_warm(
            transport,
            f"/api/tree/{eco}/{package}",
            lambda i, eco=eco: _other_settings(workdir, f"{eco}-cold{i}.db"),
            cold_runs=args.cold_runs,
            warm_runs=args.runs,
        )
        nodes = len(body.get("nodes", []))
        extra[f"tree_{eco}"] = {
            "root": body.get("root"),
            "nodes": nodes,
            "unresolved": len(body.get("unresolved", [])),
            "skipped": len(body.get("skipped", [])),
        }
        median = sorted(colds)[len(colds) // 2]
        rows.append(
            Row(
                f"tree cold, {eco} {body.get('root')} ({nodes} nodes, "
                f"{args.latency_ms:g} ms/registry call)",
                f"median {median:.0f} ms of {len(colds)}",
                "< 500 ms",
                median < 500,
            )
        )
        rows.append(Row(f"tree warm, {eco} (cached tree)", _ms(warm), "p50 < 10 ms"))
        rows[-1].met = (percentile(warm, 50) or 1e9) < 10
    return rows


GO_MODULES = 30
GO_PROXY = "https://proxy.golang.org"


def go_graph(reg: ReplayRegistry) -> None:
    """A generated Go module graph (no recording holds one): `example.com/bench/mNN`, 30 modules
    of three versions each whose go.mods require two others at varying minimums, so MVS reads many
    unselected versions and raises selections; the root (go 1.16: unpruned) requires ten."""

    def path(i: int) -> str:
        return f"example.com/bench/m{i:02d}"

    def publish(mod: str, versions: dict[str, list[tuple[str, str]]], go: str = "1.16") -> None:
        reg.add(f"{GO_PROXY}/{mod}/@v/list", "\n".join(versions).encode())
        reg.add(f"{GO_PROXY}/{mod}/@latest", {"Version": list(versions)[-1]})
        for v, reqs in versions.items():
            lines = "".join(f"require {p} {rv}\n" for p, rv in reqs)
            reg.add(f"{GO_PROXY}/{mod}/@v/{v}.mod", f"module {mod}\n\ngo {go}\n\n{lines}".encode())

    for i in range(GO_MODULES):
        publish(
            path(i),
            {
                f"v1.{k}.0": [
                    (path((i * 3 + 1) % GO_MODULES), f"v1.{k}.0"),
                    (path((i * 7 + 2) % GO_MODULES), f"v1.{(i + k) % 3}.0"),
                ]
                for k in range(3)
            },
        )
    publish("example.com/bench/root", {"v1.0.0": [(path(i), "v1.0.0") for i in range(10)]})


async def _generated_tree(
    args: argparse.Namespace,
    workdir: Path,
    publish_graph: Callable[[ReplayRegistry], None],
    url: str,
    label: str,
) -> tuple[list[float], list[float], dict[str, Any]]:
    """`tree_cold_and_warm` of `url` over a replay registry `publish_graph` filled with a
    generated graph (each cold run on a fresh `<label>-cold<i>.db`)."""
    reg = build(None, latency_ms=args.latency_ms)
    publish_graph(reg)
    return await tree_cold_and_warm(
        httpx.ASGITransport(app=reg.app),
        url,
        lambda i: _other_settings(workdir, f"{label}-cold{i}.db"),
        cold_runs=args.cold_runs,
        warm_runs=args.runs,
    )


async def go_tree(args: argparse.Namespace, workdir: Path, extra: dict[str, Any]) -> list[Row]:
    """The generated Go graph by minimal version selection, cold and warm."""
    url = "/api/tree/go/example.com/bench/root"
    colds, warm, body = await _generated_tree(args, workdir, go_graph, url, "go")
    nodes = len(body.get("nodes", []))
    versions_read = sum(len(n.get("minimums", [])) for n in body.get("nodes", []))
    extra["tree_go"] = {"nodes": nodes, "minimums": versions_read, "complete": body.get("complete")}
    median = sorted(colds)[len(colds) // 2]
    return [
        Row(
            f"tree cold, Go MVS, generated graph ({nodes} nodes, {versions_read} requirements, "
            f"{args.latency_ms:g} ms/registry call)",
            f"median {median:.0f} ms of {len(colds)}",
            "< 2,000 ms",
            median < 2000,
        ),
        Row(
            "tree warm, Go (cached tree)",
            _ms(warm),
            "p50 < 10 ms",
            (percentile(warm, 50) or 1e9) < 10,
        ),
    ]


MAVEN_ARTIFACTS = 40
CENTRAL = "https://repo.maven.apache.org/maven2"


def maven_graph(reg: ReplayRegistry) -> None:
    """A generated Maven graph (no recording holds one): `org.bench:aNN`, 40 artifacts of three
    versions whose POMs inherit `org.bench:bench-parent:1` (one more request per POM, a property
    and dependencyManagement) and declare a compile dependency at a soft version (with an
    exclusion), a runtime one by range, a managed versionless one, a test and an optional one — so
    mediation omits many declarations; the root declares ten and manages one transitive version."""

    def coords(i: int) -> str:
        return f"a{i % MAVEN_ARTIFACTS:02d}"

    def xml_dep(a: str, v: str | None = None, extra: str = "") -> str:
        version = f"<version>{v}</version>" if v else ""
        return f"<dependency><groupId>org.bench</groupId><artifactId>{a}</artifactId>{version}{extra}</dependency>"

    def publish(a: str, versions: dict[str, str], parent: bool = True) -> None:
        base = f"{CENTRAL}/org/bench/{a}"
        listed = "".join(f"<version>{v}</version>" for v in versions)
        reg.add(
            f"{base}/maven-metadata.xml",
            f"<metadata><versioning><release>{list(versions)[-1]}</release><versions>{listed}"
            "</versions></versioning></metadata>".encode(),
        )
        head = (
            "<parent><groupId>org.bench</groupId><artifactId>bench-parent</artifactId>"
            "<version>1</version></parent>"
            if parent
            else "<groupId>org.bench</groupId>"
        )
        for v, body in versions.items():
            reg.add(
                f"{base}/{v}/{a}-{v}.pom",
                f"<project>{head}<artifactId>{a}</artifactId><version>{v}</version>{body}</project>".encode(),
            )

    reg.add(
        f"{CENTRAL}/org/bench/bench-parent/1/bench-parent-1.pom",
        (
            "<project><groupId>org.bench</groupId><artifactId>bench-parent</artifactId><version>1</version>"
            "<licenses><license><name>Apache License, Version 2.0</name></license></licenses>"
            "<properties><bench.version>1.1</bench.version></properties>"
            f"<dependencyManagement><dependencies>{xml_dep('a39', '${bench.version}')}"
            "</dependencies></dependencyManagement></project>"
        ).encode(),
    )
    for i in range(MAVEN_ARTIFACTS):
        publish(
            coords(i),
            {
                f"1.{k}": "<dependencies>"
                + xml_dep(
                    coords(i * 3 + 1),
                    f"1.{k}",
                    "<exclusions><exclusion><groupId>org.bench</groupId>"
                    f"<artifactId>{coords(i * 5 + 3)}</artifactId></exclusion></exclusions>",
                )
                + xml_dep(coords(i * 7 + 2), "[1.0,1.2)", "<scope>runtime</scope>")
                + xml_dep("a39")
                + xml_dep(coords(i + 11), "1.0", "<scope>test</scope>")
                + xml_dep(coords(i + 13), "1.0", "<optional>true</optional>")
                + "</dependencies>"
                for k in range(3)
            },
        )
    publish(
        "root",
        {
            "1.0": "<dependencyManagement><dependencies>"
            + xml_dep(coords(5), "1.0")
            + "</dependencies></dependencyManagement><dependencies>"
            + "".join(xml_dep(coords(i), "1.2") for i in range(10))
            + "</dependencies>"
        },
        parent=False,
    )


async def maven_tree(args: argparse.Namespace, workdir: Path, extra: dict[str, Any]) -> list[Row]:
    """The generated Maven graph, cold and warm."""
    url = "/api/tree/maven/org.bench:root"
    colds, warm, body = await _generated_tree(args, workdir, maven_graph, url, "maven")
    nodes = len(body.get("nodes", []))
    omitted = len(body.get("conflicts", []))
    extra["tree_maven"] = {
        "nodes": nodes,
        "omitted": omitted,
        "skipped": len(body.get("skipped", [])),
        "unresolved": len(body.get("unresolved", [])),
        "complete": body.get("complete"),
        "truncated": body.get("truncated"),
    }
    median = sorted(colds)[len(colds) // 2]
    return [
        Row(
            f"tree cold, Maven, generated graph ({nodes} nodes, {omitted} declarations omitted by "
            f"mediation, {args.latency_ms:g} ms/registry call)",
            f"median {median:.0f} ms of {len(colds)}",
            "< 2,000 ms",
            median < 2000,
        ),
        Row(
            "tree warm, Maven (cached tree)",
            _ms(warm),
            "p50 < 10 ms",
            (percentile(warm, 50) or 1e9) < 10,
        ),
    ]


TREES_A_PACKAGES = 20


def jsr_cran_julia_hackage_graphs(reg: ReplayRegistry) -> None:
    """Generated JSR (with npm imports), CRAN, Julia and Hackage graphs in each registry's own format (the
    recordings hold no multi-level tree of these): 20 packages of three versions, each requiring
    two others, and a root requiring ten; CRAN and Julia nodes also name R base packages and
    Julia standard libraries, Hackage nodes `base` and a Windows-only dependency (skipped)."""
    from tests.api.test_graph_api import packument
    from tests.api.test_tree_jsr_cran_julia import cran, hackage, jsr, julia

    n = TREES_A_PACKAGES
    for i in range(n):
        a, b = (i * 3 + 1) % n, (i * 7 + 2) % n
        imports = [f"jsr:@bench/p{a:02d}@^1.0.0", f"jsr:@bench/p{b:02d}@^1.1.0"]
        jsr(reg, f"@bench/p{i:02d}", {"1.0.0": imports, "1.1.0": imports, "2.0.0": []}, "2.0.0")
        reg.add(
            f"{NPM}/bench-n{i:02d}",
            packument(
                f"bench-n{i:02d}",
                {"1.0.0": {"dependencies": {f"bench-n{a:02d}": "^1.0.0"}}, "2.0.0": {}},
                "2.0.0",
            ),
        )
        cran(
            reg,
            f"benchR{i:02d}",
            "1.2.0",
            archived=("1.0.0", "1.1.0"),
            imports=f"methods, benchR{a:02d} (>= 1.0.0), benchR{b:02d}",
        )
        julia(
            reg,
            f"BenchJ{i:02d}",
            {
                v: {f"BenchJ{a:02d}": "1", f"BenchJ{b:02d}": "1.1-1", "LinearAlgebra": ""}
                for v in ("1.0.0", "1.1.0", "2.0.0")
            },
        )
        hackage(
            reg,
            f"bench-h{i:02d}",
            dict.fromkeys(
                ("1.0.0", "1.1.0", "2.0.0"),
                f"  build-depends: base >=4 && <5, bench-h{a:02d} ^>=1.1, bench-h{b:02d} >=1.0\n"
                "  if os(windows)\n    build-depends: Win32\n",
            ),
        )
    root = [f"jsr:@bench/p{i:02d}@^1.0.0" for i in range(10)]
    jsr(reg, "@bench/root", {"1.0.0": [*root, "npm:bench-n00@^1.0.0"]}, "1.0.0")
    cran(reg, "benchRroot", "1.0.0", imports=", ".join(f"benchR{i:02d}" for i in range(10)))
    julia(reg, "BenchJroot", {"1.0.0": {f"BenchJ{i:02d}": "1" for i in range(10)}})
    deps = ", ".join(f"bench-h{i:02d} >=1.0" for i in range(10))
    hackage(reg, "bench-hroot", {"1.0.0": f"  build-depends: base, {deps}\n"})


TREES_A = (
    ("jsr", "@bench/root"),
    ("cran", "benchRroot"),
    ("julia", "BenchJroot"),
    ("hackage", "bench-hroot"),
    ("cran", "readxl"),  # the recorded readxl 1.4.5 (its dependencies are not recorded)
)


async def jsr_cran_julia_hackage_trees(
    args: argparse.Namespace, workdir: Path, extra: dict[str, Any]
) -> list[Row]:
    """JSR, CRAN, Julia and Hackage trees (generated graphs and the recorded readxl), cold and
    warm."""
    reg = build(args.shared, latency_ms=args.latency_ms)
    jsr_cran_julia_hackage_graphs(reg)
    transport = httpx.ASGITransport(app=reg.app)
    rows: list[Row] = []
    for eco, package in TREES_A:
        url = f"/api/tree/{eco}/{package}"
        colds, warm, body = await tree_cold_and_warm(
            transport,
            url,
            lambda i, eco=eco, package=package: _other_settings(
                workdir, f"{eco}-{package[-4:]}-cold{i}.db"
            ),
            cold_runs=args.cold_runs,
            warm_runs=args.runs,
        )
        nodes = len(body.get("nodes", []))
        extra[f"tree_{eco}_{package}"] = {
            "nodes": nodes,
            "unresolved": len(body.get("unresolved", [])),
            "skipped": len(body.get("skipped", [])),
            "conflicts": len(body.get("conflicts", [])),
            "complete": body.get("complete"),
        }
        median = sorted(colds)[len(colds) // 2]
        rows.append(
            Row(
                f"tree cold, {eco} {package} ({nodes} nodes, {args.latency_ms:g} ms/registry call)",
                f"median {median:.0f} ms of {len(colds)}",
                "< 2,000 ms",
                median < 2000,
            )
        )
        rows.append(
            Row(
                f"tree warm, {eco} {package} (cached tree)",
                _ms(warm),
                "p50 < 10 ms",
                (percentile(warm, 50) or 1e9) < 10,
            )
        )
    return rows


def _other_settings(workdir: Path, db: str) -> Settings:
    return _settings(workdir, db, "http://registry.test/npm").model_copy(
        update={
            "upstream_packagist_repo_url": "http://registry.test/packagist-repo",
            "upstream_packagist_url": "http://registry.test/packagist",
            "upstream_nuget_url": "http://registry.test/nuget",
            "upstream_nuget_search_url": "http://registry.test/nuget-search",
            "upstream_goproxy_url": "http://registry.test/goproxy",
            "upstream_pkgsite_url": "http://registry.test/pkgsite",
            "upstream_maven_url": "http://registry.test/maven/maven2",
            "upstream_depsdev_url": "http://registry.test/depsdev",
            "upstream_conda_url": "http://registry.test/anaconda",
            "upstream_homebrew_url": "http://registry.test/homebrew",
            "upstream_cocoapods_url": "http://registry.test/cocoapods",
            "upstream_jsr_url": "http://registry.test/jsr",
            "upstream_jsr_api_url": "http://registry.test/jsr-api",
            "upstream_cran_ppm_url": "http://registry.test/ppm/__api__/repos/2",
            "upstream_cran_url": "http://registry.test/cran",
            "upstream_cranlogs_url": "http://registry.test/cranlogs",
            "upstream_julia_url": "http://registry.test/raw-github/JuliaRegistries/General/master",
            "upstream_juliahub_url": "http://registry.test/juliahub",
            "upstream_hackage_url": "http://registry.test/hackage",
            "upstream_cpan_url": "http://registry.test/cpan",
        }
    )


async def _fill_history(store: SqlHistoryStore, today: date, others: int) -> None:
    def snap(pkg: str, day: date, score: int) -> HealthSnapshot:
        return HealthSnapshot(
            ecosystem="npm",
            package=pkg,
            day=day,
            display_name=pkg,
            recorded_at=datetime.combine(day, datetime.min.time(), UTC),
            score=score,
            risk="low",
            breakdown={"maintenance": 20, "security": 25, "_unscored": []},
            vulnerabilities={"status": "complete", "critical": 0, "high": 0, "total": 0},
            latest_version="1.0.0",
        )

    for d in range(365):
        await store.save(snap("pkg-0", today - timedelta(days=d), 70 + d % 7))
    for p in range(1, others + 1):
        for d in range(90):
            await store.save(snap(f"pkg-{p}", today - timedelta(days=d), 80))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--record", type=Path, help="folder of recorded packuments to use")
    parser.add_argument(
        "--fetch", action="store_true", help="fetch the recording from registry.npmjs.org first"
    )
    parser.add_argument("--latency-ms", type=float, default=30.0)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--history-packages", type=int, default=100)
    parser.add_argument("--go-only", action="store_true", help="only the Go MVS tree")
    parser.add_argument("--maven-only", action="store_true", help="only the Maven tree")
    parser.add_argument(
        "--conda-homebrew-cocoapods-only",
        action="store_true",
        help="only the conda, Homebrew and CocoaPods trees",
    )
    parser.add_argument(
        "--jsr-cran-julia-hackage-only",
        action="store_true",
        help="only the JSR, CRAN, Julia and Hackage trees",
    )
    parser.add_argument("--cpan-only", action="store_true", help="only the CPAN trees")
    try:
        import uvloop  # noqa: F401

        default_loop = "uvloop"
    except ImportError:
        default_loop = "asyncio"
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default=default_loop)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="pkgintel-bench-graph-"))
    try:
        if args.fetch:
            folder = args.record or DEFAULT_RECORDING
            n = run_loop(args, record(folder, workdir))
            print(f"recorded the express tree ({n} nodes) into {folder}")
        if args.go_only:
            extra: dict[str, Any] = {}
            rows = run_loop(args, go_tree(args, workdir, extra))
        elif args.maven_only:
            extra = {}
            rows = run_loop(args, maven_tree(args, workdir, extra))
        elif args.conda_homebrew_cocoapods_only:
            extra = {}
            rows = run_loop(
                args, conda_homebrew_cocoapods_trees(args, workdir, extra, _other_settings)
            )
        elif args.jsr_cran_julia_hackage_only:
            extra = {}
            rows = run_loop(args, jsr_cran_julia_hackage_trees(args, workdir, extra))
        elif args.cpan_only:
            extra = {}
            rows = run_loop(args, cpan_trees(args, workdir, extra, _other_settings))
        else:
            rows, extra = run_loop(args, run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(render_table(rows))
    print(json.dumps({"machine": machine_info(), **extra}, indent=1))
    out = REPO / "bench" / "results"
    out.mkdir(exist_ok=True)
    (out / f"{time.strftime('%Y%m%dT%H%M%S')}-graph.json").write_text(
        json.dumps(
            {"rows": [r.__dict__ for r in rows], "machine": machine_info(), **extra}, indent=1
        )
    )


if __name__ == "__main__":
    main()
