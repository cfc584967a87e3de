"""
Cold and warm `/api/check` for Swift, CocoaPods and CPAN against the replay registry.

Same method and targets as the other ecosystem benches (`_check_bench.py`): the
replay registry (`tests/fake_registry.py`, the recorded bodies of `../shared/data/registry-fixtures`)
runs in a subprocess with `--latency-ms` (default 50) on every request; **cold** is a service whose
cache keeps nothing (each answer checked to be a 200 `_cache: miss`), compared with every upstream
request of one report timed alone (target: cold <= slowest single call + 20 ms, or the dependent
pair + 20 ms where the second request needs the first's answer); **warm** is the cached path
(target <= 5 ms). `npm/lodash` runs as the baseline of the same run.

- CocoaPods `Foo`: the shard, **then** the podspec of the version it names (a dependent pair).
- CPAN `Dpkg`: the release document and the version search, concurrently.
- Swift `0xLeif/Chronicle`: the Swift Package Index list (recorded, 268 KB) is read once per process
  and kept for an hour, so a cold report makes the three GitHub requests concurrently. No GitHub
  document of a Swift package is recorded: for timing only, the replay serves the recorded
  gocardless/business repository and releases documents (dependabot-core fixtures) at Chronicle's
  paths, with its tags listed from those releases. The figures measure our path, not Chronicle's data.

Run: `.venv/bin/python bench/bench_swift_cocoapods_cpan.py [--latency-ms 50] [--rounds 15] [--warm-n 300]`.
Prints a table and writes `bench/results/<timestamp>-swift-cocoapods-cpan.json`; asserts nothing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from _check_bench import BASELINE_UPSTREAMS, CheckBench, check_path, main
from _common import REPO

CHRONICLE = "0xLeif/Chronicle"
_GH = f"/github/repos/{CHRONICLE}"


def serve_registry(port: int, latency_ms: float, shared: Path) -> None:
    """The replay registry plus the timing-only GitHub documents at Chronicle's paths."""
    import uvicorn

    sys.path.insert(0, str(REPO))
    from tests.fake_registry import build

    github = shared / "registry-fixtures" / "github"
    repo = json.loads((github / "api.github.com_repos_gocardless_business.json").read_text())
    releases = json.loads(
        (github / "api.github.com_repos_gocardless_business_releases_per_page_100.json").read_text()
    )
    base = f"https://api.github.com/repos/{CHRONICLE}"
    extra = [
        (base, repo),
        (f"{base}/tags?per_page=100", [{"name": r["tag_name"]} for r in releases]),
        (f"{base}/releases?per_page=100", releases),
    ]
    reg = build(shared, latency_ms, extra)
    uvicorn.run(reg.app, host="127.0.0.1", port=port, log_level="warning")


BENCH = CheckBench(
    name="swift-cocoapods-cpan",
    fixture="cocoapods",
    packages=(
        ("npm", "lodash"),
        ("cocoapods", "Foo"),
        ("cpan", "Dpkg"),
        ("swift", CHRONICLE),
    ),
    upstreams={
        "npm/lodash": BASELINE_UPSTREAMS["npm/lodash"],
        "cocoapods/Foo": (
            "/cocoapods/all_pods_versions_1_3_5.txt",
            "/cocoapods/Specs/1/3/5/Foo/1.1.3/Foo.podspec.json",
        ),
        "cpan/Dpkg": (
            "/cpan/v1/release/Dpkg",
            "/cpan/v1/release/_search?fields=version,date&q=distribution:Dpkg&size=5000",
        ),
        f"swift/{CHRONICLE}": (_GH, f"{_GH}/tags?per_page=100", f"{_GH}/releases?per_page=100"),
    },
    dependent={"cocoapods/Foo": 2},
    # One call reads the Swift Package Index list into the adapter (kept for an hour).
    prime=(check_path("swift", CHRONICLE),),
    settings={
        "upstream_swift_url": "/raw-github/SwiftPackageIndex/PackageList/main",
        "upstream_github_api_url": "/github",
        "upstream_cocoapods_url": "/cocoapods",
        "upstream_cpan_url": "/cpan",
    },
    serve=serve_registry,
)

if __name__ == "__main__":
    main(BENCH, __doc__.splitlines()[1])
