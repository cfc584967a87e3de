"""
CPAN trees for `bench_graph.py` (issue 32 item 6).

The shared recordings hold one distribution (Dpkg, whose only runtime `requires` is perl), so the
tree is also run on a generated graph in MetaCPAN's own shapes (release documents, the version
search, module-index documents): `GRAPH` distributions `Bench-Cnn` of three releases, each
requiring another's main module in a range (`>= 1.0, < 2`), a third's *other* module at any
version (`Bench::Cnn::Util 0`: no distribution of that name, so the module index is asked), two
core modules (`strict`, `List::Util 1.45`: skipped, perl 5.36.0 ships them) and a test
prerequisite (skipped); the root requires ten. Cold = median of `--cold-runs` fresh runtimes, warm
= `--runs` calls on the cached tree, `--latency-ms` per registry call.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from _common import Row, percentile, tree_cold_and_warm

from pkgintel.config import Settings
from tests.api.test_tree_cpan import _prereq, dist
from tests.fake_registry import ReplayRegistry, build

GRAPH = 30
VERSIONS = ("1.000", "1.100", "2.000")
TREES = (("Dpkg", "recorded"), ("Bench-Croot", "generated"))


def generate(reg: ReplayRegistry) -> None:
    """The generated CPAN graph (see the module docstring)."""
    for i in range(GRAPH):
        a, b = (i * 3 + 1) % GRAPH, (i * 7 + 2) % GRAPH
        prereqs = [
            _prereq(f"Bench::C{a:02d}", ">= 1.0, < 2"),
            _prereq(f"Bench::C{b:02d}::Util", "0"),
            _prereq("strict", "0"),
            _prereq("List::Util", "1.45"),
            _prereq("Test::More", "0.98", phase="test"),
        ]
        dist(
            reg,
            f"Bench-C{i:02d}",
            dict.fromkeys(VERSIONS, prereqs),
            latest="2.000",
            main=f"Bench::C{i:02d}",
            provides=(f"Bench::C{i:02d}::Util",),
            modules=(f"Bench::C{i:02d}::Util",),
        )
    dist(
        reg,
        "Bench-Croot",
        {"1.0": [_prereq(f"Bench::C{i:02d}", "1.0") for i in range(10)]},
        latest="1.0",
        main="Bench::Croot",
    )


async def cpan_trees(
    args: argparse.Namespace,
    workdir: Path,
    extra: dict[str, Any],
    settings_for: Callable[[Path, str], Settings],
) -> list[Row]:
    """The recorded Dpkg and the generated tree, cold and warm."""
    reg = build(args.shared, latency_ms=args.latency_ms)
    generate(reg)
    transport = httpx.ASGITransport(app=reg.app)
    rows: list[Row] = []
    for package, kind in TREES:
        colds, warm, body = await tree_cold_and_warm(
            transport,
            f"/api/tree/cpan/{package}",
            lambda i, package=package: settings_for(workdir, f"cpan-{package}-cold{i}.db"),
            cold_runs=args.cold_runs,
            warm_runs=args.runs,
        )
        nodes = len(body.get("nodes", []))
        extra[f"tree_cpan_{kind}"] = {
            "root": body.get("root"),
            "nodes": nodes,
            "unresolved": len(body.get("unresolved", [])),
            "skipped": len(body.get("skipped", [])),
            "conflicts": len(body.get("conflicts", [])),
            "truncated": body.get("truncated"),
            "complete": body.get("complete"),
        }
        median = sorted(colds)[len(colds) // 2]
        target = 2000 if kind == "generated" else 500
        rows.append(
            Row(
                f"tree cold, cpan {body.get('root')} ({nodes} nodes, {kind}, "
                f"{args.latency_ms:g} ms/registry call)",
                f"median {median:.0f} ms of {len(colds)}",
                f"< {target:,} ms",
                median < target,
            )
        )
        p50, p99 = percentile(warm, 50), percentile(warm, 99)
        rows.append(
            Row(
                f"tree warm, cpan {body.get('root')} (cached tree)",
                f"p50 {p50 or 0:.1f} ms, p99 {p99 or 0:.1f} ms",
                "p50 < 10 ms",
                (p50 or 1e9) < 10,
            )
        )
    return rows
