"""
Figures for the range grammars of Cargo, RubyGems, Maven, NuGet, Composer, Pub, Hex, Hackage and
conda (`domain/ranges/`): parsing a native constraint, and testing versions against a parsed one with
the ecosystem's ordering (the `sort_key` cache is cleared before each round, so every version is
read afresh). Prints a table; asserts nothing.

    .venv/bin/python bench/bench_ranges.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from _common import REPO, Row, machine_info, render_table

sys.path.insert(0, str(REPO / "src"))

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import VersionRange, parse_range
from pkgintel.domain.versions import scheme_sort_key, sort_key

RANGES = {
    Ecosystem.CARGO: ["1.2", ">=0.5.1-alpha3, <0.6", "~1.2.3", "1.*", "^0.0.3"],
    Ecosystem.RUBYGEMS: ["~> 1.4.4", ">= 1.4, < 2, != 1.5", "~> 1.4.0.beta", "= 1.2", "> 0"],
    Ecosystem.MAVEN: ["[1.0,2.0)", "(,1.0],[1.2,)", "[1.5]", "1.0", "[1.0,1.2],[1.3,1.5]"],
    Ecosystem.NUGET: ["1.0", "[1.0,2.0)", "(,2.0.0-beta]", "[1.2]", "(1.2,2.3]"],
    Ecosystem.COMPOSER: ["^1.2.3", "~1.2 || >=2.0 <2.5", "1.0 - 2.0", "2.*", "^1.0@beta"],
    Ecosystem.PUB: ["^1.2.3", ">=1.0.0 <2.0.0", "any", "^0.7.2", ">1.0.0 >=1.2.3 <1.3.0"],
    Ecosystem.HEX: ["~> 2.0", "~> 2.0.1", "> 0.9.0 and < 0.10.0", "1.0.0 or 1.1.0", "== 2.3.0"],
    Ecosystem.HACKAGE: ["^>= 2.1", ">= 1.2 && < 1.3", "== 1.2.*", "== { 1.2, 1.4 }", "< 3 || > 4"],
    Ecosystem.CONDA: [">=1.2,<2", "1.7.*|1.8.*", "=1.2", "~=1.4.2", "1.*.1"],
}
VERSIONS = [f"{a}.{b}.{c}" for a in range(4) for b in range(10) for c in range(5)] + [
    "1.4.0-beta.1",
    "2.0.0-rc.1",
]


def _per_second(n: int, seconds: float) -> str:
    return f"{n / seconds:,.0f}/s ({seconds / n * 1e6:.2f} µs each)"


def _time(fn: Callable[[], object], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        sort_key.cache_clear()
        scheme_sort_key.cache_clear()
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="best of N rounds")
    args = parser.parse_args()
    rows: list[Row] = []
    for eco, texts in RANGES.items():
        parsed = [parse_range(eco, t) for t in texts]
        n = len(parsed) * len(VERSIONS)

        def contains_all(p: list[VersionRange] = parsed) -> object:
            return [r.contains(v) for r in p for v in VERSIONS]

        seconds = _time(contains_all, args.rounds)
        rows.append(
            Row(
                f"{eco.value} contains (parsed once)",
                _per_second(n, seconds),
                "< 10 µs",
                seconds / n < 10e-6,
            )
        )
        m = len(texts) * 20

        def parse_all(e: Ecosystem = eco, t: list[str] = texts) -> object:
            return [parse_range(e, x) for x in t * 20]

        seconds = _time(parse_all, args.rounds)
        rows.append(
            Row(f"{eco.value} parse", _per_second(m, seconds), "< 50 µs", seconds / m < 50e-6)
        )
    print(render_table(rows))
    info = machine_info()
    print(
        f"\nmachine: {info['cpu_model']} ({info['nproc']} cpus), python {info['python']}, "
        f"commit {info['git_commit']}, load {info['loadavg_at_end']}"
    )


if __name__ == "__main__":
    main()
