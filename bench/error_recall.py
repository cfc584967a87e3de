"""
The error-text recall set (`bench/data/error_texts.jsonl`) and its judge, shared by
`bench/bench_error_recall.py` and the recall floor test (`tests/knowledge/test_error_recall_dev.py`).

Contract:

- `load_cases(path)` reads the JSON-lines file: the first line is the header (`_about`), every
  other line one `Case`. Raises `ValueError` for a row without a text, a judge or a known split.
- `judge(case, entries)` is True when at least one of the case's `expect_any` terms appears,
  case-insensitively, in the cause or the fix lines of one of `entries` (the answer's matches,
  best first, cut to the rank being measured). The pattern and title are never looked at: a
  match counts only when its *solution* names the fix.
- `measure(cases, resolve)` runs every text through `resolve` (the service's own resolve, in
  process) and counts hits at rank 1 and within rank 3, per split and per toolchain.

The service never reads any of this: the set lives under `bench/` and is used to measure it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pkgintel.domain.knowledge.errors import ErrorEntry

DATA = Path(__file__).resolve().parent / "data" / "error_texts.jsonl"
SPLITS = ("dev", "blind")


@dataclass(frozen=True, slots=True)
class Case:
    """One real error text with its toolchain, source thread and fix terms."""

    id: str
    toolchain: str
    split: str
    source: str
    expect_any: tuple[str, ...]
    text: str


@dataclass(slots=True)
class Tally:
    """Hits at rank 1 and within rank 3 over `total` cases."""

    total: int = 0
    at1: int = 0
    at3: int = 0

    def add(self, hit1: bool, hit3: bool) -> None:
        self.total += 1
        self.at1 += hit1
        self.at3 += hit3

    def rate(self, hits: int) -> float:
        return hits / self.total if self.total else 0.0


@dataclass(slots=True)
class Outcome:
    """What one case got: the judge at 1 and 3, and the top entry's pattern (None: no match)."""

    case: Case
    hit1: bool
    hit3: bool
    top: str | None


@dataclass(slots=True)
class Report:
    """Tallies per split and per (split, toolchain), and every outcome in file order."""

    splits: dict[str, Tally] = field(default_factory=dict)
    toolchains: dict[tuple[str, str], Tally] = field(default_factory=dict)
    outcomes: list[Outcome] = field(default_factory=list)


def load_cases(path: Path = DATA) -> list[Case]:
    """The cases of `path` (header line skipped). Raises `ValueError` for a malformed row."""
    cases: list[Case] = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            row = json.loads(line)
            if "_about" in row:
                continue
            terms = tuple(str(t) for t in row.get("expect_any", ()) if str(t).strip())
            if not row.get("text") or not terms or row.get("split") not in SPLITS:
                raise ValueError(f"{path.name}:{number}: a case needs text, expect_any and a split")
            cases.append(
                Case(
                    id=row["id"],
                    toolchain=row["toolchain"],
                    split=row["split"],
                    source=row["source"],
                    expect_any=terms,
                    text=row["text"],
                )
            )
    return cases


def judge(case: Case, entries: Iterable[ErrorEntry]) -> bool:
    """True when one of `entries`' cause or fix lines names one of the case's fix terms."""
    for entry in entries:
        solution = " ".join((entry.cause, *entry.fix)).casefold()
        if any(term.casefold() in solution for term in case.expect_any):
            return True
    return False


async def measure(
    cases: Sequence[Case], resolve: Callable[[str], Awaitable[Sequence[ErrorEntry]]]
) -> Report:
    """Resolve every case's text (entries best first) and tally the judge at ranks 1 and 3."""
    report = Report()
    for case in cases:
        entries = list(await resolve(case.text))
        hit1 = judge(case, entries[:1])
        hit3 = judge(case, entries[:3])
        report.splits.setdefault(case.split, Tally()).add(hit1, hit3)
        report.toolchains.setdefault((case.split, case.toolchain), Tally()).add(hit1, hit3)
        report.outcomes.append(Outcome(case, hit1, hit3, entries[0].pattern if entries else None))
    return report
