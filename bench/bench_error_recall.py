"""
Error-to-fix recall on real error texts (issue #32, item 3), against the 90 % target.

Every text of `bench/data/error_texts.jsonl` (real pastes from public issue threads, 29 toolchains)
goes through `ErrorService.resolve` — the function behind `POST /api/error/resolve`, MCP
`resolve_error` and `pkgintel error` — in process, on a temporary SQLite store with the shipped
knowledge loaded. A text counts as answered right at rank k when one of its fix terms appears in
the cause or fix of one of the first k entries returned (`bench/error_recall.py`).

Printed: the knowledge-base size; recall @1 and @3 for the dev and the blind part; per toolchain;
the dev misses (the blind misses are only counted: they are never looked at, so the matcher is
never tuned on them); and resolve p50/p99 for a 50-line npm log and for the longest real text.

`--extra-knowledge DIR` (repeatable) adds the entries of every `*.yaml` under DIR whose pattern
is not shipped yet (another branch's `src/pkgintel/knowledge/errors`), to measure before a merge.

Run: `.venv/bin/python bench/bench_error_recall.py [--misses] [--extra-knowledge DIR]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

# This checkout's code (not an installed pkgintel), and `bench` as a package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from bench._common import percentile
from bench.error_recall import SPLITS, Report, load_cases, measure
from pkgintel.config import Settings
from pkgintel.domain.knowledge.error_patterns import normalise_error
from pkgintel.domain.knowledge.errors import ErrorEntry
from pkgintel.knowledge.error_fixes import load_error_knowledge, parse_error_file
from pkgintel.runtime.bootstrap import prepare_database
from pkgintel.services.knowledge.error_resolver import ErrorService
from pkgintel.storage.errors import SqlErrorStore

TARGET = 0.90
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


def _pct(hits: int, total: int) -> str:
    return f"{hits / total:.1%} ({hits}/{total})" if total else "n/a"


def print_report(report: Report, *, misses: bool) -> None:
    for split in SPLITS:
        tally = report.splits.get(split)
        if tally is None:
            continue
        met = "met" if tally.rate(tally.at1) >= TARGET else "NOT met"
        print(
            f"{split:5} recall @1 {_pct(tally.at1, tally.total)}, @3 {_pct(tally.at3, tally.total)}"
            f"  (target @1 {TARGET:.0%}: {met})"
        )
    print("\nper toolchain (dev @1 | blind @1):")
    toolchains = sorted({tc for _, tc in report.toolchains})
    for tc in toolchains:
        cells = []
        for split in SPLITS:
            tally = report.toolchains.get((split, tc))
            cells.append(f"{tally.at1}/{tally.total}" if tally else "-")
        print(f"  {tc:13} {cells[0]:>6} | {cells[1]:>6}")
    blind_missed = sum(1 for o in report.outcomes if o.case.split == "blind" and not o.hit1)
    print(f"\nblind misses: {blind_missed} (not listed: the blind part is never used for tuning)")
    if misses:
        print("\ndev misses at @1:")
        for o in report.outcomes:
            if o.case.split != "dev" or o.hit1:
                continue
            primary = normalise_error(o.case.text).pattern[:110]
            got = o.top[:80] if o.top else "no match"
            print(f"  {o.case.id:16} got: {got}\n  {'':16} decisive: {primary}")


def knowledge(extra_dirs: list[Path]) -> list[ErrorEntry]:
    """The shipped entries, then those of `extra_dirs` whose pattern is new."""
    entries = {e.error_hash: e for e in load_error_knowledge()}
    for folder in extra_dirs:
        for path in sorted(folder.glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            for entry in parse_error_file(data, origin=str(path)):
                entries.setdefault(entry.error_hash, entry)
    return list(entries.values())


async def main(show_misses: bool, extra_dirs: list[Path]) -> None:
    cases = load_cases()
    entries = knowledge(extra_dirs)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{tmp}/b.db")
        engine, _store = await prepare_database(settings)
        try:
            # The class and settings behind `POST /api/error/resolve`, on this bench's knowledge.
            errors = ErrorService(
                SqlErrorStore(engine),
                knowledge=lambda: entries,
                min_confidence=settings.error_min_confidence,
            )
            load = await errors.load_knowledge()
            print(f"knowledge: {load.total} entries; {len(cases)} real texts")

            async def resolve(text: str) -> list[ErrorEntry]:
                res = await errors.resolve(text, limit=3, record=False)
                return [m.entry for m in res.matches]

            report = await measure(cases, resolve)
            print_report(report, misses=show_misses)

            longest = max((c.text for c in cases), key=len)
            for label, text in (("50-line npm log", TRACE_50), ("longest real text", longest)):
                for _ in range(20):
                    await errors.resolve(text, record=False)
                times = []
                for _ in range(300):
                    t = time.perf_counter()
                    await errors.resolve(text, record=False)
                    times.append((time.perf_counter() - t) * 1000)
                lines = len(text.splitlines())
                print(
                    f"resolve {label} ({lines} lines): p50 {statistics.median(times):.2f} ms, "
                    f"p99 {percentile(times, 99):.2f} ms (n=300)"
                )
        finally:
            await engine.dispose()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--misses", action="store_true", help="list the dev part's misses")
    ap.add_argument("--extra-knowledge", type=Path, action="append", default=[], metavar="DIR")
    args = ap.parse_args()
    asyncio.run(main(args.misses, args.extra_knowledge))
