"""
The hot path at the limit (issue 33), against a real `pkgintel serve` (1 worker, SQLite, the
embedded worker off, the anonymous rate limit raised so requests are counted but never refused):

1. **floor**: `../shared/tools/perf_vs_floor.sh` (the reference method: `wrk -t1 -c8` on
   `/api/exists/npm/lodash`, then on a bare ASGI app under the same uvicorn) — its line as printed;
2. **first answers**: time from the process start to `/readyz` 200, then the first typosquat,
   exists and check_bulk answers of each kind (fresh names, so no answer memo helps) against the
   median of the next 30 of the same kind (target: first ≈ later);
3. **no stall**: `/api/exists` asked every 10 ms on its own connection, for a baseline, then while
   a ~5 MB `package-lock.json` (18,000 packages) is scanned three times, then while
   `pkgintel ingest osv` loads an OSV export in another process: p50/p99/max (target p99 ≤ 50 ms).

Needs the shared data (`names/npm.tsv.gz`, `osv/PyPI/all.zip`) and, for step 1, wrk.
Run: `.venv/bin/python bench/bench_hot_path.py [--shared ../shared/data] [--skip-floor]`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import REPO, pkgintel_cmd
from bench_api import DEFAULT_SHARED, Processes, free_port, read_names, service_env, wait_http

FLOOR_SCRIPT = REPO.parent / "shared" / "tools" / "perf_vs_floor.sh"


def big_lockfile(target_bytes: int) -> str:
    """A package-lock v3 of ~`target_bytes` (the loop-lag test's shape)."""
    packages: dict[str, dict[str, object]] = {"": {"name": "big-app", "version": "1.0.0"}}
    i = 0
    while True:
        name = f"dep-{i:06d}"
        entry = {
            "version": f"1.{i % 50}.{i % 7}",
            "resolved": f"https://registry.npmjs.org/{name}/-/{name}-1.{i % 50}.{i % 7}.tgz",
            "integrity": "sha512-" + "A" * 86 + "==",
            "license": "MIT",
        }
        packages[f"node_modules/{name}"] = entry
        i += 1
        if i % 1000 == 0 and len(json.dumps(packages)) > target_bytes:
            break
    return json.dumps({"name": "big-app", "lockfileVersion": 3, "packages": packages})


def ms(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    if not values:
        return {}
    return {
        "n": len(values),
        "p50": round(values[len(values) // 2] * 1000, 2),
        "p99": round(values[min(len(values) - 1, int(len(values) * 0.99))] * 1000, 2),
        "max": round(values[-1] * 1000, 2),
    }


class Prober(threading.Thread):
    """GET `url` every `every_s` on one keep-alive connection; latencies kept per phase."""

    def __init__(self, base: str, names: list[str], every_s: float = 0.01) -> None:
        super().__init__(daemon=True)
        self.base, self.names, self.every_s = base, names, every_s
        self.phase = "idle"
        self.samples: dict[str, list[float]] = {}
        self.errors = 0
        self._halt = threading.Event()

    def run(self) -> None:
        i = 0
        with httpx.Client(base_url=self.base, timeout=10.0) as client:
            while not self._halt.is_set():
                name = self.names[i % len(self.names)]
                i += 1
                started = time.perf_counter()
                try:
                    ok = client.get(f"/api/exists/npm/{name}").status_code == 200
                except httpx.HTTPError:
                    ok = False
                took = time.perf_counter() - started
                if ok:
                    self.samples.setdefault(self.phase, []).append(took)
                else:
                    self.errors += 1
                self._halt.wait(max(0.0, self.every_s - took))

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=10)


def first_answers(base: str, names: list[str]) -> dict[str, Any]:
    """The first answer of each kind after readiness against the median of the next 30."""
    out: dict[str, Any] = {}
    kinds = {
        "typosquat npm": lambda c, n: c.get(f"/api/typosquat/npm/{n}x"),
        "typosquat pypi": lambda c, n: c.get(f"/api/typosquat/pypi/{n}-py"),
        "exists npm": lambda c, n: c.get(f"/api/exists/npm/{n}"),
        "check_bulk npm (20)": lambda c, n: c.post(
            "/api/check_bulk",
            json={"items": [{"ecosystem": "npm", "package": f"{n}{k}"} for k in range(20)]},
        ),
    }
    with httpx.Client(base_url=base, timeout=60.0) as client:
        for label, ask in kinds.items():
            times = []
            for i in range(31):
                started = time.perf_counter()
                resp = ask(client, names[(hash(label) + i * 7) % len(names)])
                times.append(time.perf_counter() - started)
                if resp.status_code >= 400:
                    out.setdefault("errors", []).append(f"{label}: {resp.status_code}")
            out[label] = {
                "first_ms": round(times[0] * 1000, 2),
                "later_median_ms": round(statistics.median(times[1:]) * 1000, 2),
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--skip-floor", action="store_true")
    parser.add_argument("--floor-seconds", type=int, default=5)
    args = parser.parse_args(argv)
    names_file = args.shared / "names" / "npm.tsv.gz"
    osv_zip = args.shared / "osv" / "PyPI" / "all.zip"
    if not names_file.exists() or not osv_zip.exists():
        print(f"SKIP: {names_file} or {osv_zip} not found")
        return 0
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="pkgintel-hot-") as tmp:
        workdir = Path(tmp)
        db_url = f"sqlite+aiosqlite:///{workdir / 'bench.db'}"
        env = service_env(db_url, "http://127.0.0.1:9", cold=False, log_level="warning")
        subprocess.run([*pkgintel_cmd(), "migrate"], cwd=workdir, env=env, check=True)
        procs = Processes(workdir)
        try:
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            started = time.monotonic()
            proc = procs.start(
                "service",
                [*pkgintel_cmd(), "serve", "--host", "127.0.0.1", "--port", str(port)],
                env,
            )
            wait_http(base + "/livez", proc)
            live_s = time.monotonic() - started
            with httpx.Client(timeout=5.0) as client:
                while client.get(base + "/readyz").status_code != 200:
                    time.sleep(0.05)
            results["start"] = {
                "live_s": round(live_s, 2),
                "ready_s": round(time.monotonic() - started, 2),
            }
            ranked = sorted(read_names(names_file), key=lambda row: -row[1])
            popular = [name for name, _ in ranked[:400] if "/" not in name]
            results["first_answers"] = first_answers(base, popular)
            if not args.skip_floor and FLOOR_SCRIPT.exists() and shutil.which("wrk"):
                line = subprocess.run(
                    [
                        "bash",
                        str(FLOOR_SCRIPT),
                        base,
                        "/api/exists/npm/lodash",
                        str(args.floor_seconds),
                    ],
                    cwd=REPO,
                    env={**env, "PYTHON": sys.executable},
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout.strip()
                results["floor"] = line
            lockfile = big_lockfile(4_350_000)
            prober = Prober(base, popular)
            prober.start()
            time.sleep(3)
            prober.phase = "scan"
            with httpx.Client(base_url=base, timeout=300.0) as client:
                scans = []
                for _ in range(3):
                    t = time.perf_counter()
                    resp = client.post(
                        "/api/scan", json={"lockfile": lockfile, "filename": "package-lock.json"}
                    )
                    scans.append(round(time.perf_counter() - t, 2))
                    if resp.status_code != 200:
                        print("scan answered", resp.status_code, resp.text[:200])
            prober.phase = "between"
            time.sleep(1)
            prober.phase = "ingest"
            t = time.perf_counter()
            subprocess.run(
                [*pkgintel_cmd(), "ingest", "osv", "--ecosystem", "PyPI", "--from", str(osv_zip)],
                cwd=workdir,
                env=env,
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            ingest_s = round(time.perf_counter() - t, 2)
            prober.stop()
            results["stall"] = {
                "lockfile_mb": round(len(lockfile) / 1e6, 2),
                "scan_s": scans,
                "ingest_pypi_s": ingest_s,
                "exists_ms": {k: ms(v) for k, v in prober.samples.items() if k != "between"},
                "errors": prober.errors,
            }
        finally:
            procs.stop_all()
            print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
