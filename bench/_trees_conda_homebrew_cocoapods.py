"""
Conda, Homebrew and CocoaPods trees for `bench_graph.py` (issue 16 item 8).

The shared recordings hold one body per ecosystem (their dependencies answer 404), so each tree is
also run on a generated graph in the registry's own format: `GRAPH` packages of three versions,
each version depending on two later packages (conda match specs `>=1.0,<2.0a0` / `1.*`, `python`
and `__glibc` constraints that are skipped; CocoaPods `~> 1.0` requirements and one subspec
dependency; Homebrew plain names), and a root depending on ten. Cold = median of `--cold-runs` fresh
runtimes, warm = `--runs` calls on the cached tree, `--latency-ms` per registry call.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from _common import Row, percentile, tree_cold_and_warm

from pkgintel.config import Settings
from pkgintel.ecosystems.cocoapods import shard
from tests.fake_registry import ReplayRegistry, build

GRAPH = 30
VERSIONS = ("1.0.0", "1.1.0", "2.0.0")
ANACONDA = "https://api.anaconda.org/package/conda-forge"
BREW = "https://formulae.brew.sh/api/formula"
PODS = "https://cdn.cocoapods.org"

RECORDED = (
    # (ecosystem, package and query as in the URL): bodies of ../shared/data/registry-fixtures
    ("conda", "pytest?version=3.10.0"),
    ("homebrew", "abook"),
    ("cocoapods", "AppNetworkManager?version=1.0.0"),
)
GENERATED = (
    ("conda", "bench-c-root"),
    ("homebrew", "bench-b-root"),
    ("cocoapods", "BenchPodRoot"),
)


def _children(i: int) -> list[int]:
    return [j for j in (i + 1, i + 3) if j < GRAPH]


def generate(reg: ReplayRegistry) -> None:
    """The three generated graphs (see the module contract)."""
    _conda(reg)
    _brew(reg)
    _pods(reg)


def _conda(reg: ReplayRegistry) -> None:
    def body(name: str, depends: dict[str, list[str]]) -> dict[str, Any]:
        files = [
            {
                "version": v,
                "basename": f"noarch/{name}-{v}-pyh_0.conda",
                "upload_time": "2024-05-01 10:00:00.000000+00:00",
                "labels": ["main"],
                "ndownloads": 1,
                "attrs": {"subdir": "noarch", "depends": deps},
            }
            for v, deps in depends.items()
        ]
        return {
            "name": name,
            "versions": list(depends),
            "latest_version": list(depends)[-1],
            "releases": [
                {"version": v, "distributions": [f"noarch/{name}-{v}-pyh_0.conda"]} for v in depends
            ],
            "files": files,
            "license": "BSD-3-Clause",
        }

    for i in range(GRAPH):
        specs = [f"bench-c{j} >=1.0,<2.0a0" if j % 2 else f"bench-c{j} 1.*" for j in _children(i)]
        specs += ["python >=3.9", "__glibc >=2.17"]
        reg.add(f"{ANACONDA}/bench-c{i}", body(f"bench-c{i}", dict.fromkeys(VERSIONS, specs)))
    root = [f"bench-c{j} >=1.0,<2.0a0" for j in range(10)] + ["python >=3.10"]
    reg.add(f"{ANACONDA}/bench-c-root", body("bench-c-root", {"1.0.0": root}))


def _brew(reg: ReplayRegistry) -> None:
    def add(name: str, deps: list[str]) -> None:
        reg.add(
            f"{BREW}/{name}.json",
            {
                "name": name,
                "versions": {"stable": "1.0.0", "bottle": True},
                "license": "MIT",
                "dependencies": deps,
                "build_dependencies": ["pkgconf"],
                "uses_from_macos": ["zlib"],
            },
        )

    for i in range(GRAPH):
        add(f"bench-b{i}", [f"bench-b{j}" for j in _children(i)])
    add("bench-b-root", [f"bench-b{j}" for j in range(10)])


def _pods(reg: ReplayRegistry) -> None:
    shards: dict[tuple[str, str, str], list[str]] = {}

    def add(name: str, spec: dict[str, Any], versions: tuple[str, ...]) -> None:
        key = shard(name)
        shards.setdefault(key, []).append("/".join([name, *versions]))
        a, b, c = key
        reg.add(f"{PODS}/all_pods_versions_{a}_{b}_{c}.txt", "\n".join(shards[key]).encode())
        for v in versions:
            reg.add(
                f"{PODS}/Specs/{a}/{b}/{c}/{name}/{v}/{name}.podspec.json",
                {"name": name, "version": v, "license": "MIT", **spec},
            )

    for i in range(GRAPH):
        deps = {f"BenchPod{j}/Core" if j % 2 else f"BenchPod{j}": ["~> 1.0"] for j in _children(i)}
        spec = {
            "dependencies": deps,
            "default_subspecs": "Core",
            "subspecs": [{"name": "Core"}, {"name": "Extra", "dependencies": {"Never": []}}],
        }
        add(f"BenchPod{i}", spec, VERSIONS)
    add(
        "BenchPodRoot",
        {"dependencies": {f"BenchPod{j}": ["~> 1.0"] for j in range(10)}},
        ("1.0.0",),
    )


async def conda_homebrew_cocoapods_trees(
    args: argparse.Namespace,
    workdir: Path,
    extra: dict[str, Any],
    settings_for: Callable[[Path, str], Settings],
) -> list[Row]:
    """Recorded and generated trees of the three ecosystems, cold and warm."""
    reg = build(args.shared, latency_ms=args.latency_ms)
    generate(reg)
    transport = httpx.ASGITransport(app=reg.app)
    rows: list[Row] = []
    for eco, package in (*RECORDED, *GENERATED):
        colds, warm, body = await tree_cold_and_warm(
            transport,
            f"/api/tree/{eco}/{package}",
            lambda i, eco=eco, package=package: settings_for(
                workdir, f"{eco}-{package[:8]}-cold{i}.db"
            ),
            cold_runs=args.cold_runs,
            warm_runs=args.runs,
        )
        nodes = len(body.get("nodes", []))
        generated = (eco, package) in GENERATED
        extra[f"tree_{eco}{'_generated' if generated else ''}"] = {
            "root": body.get("root"),
            "nodes": nodes,
            "unresolved": len(body.get("unresolved", [])),
            "skipped": len(body.get("skipped", [])),
            "conflicts": len(body.get("conflicts", [])),
            "truncated": body.get("truncated"),
        }
        median = sorted(colds)[len(colds) // 2]
        target = 2000 if generated else 500
        rows.append(
            Row(
                f"tree cold, {eco} {body.get('root')} ({nodes} nodes"
                f"{', generated' if generated else ', recorded'}, "
                f"{args.latency_ms:g} ms/registry call)",
                f"median {median:.0f} ms of {len(colds)}",
                f"< {target:,} ms",
                median < target,
            )
        )
        p50 = percentile(warm, 50)
        p99 = percentile(warm, 99)
        rows.append(
            Row(
                f"tree warm, {eco} {body.get('root')} (cached tree)",
                f"p50 {p50 or 0:.1f} ms, p99 {p99 or 0:.1f} ms",
                "p50 < 10 ms",
                (p50 or 1e9) < 10,
            )
        )
    return rows
