"""
Error-to-fix and stack-compatibility figures (in process, SQLite, recorded bodies).

- resolve: p50/p99 of `ErrorService.resolve` for a 50-line npm log against the full knowledge base;
- recall: resolve on error texts written from real reports that are NOT the knowledge base's own
  patterns (other package names, paths, versions, wording around the decisive line);
- compat: a 10-package npm stack, warm (packuments cached) and cold (fresh service, replay registry
  with --latency-ms per request; all fetches concurrent, so cold ≈ slowest upstream + overhead);
  then a conflicting stack (react 18.2.0 + react-dom 17.0.2 + next 14.2.0) with its suggestions.

Run: `.venv/bin/python bench/bench_errors.py [--latency-ms 50]`.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench._common import percentile
from pkgintel.config import Settings
from pkgintel.domain.knowledge.error_patterns import error_hash
from pkgintel.runtime.bootstrap import build_runtime
from tests.fake_registry import build

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
NOISE = [
    f"npm http fetch GET 200 https://registry.npmjs.org/pkg-{i} {i}ms (cache hit)"
    for i in range(40)
]
TRACE_50 = "\n".join(
    [
        *NOISE,
        "npm ERR! code ERESOLVE",
        "npm ERR! ERESOLVE unable to resolve dependency tree",
        "npm ERR!",
        "npm ERR! While resolving: web@1.0.0",
        "npm ERR! Found: react@18.2.0",
        'npm ERR! peer react@"^16.8.0" from some-lib@1.0.0',
        "npm ERR! Fix the upstream dependency conflict",
        "npm ERR! A complete log of this run can be found in:",
        "npm ERR!     /root/.npm/_logs/x.log",
        "",
    ]
)
# (error text as a user would paste it, expected entry pattern). None of these texts is a stored pattern.
RECALL = [
    (
        "Traceback (most recent call last):\n  File \"/srv/app/run.py\", line 1, in <module>\n    import cv2\nModuleNotFoundError: No module named 'cv2'",
        "ModuleNotFoundError: No module named 'cv2'",
    ),
    (
        "error: externally-managed-environment\n\n× This environment is externally managed\n╰─> To install Python packages system-wide, try brew install xyz",
        "error: externally-managed-environment",
    ),
    (
        "ERROR: Could not find a version that satisfies the requirement tensorflow==1.15.5 (from versions: 2.16.1, 2.17.0)\nERROR: No matching distribution found for tensorflow==1.15.5",
        "ERROR: Could not find a version that satisfies the requirement <pkg> (from versions: none)",
    ),
    (
        "  File \"C:\\\\proj\\\\venv\\\\lib\\\\site-packages\\\\flask\\\\app.py\", line 30\nImportError: cannot import name 'url_quote' from 'werkzeug.urls' (C:\\\\proj\\\\venv\\\\lib\\\\site-packages\\\\werkzeug\\\\urls.py)",
        "ImportError: cannot import name 'url_quote' from 'werkzeug.urls' (<path>)",
    ),
    (
        "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found\nnpm error 404  'left-padd@*' is not in this registry.",
        "npm code E404",
    ),
    (
        "npm ERR! code EACCES\nnpm ERR! syscall mkdir\nnpm ERR! path /usr/local/lib/node_modules/typescript\nnpm ERR! errno -13",
        "npm code EACCES",
    ),
    (
        "node:internal/modules/cjs/loader:1080\n  throw err;\nError [ERR_REQUIRE_ESM]: require() of ES Module /app/node_modules/chalk/source/index.js from /app/cli.js not supported.",
        "node ERR_REQUIRE_ESM",
    ),
    (
        "Error: error:0308010C:digital envelope routines::unsupported\n    at new Hash (node:internal/crypto/hash:71:19)",
        "Error: error:0308010C:digital envelope routines::unsupported",
    ),
    (
        ' ERR_PNPM_OUTDATED_LOCKFILE  Cannot install with "frozen-lockfile" because pnpm-lock.yaml is not up to date with <ROOT>/packages/api/package.json',
        "ERR_PNPM_OUTDATED_LOCKFILE",
    ),
    (
        '➤ YN0000: ┌ Resolution step\n➤ YN0028: │ -   "typescript": "^5.3.0"\n➤ YN0028: │ The lockfile would have been modified by this install, which is explicitly forbidden.',
        "yarn YN0028",
    ),
    (
        "error[E0599]: no method named `read_to_string` found for struct `File` in the current scope\n --> src/io.rs:9:10",
        "rustc E0599",
    ),
    (
        "error[E0277]: the trait bound `Config: Deserialize<'_>` is not satisfied\n --> src/cfg.rs:12:5",
        "rustc E0277",
    ),
    (
        "error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)",
        "error: linker `cc` not found",
    ),
    (
        "error: failed to run custom build command for `openssl-sys v0.9.93`\n\nCaused by:\n  process didn't exit successfully",
        "error: failed to run custom build command for `<name>`",
    ),
    (
        "go: example.com/svc@v0.0.0: missing go.sum entry for go.mod file; to add it:\n\tgo mod download example.com/svc",
        "go: <pkg>@<version>: missing go.sum entry for go.mod file; to add it:",
    ),
    (
        "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
        "go: go.mod file not found in current directory or any parent directory; see 'go help modules'",
    ),
    (
        'Bundler could not find compatible versions for gem "railties":\n  In Gemfile:\n    rails (~> 6.1) was resolved to 6.1.7',
        'Bundler could not find compatible versions for gem "<name>":',
    ),
    (
        "Your Ruby version is 3.0.6, but your Gemfile specified 3.3.0",
        "Your Ruby version is <version>, but your Gemfile specified <version>",
    ),
    (
        "Your requirements could not be resolved to an installable set of packages.\n\n  Problem 1\n    - Root composer.json requires php ^8.2 but your php version (8.1.2) does not satisfy that requirement.",
        "Root composer.json requires php ^<version> but your php version (<version>) does not satisfy that requirement.",
    ),
    (
        "[ERROR] Failed to execute goal on project shop: Could not resolve dependencies for project com.acme:shop:jar:2.1\n[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/DependencyResolutionException",
        "maven DependencyResolutionException",
    ),
    (
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not open cp_settings generic class cache\n> BUG! exception in phase 'semantic analysis'\n> Unsupported class file major version 61",
        "Unsupported class file major version 65",
    ),
    (
        "PackagesNotFoundError: The following packages are not available from current channels:\n\n  - cudatoolkit=12.1",
        "conda PackagesNotFoundError",
    ),
    (
        "Run pnpm install --frozen-lockfile\n ERR_PNPM_LOCKFILE_BREAKING_CHANGE  Lockfile /home/runner/work/app/pnpm-lock.yaml not compatible with current pnpm",
        "ERR_PNPM_LOCKFILE_BREAKING_CHANGE",
    ),
    (
        "Running self-installer...\n   ERR_PNPM_UNSUPPORTED_ENGINE  Unsupported environment (bad pnpm and/or Node.js version)\n  Expected version: >=18.12\n  Got: v16.20.2",
        "ERR_PNPM_UNSUPPORTED_ENGINE",
    ),
    (
        "CondaVerificationError: The package for boost-cpp located at /home/k/miniconda3/pkgs/boost-cpp-1.73.0-h6c875cf_0\nappears to be corrupted. The path 'lib/libboost_wave.so.1.73'",
        "conda CondaVerificationError",
    ),
    (
        "FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not initialize class org.codehaus.groovy.runtime.InvokerHelper\n\nBUILD FAILED in 680ms",
        "Could not initialize class org.codehaus.groovy.runtime.InvokerHelper",
    ),
    (
        "go: errors parsing go.mod:\n/build/source/go.mod:3: invalid go version '1.21.0': must match format 1.23",
        "<path>:<line>: invalid go version '<version>': must match format <version>",
    ),
    (
        "Installing dependencies from lock file\nVerifying lock file contents can be installed on current platform.\nYour lock file does not contain a compatible set of packages. Please run composer update.\n\n  Problem 1\n    - Root composer.json requires composer < 2.3, found composer[2.3.7] but it does not match the constraint.",
        "Your lock file does not contain a compatible set of packages. Please run composer update.",
    ),
    (
        "/Users/b/.gem/ruby/3.0.1/gems/psych-4.0.0/lib/psych/class_loader.rb:99:in `find'\nPsych::DisallowedClass: Tried to load unspecified class: Symbol",
        "Psych::DisallowedClass: Tried to load unspecified class: Symbol",
    ),
    (
        "remote: bundler-1.15.2/lib/bundler/lockfile_parser.rb:108:in `warn_for_outdated_bundler_version'\nYou must use Bundler 2 or greater with this lockfile.",
        "You must use Bundler 2 or greater with this lockfile.",
    ),
]


async def main(latency_ms: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,
            database_url=f"sqlite+aiosqlite:///{tmp}/b.db",
            upstream_npm_url="http://registry.test/npm",
        )
        reg = build(None, latency_ms=latency_ms)
        reg.add(
            "https://registry.npmjs.org/react",
            gzip.decompress(
                (
                    Path(__file__).resolve().parents[1] / "tests/recordings/npm/react.json.gz"
                ).read_bytes()
            ),
        )
        names = ["react-dom", "next", "express", "axios", "request"]
        for n in names:
            reg.add(
                f"https://registry.npmjs.org/{n}",
                gzip.decompress(
                    (
                        SHARED / "registry-fixtures/npm-live" / f"registry.npmjs.org_{n}.json.gz"
                    ).read_bytes()
                ),
            )
        for n in ("lodash", "chalk", "etag", "jquery"):
            reg.add(
                f"https://registry.npmjs.org/{n}",
                (SHARED / "registry-fixtures/npm" / f"registry.npmjs.org_{n}.json").read_bytes(),
            )
        transport = httpx.ASGITransport(app=reg.app)
        async with build_runtime(settings, transport=transport) as rt:
            assert rt.errors is not None and rt.compat is not None
            load = await rt.errors.load_knowledge()
            print(f"knowledge: {load.total} entries")
            for _ in range(20):
                await rt.errors.resolve(TRACE_50, record=False)
            times = []
            for _ in range(300):
                t = time.perf_counter()
                r = await rt.errors.resolve(TRACE_50, record=False)
                times.append((time.perf_counter() - t) * 1000)
            assert r.matches
            print(
                f"resolve 50-line trace: p50 {statistics.median(times):.2f} ms, p99 {percentile(times, 99):.2f} ms (n=300)"
            )
            hit1 = hit3 = 0
            for text, expected in RECALL:
                res = await rt.errors.resolve(text, record=False)
                got = [m.entry.error_hash for m in res.matches]
                hit1 += got[:1] == [error_hash(expected)]
                hit3 += error_hash(expected) in got[:3]
            print(
                f"recall on {len(RECALL)} held-out texts: @1 {hit1 / len(RECALL):.0%}, @3 {hit3 / len(RECALL):.0%}"
            )

            stack = {"react": "18.2.0", "react-dom": "18.2.0", "next": "14.2.0"}
            for n in ("express", "axios", "request", "lodash", "chalk", "etag", "jquery"):
                stack[n] = (await rt.compat._npm.fetch_constraints(n)).versions[-1]
            cold = []
            for _ in range(3):
                rt.compat._npm_cache.clear()
                t = time.perf_counter()
                rep = await rt.compat.check(stack, ecosystem=None)  # detected from the registries
                cold.append((time.perf_counter() - t) * 1000)
            print(
                f"compat 10-package npm stack cold: median {statistics.median(cold):.1f} ms with {latency_ms:.0f} ms upstream latency (verdict {rep.compatible}, unavailable {len(rep.unavailable)})"
            )
            warm = []
            for _ in range(200):
                t = time.perf_counter()
                await rt.compat.check(stack, ecosystem=None)  # detected from the registries
                warm.append((time.perf_counter() - t) * 1000)
            print(
                f"compat 10-package npm stack warm: p50 {statistics.median(warm):.2f} ms, p99 {percentile(warm, 99):.2f} ms"
            )
            # A conflicting stack: the check plus suggestions (resolvelib over every published version).
            clash = {"react": "18.2.0", "react-dom": "17.0.2", "next": "14.2.0"}
            cold = []
            for _ in range(3):
                rt.compat._npm_cache.clear()
                t = time.perf_counter()
                rep = await rt.compat.check(clash)
                cold.append((time.perf_counter() - t) * 1000)
            warm = []
            for _ in range(10):
                t = time.perf_counter()
                await rt.compat.check(clash)
                warm.append((time.perf_counter() - t) * 1000)
            print(
                f"compat conflicting 3-package stack with suggestions: cold median {statistics.median(cold):.1f} ms, warm p50 {statistics.median(warm):.1f} ms (verdict {rep.compatible}, {len(rep.suggestions)} suggestions)"
            )


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency-ms", type=float, default=50.0)
    asyncio.run(main(ap.parse_args().latency_ms))
