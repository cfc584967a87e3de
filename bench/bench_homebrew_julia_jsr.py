"""
Cold and warm `/api/check` for Homebrew, Julia and JSR against the replay registry.

The method is `_check_bench.py`'s: the upstreams are
`tests/fake_registry.py` in a subprocess replaying `../shared/data/registry-fixtures` with
`--latency-ms` (default 50) on every request; **cold** runs through a service that caches nothing
and checks each answer is a 200 `_cache: miss`, timing alone every upstream request one report makes
(`UPSTREAMS`, target: cold <= slowest single call + 20 ms, or the dependent pair + 20 ms where a
request can only follow another). Because a Julia report sends six requests at once, the same
requests are also timed all at once, and the cold figure is shown against that floor too (the
larger of it and the dependent pair): on a shared two-core machine six concurrent requests cost
more than the slowest one alone. **warm** is the same path from the in-process cache (<= 5 ms).

- `homebrew/abook`: one formula document.
- `julia/Inequality`: the four registry files and JuliaHub's two documents at once; no
  `Versions.toml` is recorded, so `Registry.toml` (about 1 MB) is read to tell "not mirrored" from
  "no such package" — once, then kept by the adapter for an hour (the first cold round pays it,
  p99 shows it).
- `jsr/@std/path`: `meta.json` and the api.jsr.io document at once, then the latest version's
  `_meta.json` (named by `meta.json`: the dependent pair).
- `npm/lodash` as the baseline measured in the same run.

Prints a table and writes `bench/results/<timestamp>-homebrew-julia-jsr.json`; asserts nothing.
Run: `.venv/bin/python bench/bench_homebrew_julia_jsr.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
"""

from __future__ import annotations

from _check_bench import BASELINE_UPSTREAMS, CheckBench, main

_JL = "/raw-github/JuliaRegistries/General/master"
BENCH = CheckBench(
    name="homebrew-julia-jsr",
    fixture="jsr",
    packages=(
        ("npm", "lodash"),
        ("homebrew", "abook"),
        ("julia", "Inequality"),
        ("jsr", "@std/path"),
    ),
    upstreams={
        "npm/lodash": BASELINE_UPSTREAMS["npm/lodash"],
        "homebrew/abook": ("/homebrew/api/formula/abook.json",),
        "julia/Inequality": (
            f"{_JL}/I/Inequality/Versions.toml",
            f"{_JL}/I/Inequality/Package.toml",
            f"{_JL}/I/Inequality/Deps.toml",
            f"{_JL}/I/Inequality/Compat.toml",
            "/juliahub/docs/General/Inequality/versions.json",
            "/juliahub/docs/General/Inequality/stable/pkg.json",
        ),
        "jsr/@std/path": (
            "/jsr/@std/path/meta.json",
            "/jsr/@std/path/1.1.3_meta.json",
            "/jsr-api/scopes/std/packages/path",
        ),
    },
    dependent={"jsr/@std/path": 2},
    fanout=True,
    settings={
        "upstream_homebrew_url": "/homebrew",
        "upstream_julia_url": _JL,
        "upstream_juliahub_url": "/juliahub",
        "upstream_jsr_url": "/jsr",
        "upstream_jsr_api_url": "/jsr-api",
    },
)

if __name__ == "__main__":
    main(BENCH, __doc__.splitlines()[1])
