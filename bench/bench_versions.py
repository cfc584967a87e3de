"""
Figures for version semantics (issue 20): range evaluation (npm and PEP 440 grammars), listed-
version matching by ecosystem equality, and lockfile parsing throughput over the peer fixtures
of `../shared/data/peer-suites/osv-lockfiles` (read in place). Prints a table; asserts nothing.

    .venv/bin/python bench/bench_versions.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from _common import REPO, Row, machine_info, render_table

sys.path.insert(0, str(REPO / "src"))

from pkgintel.domain.advisories import Advisory, Affected
from pkgintel.domain.errors import LockfileError
from pkgintel.domain.matching import affects
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import parse_range
from pkgintel.lockfiles import parse_lockfile

SHARED = Path(os.environ.get("PKGINTEL_SHARED_DATA", REPO.parent / "shared" / "data"))
NPM_RANGES = ["^1.2.3", "~1.2 || >=2.0.0 <2.5.0", "1.x", ">=4.0.0 <4.17.0", "1.0.0 - 2.3.4"]
PEP440_RANGES = [">=1.0,<2.0", "~=1.4", "==2.*,!=2.0.1", ">=1.0a1", "<3,>1.5,!=2.0"]
NPM_VERSIONS = [f"{a}.{b}.{c}" for a in range(5) for b in range(10) for c in range(4)] + [
    "1.2.4-beta.1",
    "2.0.0-rc.1",
]
PYPI_VERSIONS = [f"{a}.{b}" for a in range(4) for b in range(20)] + ["1.5a1", "2.0.post1", "1!1.0"]


def _per_second(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}/s ({seconds / n * 1e6:.2f} µs each)"


def _time(fn: object, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def _parses(text: str, kind: str) -> bool:
    try:
        parse_lockfile(text, kind=kind)
    except LockfileError:
        return False
    return True


def _generated_lockfiles(n: int) -> dict[str, str]:
    """`n` entries of each of Package.resolved (v2), Podfile.lock and cpanfile.snapshot, written in
    each tool's format (no shared sample of these kinds exists; the shapes follow the test inputs)."""
    pins = [
        {
            "identity": f"lib{i}",
            "kind": "remoteSourceControl",
            "location": f"https://github.com/owner{i % 50}/lib{i}.git",
            "state": {"revision": f"{i:040x}", "version": f"{i % 7}.{i % 11}.{i % 5}"},
        }
        for i in range(n)
    ]
    resolved = json.dumps({"pins": pins, "version": 2}, indent=2)
    pods = ["PODS:"]
    for i in range(n):
        pods.append(f"  - Pod{i}/Core ({i % 9}.{i % 4}.0):")
        pods.append(f"    - Pod{(i + 1) % n}/Core (~> {(i + 1) % 9}.0)")
    pods += ["", "DEPENDENCIES:", *(f"  - Pod{i}/Core" for i in range(0, n, 10))]
    pods += [
        "",
        "SPEC REPOS:",
        "  trunk:",
        *(f"    - Pod{i}" for i in range(n)),
        "",
        "COCOAPODS: 1.15.2",
    ]
    carton = ["# carton snapshot format: version 1.0", "DISTRIBUTIONS"]
    for i in range(n):
        version = f"{i % 9}.{i:04d}"
        carton += [
            f"  Dist{i}-Name-{version}",
            f"    pathname: A/AU/AUTHOR/Dist{i}-Name-{version}.tar.gz",
            "    provides:",
            f"      Dist{i}::Name {version}",
            "    requirements:",
            f"      Dist{(i + 1) % n}::Name 0",
            "      perl 5.008001",
        ]
    return {
        "Package.resolved": resolved,
        "Podfile.lock": "\n".join(pods) + "\n",
        "cpanfile.snapshot": "\n".join(carton) + "\n",
    }


def _swift_cocoapods_cpan_rows(rounds: int, n: int = 5_000) -> list[Row]:
    rows: list[Row] = []
    for kind, text in _generated_lockfiles(n).items():
        packages = len(parse_lockfile(text, kind=kind).packages)
        seconds = _time(lambda t=text, k=kind: parse_lockfile(t, kind=k), rounds)
        rows.append(
            Row(
                f"lockfile parse: {kind}, {packages:,} generated entries, {len(text) / 1024:.0f} KiB",
                f"{seconds * 1000:.1f} ms; {packages / seconds:,.0f} packages/s",
                ">= 10,000 packages/s",
                packages / seconds >= 10_000,
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="best of N rounds")
    args = parser.parse_args()
    rows: list[Row] = []

    for eco, texts, versions in (
        (Ecosystem.NPM, NPM_RANGES, NPM_VERSIONS),
        (Ecosystem.PYPI, PEP440_RANGES, PYPI_VERSIONS),
    ):
        parsed = [parse_range(eco, t) for t in texts]
        n = len(parsed) * len(versions)
        seconds = _time(
            lambda p=parsed, v=versions: [r.contains(x) for r in p for x in v], args.rounds
        )
        rows.append(
            Row(
                f"{eco.value} range contains (parsed once)",
                _per_second(n, seconds),
                "< 10 µs",
                seconds / n < 10e-6,
            )
        )
        seconds = _time(lambda e=eco, t=texts: [parse_range(e, x) for x in t * 20], args.rounds)
        rows.append(
            Row(
                f"{eco.value} range parse",
                _per_second(len(texts) * 20, seconds),
                "< 50 µs",
                seconds / (len(texts) * 20) < 50e-6,
            )
        )

    listed = frozenset(f"2.{i}" for i in range(200))
    adv = Advisory(
        id="B-1",
        source="bench",
        affected=(Affected("PyPI", Ecosystem.PYPI, "pkg", "pkg", (), listed),),
    )
    queries = [f"2.{i}.0" for i in range(400)]
    seconds = _time(lambda: [affects(adv, Ecosystem.PYPI, q, "pkg") for q in queries], args.rounds)
    rows.append(
        Row(
            "listed versions (200) matched by PEP 440 equality",
            _per_second(len(queries), seconds),
            "< 10 µs",
            seconds / len(queries) < 10e-6,
        )
    )

    root = SHARED / "peer-suites" / "osv-lockfiles"
    if (root / "expectations.json").is_file():
        cases = json.loads((root / "expectations.json").read_text())["cases"]
        inputs = [
            ((root / c["file"]).read_text(encoding="utf-8", errors="replace"), c["kind"])
            for c in cases
            if not c["expect_error"]
        ]
        inputs = [(t, k) for t, k in inputs if _parses(t, k)]
        size = sum(len(t) for t, _ in inputs)

        def parse_all() -> int:
            return sum(len(parse_lockfile(t, kind=k).packages) for t, k in inputs)

        packages = parse_all()
        seconds = _time(parse_all, args.rounds)
        rows.append(
            Row(
                f"lockfile parse: {len(inputs)} valid peer fixtures, {packages} packages, {size / 1024:.0f} KiB",
                f"{seconds * 1000:.1f} ms; {packages / seconds:,.0f} packages/s; "
                f"{size / seconds / 1e6:.1f} MB/s",
                ">= 10,000 packages/s",
                packages / seconds >= 10_000,
            )
        )
    else:
        rows.append(Row("lockfile parse", f"skipped: {root} not found"))
    rows.extend(_swift_cocoapods_cpan_rows(args.rounds))
    print(render_table(rows))
    info = machine_info()
    print(
        f"\nmachine: {info['cpu_model']} ({info['nproc']} cpus), python {info['python']}, "
        f"commit {info['git_commit']}, load {info['loadavg_at_end']}"
    )


if __name__ == "__main__":
    main()
