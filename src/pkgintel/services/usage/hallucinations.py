"""
`HallucinationBenchmark`: the corpus of package names agents asked for that did not exist (from
our usage log), the verification of one name, and the benchmark results an operator loaded.

Registry membership comes from the name index (database only); for a single verification whose
index cannot answer (not loaded, or only the popularity snapshot), the live registry is asked
(`live_exists`), and when that fails too the answer says `in_registry: null` — never a guess.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Protocol

from pkgintel.domain.errors import InvalidInput, StorageError
from pkgintel.domain.hallucinations import (
    BenchmarkRun,
    CorpusEntry,
    Verification,
    evidence,
)
from pkgintel.domain.names.rules import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.usage_figures import iso
from pkgintel.services.names.index import ExistsAnswer


class CorpusReads(Protocol):
    async def corpus(self, *, ecosystem: str | None, limit: int) -> list[CorpusEntry]: ...

    async def corpus_hits(self, ecosystem: str, package: str) -> int: ...


class ResultStore(Protocol):
    async def replace_run(self, run: BenchmarkRun, loaded_at: datetime) -> int: ...

    async def latest(self) -> tuple[BenchmarkRun, datetime] | None: ...


class NameIndex(Protocol):
    async def exists(
        self, ecosystem: Ecosystem, name: str, *, suggestions: bool = True
    ) -> ExistsAnswer: ...


def ecosystem_of(value: str) -> Ecosystem:
    try:
        return Ecosystem(value)
    except ValueError:
        raise InvalidInput("ecosystem", f"unknown ecosystem {value[:32]!r}") from None


class HallucinationBenchmark:
    """See the module docstring. `flush` writes the usage log's buffer before a read."""

    def __init__(
        self,
        reads: CorpusReads,
        results: ResultStore,
        names: NameIndex,
        *,
        live_exists: Callable[[Ecosystem, str], Awaitable[bool | None]] | None,
        flush: Callable[[], Awaitable[int]] | None,
        clock: Callable[[], datetime],
    ) -> None:
        self._reads, self._results, self._names = reads, results, names
        self._live, self._flush, self._clock = live_exists, flush, clock

    async def _flushed(self) -> None:
        if self._flush is not None:
            with contextlib.suppress(StorageError):  # what is written is still read
                await self._flush()

    async def corpus(self, ecosystem: str | None, limit: int) -> list[dict[str, Any]]:
        """The corpus, most asked first, each entry with the nearest real name and whether the
        name exists in the registry now (`registered_since`; null when the index cannot say)."""
        if ecosystem is not None:
            ecosystem_of(ecosystem)
        await self._flushed()
        out = []
        for entry in await self._reads.corpus(ecosystem=ecosystem, limit=limit):
            answer = await self._index(entry.ecosystem, entry.package)
            out.append(
                {
                    "ecosystem": entry.ecosystem,
                    "package": entry.package,
                    "hit_count": entry.hit_count,
                    "clients": entry.clients,
                    "first_seen": iso(entry.first_seen),
                    "last_seen": iso(entry.last_seen),
                    "nearest_real_name": _nearest(answer),
                    "registered_since": answer.exists if answer is not None else None,
                }
            )
        return out

    async def verify(self, ecosystem: str, package: str) -> dict[str, Any]:
        """The benchmark verification object of one name."""
        eco = ecosystem_of(ecosystem)
        name = validate_name(eco, package)
        key = normalise_name(eco, name)
        await self._flushed()
        hits = await self._reads.corpus_hits(eco.value, key)
        answer = await self._index(eco.value, name)
        in_registry = answer.exists if answer is not None else None
        if in_registry is None and self._live is not None:
            in_registry = await self._live(eco, name)
        v = Verification(hits > 0, in_registry, hits)
        return {
            "ecosystem": eco.value,
            "package": name,
            "is_hallucinated": v.is_hallucinated,
            "in_corpus": v.in_corpus,
            "in_registry": v.in_registry,
            "hit_count": hits,
            "verdict": v.verdict,
            "evidence": evidence(v, ecosystem=eco.value, package=name),
            "likely_real_alternative": None if in_registry else _nearest(answer),
        }

    async def _index(self, ecosystem: str, name: str) -> ExistsAnswer | None:
        try:
            return await self._names.exists(Ecosystem(ecosystem), name)
        except (ValueError, InvalidInput):
            return None

    async def results(self) -> dict[str, Any]:
        """Hit rates by model and condition of the newest loaded run (empty, with the reason,
        before any load)."""
        latest = await self._results.latest()
        if latest is None:
            return {
                "run": None,
                "results": [],
                "explanation": "no benchmark results are loaded in this installation; an "
                "operator loads a result file with `pkgintel benchmark load <file>`",
            }
        run, loaded_at = latest
        return {
            "run": run.run,
            "date": run.run_date.isoformat() if run.run_date else None,
            "loaded_at": iso(loaded_at),
            "results": [
                {
                    "model": r.model,
                    "condition": r.condition,
                    "ecosystem": r.ecosystem,
                    "trials": r.trials,
                    "hallucinated": r.hallucinated,
                    "hit_rate": r.hit_rate,
                }
                for r in run.rows
            ],
            "explanation": "hit_rate is the share of trials in which the model named a package "
            "that does not exist",
        }

    async def load(self, run: BenchmarkRun) -> int:
        """Store a parsed result file (replacing a run of the same name); rows written."""
        return await self._results.replace_run(run, self._clock())


def _nearest(answer: ExistsAnswer | None) -> str | None:
    if answer is None or answer.exists:
        return None
    return answer.did_you_mean[0] if answer.did_you_mean else None
