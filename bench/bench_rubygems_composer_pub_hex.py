"""
Cold and warm `/api/check` for RubyGems, Composer, Pub and Hex against the replay registry.

The method and targets are `_check_bench.py`'s: cold (a service that caches nothing) against the
slowest upstream request of one report + 20 ms, warm from the cache <= 5 ms; `npm/lodash` and
`pypi/requests` run as baselines in the same run. Hex needs its package document before it can ask
for the latest release (the release is named in the document), so its floor is two calls in a row.

Run: `.venv/bin/python bench/bench_rubygems_composer_pub_hex.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
Prints a table and writes `bench/results/<timestamp>-rubygems-composer-pub-hex.json`; asserts nothing.
"""

from __future__ import annotations

from _check_bench import BASELINE_UPSTREAMS, CheckBench, main

BENCH = CheckBench(
    name="rubygems-composer-pub-hex",
    fixture="rubygems",
    packages=(
        ("npm", "lodash"),
        ("pypi", "requests"),
        ("rubygems", "nokogiri"),
        ("composer", "monolog/monolog"),
        ("pub", "bloc"),
        ("hex", "phoenix"),
    ),
    upstreams={
        **BASELINE_UPSTREAMS,
        "rubygems/nokogiri": (
            "/rubygems/api/v1/gems/nokogiri.json",
            "/rubygems/api/v1/versions/nokogiri.json",
            "/rubygems/api/v1/gems/nokogiri/owners.json",
        ),
        "composer/monolog/monolog": (
            "/packagist-repo/p2/monolog/monolog.json",
            "/packagist/packages/monolog/monolog.json",
        ),
        "pub/bloc": (
            "/pub/api/packages/bloc",
            "/pub/api/packages/bloc/score",
            "/pub/api/packages/bloc/publisher",
        ),
        "hex/phoenix": ("/hex/api/packages/phoenix", "/hex/api/packages/phoenix/releases/1.4.0"),
    },
    dependent={"hex/phoenix": 2},
    settings={
        "upstream_rubygems_url": "/rubygems",
        "upstream_packagist_repo_url": "/packagist-repo",
        "upstream_packagist_url": "/packagist",
        "upstream_pub_url": "/pub",
        "upstream_hex_url": "/hex",
    },
)

if __name__ == "__main__":
    main(BENCH, __doc__.splitlines()[1])
