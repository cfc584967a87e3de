"""
Curated compatibility matrix against `bench/data/compat_breakages.tsv` (issue 32, item 4).

Every row goes through `application.compat.compat_answer` — the function behind `/api/compat` and
the MCP tool `check_compatibility` — in process and offline. The registries are the ones of
`tests/undeclared_registry.py`: every asked version exists and declares nothing, which is exactly
the case the set is about (breakages the packages' declared constraints do not prevent), so any
conflict in the answer comes from the curated matrix (`knowledge/compat/breakages.yaml`). RubyGems,
Maven and Cargo stacks are checked against the matrix alone by the service itself.

- caught: a `breakage` row's pair answers `compatible: false` with a curated conflict naming an
  https source and the fix; reported for the `dev` rows and the `blind` rows (written first and
  frozen; the matrix is never tuned on them).
- false alarms: a curated conflict on a row's fix pair, or on a `good` row (known-good pairs).
- lookup: `apply_breakages` for a 100-package stack naming every curated PyPI package, against the
  indexed matrix (p50/p99), beside the linear scan of every entry it replaced; and a whole 25-package `compat_answer` (the service's per-check limit).

Run: `.venv/bin/python bench/bench_compat_matrix.py [--misses]`. Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from bench._common import percentile
from pkgintel.application.compat import compat_answer
from pkgintel.domain.knowledge.compat import (
    RUNTIMES,
    Breakage,
    BreakageIndex,
    StackItem,
    apply_breakages,
    key,
)
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import requirement_met
from pkgintel.knowledge.breakages import load_breakage_index, load_breakages
from tests.undeclared_registry import undeclared_compat, undeclared_runtime

DATA = Path(__file__).resolve().parent / "data" / "compat_breakages.tsv"


@dataclass(frozen=True)
class Row:
    kind: str
    split: str
    ecosystem: Ecosystem
    package: str
    version: str
    other: str
    other_version: str
    fix_version: str
    fix_other_version: str
    source: str


def read_rows(path: Path = DATA) -> list[Row]:
    lines = [line for line in path.read_text("utf-8").splitlines() if not line.startswith("#")]
    out = []
    for rec in csv.DictReader(lines, delimiter="\t"):
        out.append(
            Row(
                rec["kind"],
                rec["split"],
                Ecosystem(rec["ecosystem"]),
                rec["package"],
                rec["version"],
                rec["other"],
                rec["other_version"],
                rec["fix_version"],
                rec["fix_other_version"],
                rec["source"],
            )
        )
    return out


def linear_scan(
    ecosystem: Ecosystem,
    items: list[StackItem],
    entries: list[Breakage],
    runtimes: dict[str, str],
) -> int:
    """The lookup before the index: every entry of the matrix is tried against the stack."""
    by_key = {key(ecosystem, i.name): i for i in items}
    found = 0
    for b in entries:
        if b.ecosystem is not ecosystem:
            continue
        a = by_key.get(key(ecosystem, b.package))
        if a is None:
            continue
        if b.other in RUNTIMES:
            other_version, grammar = runtimes.get(b.other), RUNTIMES[b.other]
        else:
            hit = by_key.get(key(ecosystem, b.other))
            other_version, grammar = (hit.version if hit else None), ecosystem
        if other_version is None:
            continue
        if requirement_met(ecosystem, a.version, b.versions) and requirement_met(
            grammar, other_version, b.other_versions
        ):
            found += 1
    return found


async def curated_conflicts(
    rt: Any, ecosystem: Ecosystem, stack: dict[str, str]
) -> tuple[bool | None, list[dict[str, Any]]]:
    answer = await compat_answer(rt, stack, ecosystem)
    conflicts = [c for c in answer.body["conflicts"] if c["origin"] == "curated"]
    return answer.body["compatible"], conflicts


def well_formed(conflicts: list[dict[str, Any]]) -> bool:
    return any(c["source"].startswith("https://") and c["fix"] for c in conflicts)


async def measure(show_misses: bool) -> dict[str, Any]:
    rows = read_rows()
    rt = undeclared_runtime(undeclared_compat())
    caught = {"dev": [0, 0], "blind": [0, 0]}
    misses: dict[str, list[str]] = {"dev": [], "blind": []}
    fix_alarms: list[str] = []
    good_alarms: list[str] = []
    fix_pairs = 0
    goods = 0
    for r in rows:
        label = f"{r.ecosystem.value} {r.package}@{r.version} + {r.other}@{r.other_version}"
        if r.kind == "breakage":
            compatible, conflicts = await curated_conflicts(
                rt, r.ecosystem, {r.package: r.version, r.other: r.other_version}
            )
            hit = compatible is False and well_formed(conflicts)
            caught[r.split][1] += 1
            caught[r.split][0] += int(hit)
            if not hit:
                misses[r.split].append(label)
            fix_pairs += 1
            _, fixed = await curated_conflicts(
                rt, r.ecosystem, {r.package: r.fix_version, r.other: r.fix_other_version}
            )
            if fixed:
                fix_alarms.append(
                    f"{r.ecosystem.value} {r.package}@{r.fix_version} + "
                    f"{r.other}@{r.fix_other_version}"
                )
        else:
            goods += 1
            _, conflicts = await curated_conflicts(
                rt, r.ecosystem, {r.package: r.version, r.other: r.other_version}
            )
            if conflicts:
                good_alarms.append(label)

    # Lookup: 100-package PyPI stacks, one naming every curated PyPI package (worst case: every
    # entry is evaluated) and a typical one where 5 of the 100 packages have curated entries.
    index = load_breakage_index()
    entries = list(load_breakages())
    curated = sorted({b.package for b in entries if b.ecosystem is Ecosystem.PYPI})
    worst = curated + [f"filler-package-{i}" for i in range(100 - len(curated))]
    typical = curated[:5] + [f"filler-package-{i}" for i in range(95)]
    runtimes = {"python": "3.12.0"}

    def timed(fn: Any, n: int) -> list[float]:
        out = []
        for _ in range(n):
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1000)
        return out

    lookups: dict[str, dict[str, list[float | None]]] = {}
    for name, names in (("worst", worst), ("typical", typical)):
        stack = [StackItem(n, "1.0.0") for n in names[:100]]
        indexed = timed(
            lambda stack=stack: apply_breakages(Ecosystem.PYPI, stack, index, runtimes=runtimes),
            2000,
        )
        scanned = timed(
            lambda stack=stack: linear_scan(Ecosystem.PYPI, stack, entries, runtimes), 300
        )
        lookups[name] = {
            "indexed_ms": [percentile(indexed, 50), percentile(indexed, 99)],
            "linear_scan_ms": [percentile(scanned, 50), percentile(scanned, 99)],
        }
    # The same typical stack against a matrix grown to 10,000 entries (synthetic names): the index
    # keeps the cost proportional to the stack, the scan to the matrix.
    grown = entries + [
        Breakage(
            Ecosystem.PYPI,
            f"synthetic-{i}",
            "<2",
            f"synthetic-other-{i}",
            ">=1",
            "r",
            "f",
            "https://x",
        )
        for i in range(10_000 - len(entries))
    ]
    grown_index = BreakageIndex.of(grown)
    stack = [StackItem(n, "1.0.0") for n in typical]
    indexed = timed(
        lambda: apply_breakages(Ecosystem.PYPI, stack, grown_index, runtimes=runtimes), 2000
    )
    scanned = timed(lambda: linear_scan(Ecosystem.PYPI, stack, grown, runtimes), 100)
    lookups["typical, 10,000-entry matrix"] = {
        "indexed_ms": [percentile(indexed, 50), percentile(indexed, 99)],
        "linear_scan_ms": [percentile(scanned, 50), percentile(scanned, 99)],
    }
    whole: list[float] = []
    big = dict.fromkeys(worst[:25], "1.0.0")
    for _ in range(200):
        t = time.perf_counter()
        await compat_answer(rt, big, Ecosystem.PYPI)
        whole.append((time.perf_counter() - t) * 1000)

    result = {
        "matrix_entries": len(entries),
        "breakage_rows": caught["dev"][1] + caught["blind"][1],
        "caught_dev": caught["dev"],
        "caught_blind": caught["blind"],
        "fix_pair_false_alarms": [len(fix_alarms), fix_pairs],
        "good_pair_false_alarms": [len(good_alarms), goods],
        "lookup_100": lookups,
        "compat_answer_25_ms": [percentile(whole, 50), percentile(whole, 99)],
    }
    print(f"matrix: {len(entries)} curated breakages")
    for split in ("dev", "blind"):
        got, n = caught[split]
        print(f"caught {split:5}: {got}/{n} ({100 * got / n:.1f} %)")
    print(f"false alarms on fix pairs: {len(fix_alarms)}/{fix_pairs}")
    print(f"false alarms on good pairs: {len(good_alarms)}/{goods}")
    for name, figs in lookups.items():
        ind, lin = figs["indexed_ms"], figs["linear_scan_ms"]
        print(
            f"lookup, 100-package stack ({name}): indexed p50 {ind[0]:.3f} ms p99 {ind[1]:.3f} ms;"
            f" linear scan (before) p50 {lin[0]:.3f} ms p99 {lin[1]:.3f} ms"
        )
    print(
        "compat_answer, 25 packages: p50 {:.2f} ms p99 {:.2f} ms".format(
            *result["compat_answer_25_ms"]
        )
    )
    for label in fix_alarms + good_alarms:
        print(f"  false alarm: {label}")
    if show_misses:
        for split in ("dev", "blind"):
            for label in misses[split]:
                print(f"  missed ({split}): {label}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--misses", action="store_true", help="list the missed rows")
    args = parser.parse_args()
    asyncio.run(measure(args.misses))


if __name__ == "__main__":
    main()
