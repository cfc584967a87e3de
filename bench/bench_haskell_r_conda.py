"""
Cold and warm `/api/check` for Hackage, CRAN and Conda against the replay registry.

The method is `_check_bench.py`'s (read its docstring): the recorded bodies of
`../shared/data/registry-fixtures` replayed by `tests/fake_registry.py` in a subprocess with
`--latency-ms` of latency per request; **cold** through a service that caches nothing, each answer
a 200 `_cache: miss`, set against every upstream request of that report timed alone (target: cold
<= slowest single call + 20 ms); **warm** from the in-process cache after one priming call (target
<= 5 ms). npm/lodash and pypi/requests run as baselines in the same run.

The requests of one report:
- `hackage/aeson`: the version map, the package page, the deprecation document and the highest
  version's `.cabal` file, concurrently (the replay has no page, deprecation document or `.cabal`
  file for aeson: they answer 404, which costs the same).
- `cran/readxl`: the Package Manager document, the CRAN page and cranlogs' last-week and
  last-month counts, all concurrently (the replay has no cranlogs body for readxl: 404).
- `conda/pytest`: one anaconda.org document.

Run: `.venv/bin/python bench/bench_haskell_r_conda.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
"""

from __future__ import annotations

from _check_bench import BASELINE_UPSTREAMS, CheckBench, main

BENCH = CheckBench(
    name="haskell-r-conda",
    fixture="hackage",
    packages=(
        ("npm", "lodash"),
        ("pypi", "requests"),
        ("hackage", "aeson"),
        ("cran", "readxl"),
        ("conda", "pytest"),
    ),
    upstreams={
        **BASELINE_UPSTREAMS,
        "hackage/aeson": (
            "/hackage/package/aeson.json",
            "/hackage/package/aeson",
            "/hackage/package/aeson/deprecated.json",
            "/hackage/package/aeson/aeson.cabal",
        ),
        "cran/readxl": (
            "/cranlogs/downloads/total/last-week/readxl",
            "/cranlogs/downloads/total/last-month/readxl",
            "/ppm/__api__/repos/2/packages/readxl",
            "/cran/web/packages/readxl/index.html",
        ),
        "conda/pytest": ("/anaconda/package/conda-forge/pytest",),
    },
    # No report here makes a request that waits for another one.
    settings={
        "upstream_hackage_url": "/hackage",
        "upstream_cran_ppm_url": "/ppm/__api__/repos/2",
        "upstream_cran_url": "/cran",
        "upstream_cranlogs_url": "/cranlogs",
        "upstream_conda_url": "/anaconda",
    },
)

if __name__ == "__main__":
    main(BENCH, __doc__.splitlines()[1])
