"""
The hallucination benchmark (pure): corpus entries, the verification rule, and the result files an
operator loads with `pkgintel benchmark load`.

The corpus is the package names agents asked us for that did not exist when asked (the usage log's
rows with `found` false). A name that exists in the registry now was registered after agents asked
for it: `registered_since` flags it (a slopsquat alert).

Verification: `is_hallucinated` is true exactly when the name is in the corpus and not in the
registry. When the registry cannot be consulted (`in_registry` None), the answer is never
`is_hallucinated: true` and the verdict says `unknown`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pkgintel.domain.errors import InvalidInput

CORPUS_LICENSE = {
    "license": "CC-BY-NC-SA-4.0",
    "url": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
    "notice": "Licensed CC BY-NC-SA 4.0: non-commercial use, attribution required, share alike.",
}
CORPUS_LIMIT_MIN = 1
CORPUS_LIMIT_MAX = 200
CORPUS_LIMIT_DEFAULT = 100


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    """One name agents asked for that did not exist: hits, distinct clients, first and last ask."""

    ecosystem: str
    package: str
    hit_count: int
    clients: int
    first_seen: datetime
    last_seen: datetime


@dataclass(frozen=True, slots=True)
class Verification:
    """The benchmark verification of one name."""

    in_corpus: bool
    in_registry: bool | None
    hit_count: int

    @property
    def is_hallucinated(self) -> bool:
        return self.in_corpus and self.in_registry is False

    @property
    def verdict(self) -> str:
        if self.in_registry is None:
            return "unknown"
        if self.is_hallucinated:
            return "hallucinated"
        if self.in_corpus:
            return "registered_after_hallucination"
        return "real" if self.in_registry else "not_found"


def evidence(v: Verification, *, ecosystem: str, package: str) -> str:
    """One sentence saying why the verdict is what it is."""
    asked = (
        f"agents asked for {ecosystem}/{package} {v.hit_count} time(s) while it did not exist"
        if v.in_corpus
        else f"no agent asked us for {ecosystem}/{package} while it did not exist"
    )
    registry = {
        True: "the registry's name index has it now",
        False: "the registry's name index does not have it",
        None: "the registry's name index for this ecosystem is not loaded, so it was not checked",
    }[v.in_registry]
    return f"{asked}; {registry}."


@dataclass(frozen=True, slots=True)
class BenchmarkRow:
    """Hit rate of one model under one condition (optionally one ecosystem) in one run."""

    model: str
    condition: str
    ecosystem: str | None
    trials: int
    hallucinated: int

    @property
    def hit_rate(self) -> float:
        return round(self.hallucinated / self.trials, 4)


@dataclass(frozen=True, slots=True)
class BenchmarkRun:
    run: str
    run_date: date | None
    rows: tuple[BenchmarkRow, ...]


def _text(item: dict[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = item.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 128:
        raise InvalidInput(f"{where}.{key}", f"{where}.{key} must be a string of 1-128 characters")
    return value.strip()


def _count(item: dict[str, Any], key: str, where: str) -> int:
    value = item.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidInput(f"{where}.{key}", f"{where}.{key} must be a non-negative integer")
    return value


def parse_results(data: Any) -> BenchmarkRun:
    """
    A result file (see docs/api.md, "Hallucination benchmark"): an object with `run` (string),
    optional `date` (YYYY-MM-DD) and `results`, a non-empty list of objects with `model`,
    `condition`, optional `ecosystem`, `trials` (> 0) and `hallucinated` (0..trials). Raises
    `InvalidInput` naming the first bad field.
    """
    if not isinstance(data, dict):
        raise InvalidInput("file", "a result file is a JSON object")
    run = _text(data, "run", "file")
    assert run is not None
    run_date: date | None = None
    if data.get("date") is not None:
        try:
            run_date = date.fromisoformat(str(data["date"]))
        except ValueError:
            raise InvalidInput("file.date", "file.date must be YYYY-MM-DD") from None
    results = data.get("results")
    if not isinstance(results, list) or not results:
        raise InvalidInput("file.results", "file.results must be a non-empty list")
    rows = []
    for i, item in enumerate(results):
        where = f"results[{i}]"
        if not isinstance(item, dict):
            raise InvalidInput(where, f"{where} must be an object")
        model, condition = _text(item, "model", where), _text(item, "condition", where)
        ecosystem = _text(item, "ecosystem", where, required=False)
        trials, hallucinated = _count(item, "trials", where), _count(item, "hallucinated", where)
        if trials == 0 or hallucinated > trials:
            raise InvalidInput(
                f"{where}.trials", f"{where}: need 0 < trials and hallucinated ≤ trials"
            )
        assert model is not None and condition is not None
        rows.append(BenchmarkRow(model, condition, ecosystem, trials, hallucinated))
    return BenchmarkRun(run, run_date, tuple(rows))
