"""
The answers of the typosquat judgement: `TyposquatHint` (is the name a suspect, and why),
`TyposquatTarget` (one popular name it imitates, with the evidence) and `Slopsquat` (the name was
reported as invented by language models). Values only; `names.typosquat` builds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from pkgintel.domain.names.rules import NameIndexState
from pkgintel.knowledge.slopsquats import HallucinatedName


@dataclass(frozen=True, slots=True)
class TyposquatTarget:
    """A popular name the checked name imitates, with the evidence for and against suspicion."""

    name: str
    technique: str
    """See `domain.names.typosquat` (omission, repetition, transposition, adjacent_key, homoglyph,
    delimiter, insertion, substitution, two_edits, scope_confusion, combosquat, version_suffix)."""
    edit_distance: int
    similarity: float
    """rapidfuzz ratio, 0-100."""
    detail: str
    popularity: str
    """The target's popularity in words (downloads or rank)."""
    monthly_downloads: int | None
    rank: int | None
    popularity_ratio: float | None
    """Target over suspect (downloads, or ranks as a stand-in); None when not measurable."""
    gap_basis: str
    """`downloads`, `rank` or `unknown`."""
    suspected: bool
    why: str
    ecosystem: str | None = None
    """The target's ecosystem when it is another one (`cross_ecosystem`); None: the same."""
    outside_pool: bool = False
    """The target was found in the whole name index, outside the `names.pools.POPULAR_POOL` popular names."""


@dataclass(frozen=True, slots=True)
class Slopsquat:
    """A registered name (or one that may be) that was invented before it existed: publicly reported
    as invented by language models (`report`, `knowledge.slopsquats`), or asked for by our own
    callers while it did not exist (`first_asked`, from the usage log: `names.first_asked`)."""

    report: HallucinatedName | None
    registered: bool | None
    """True: the registry (or the name index) has it; None: unknown (no index loaded)."""
    registered_after_report: bool | None
    """Registered after the report (or after the first ask), from the first release date when
    known; None when either date is unknown."""
    registered_on: date | None = None
    """The first release's date from the registry's metadata; None when unknown."""
    first_asked: datetime | None = None
    """When our usage log first recorded the name asked for while it did not exist."""

    @property
    def basis(self) -> str:
        """`report` (a public report of LLM-invented names) or `usage_log` (our own log)."""
        return "report" if self.report is not None else "usage_log"

    @property
    def evidence(self) -> str:
        """The evidence in words: the report and its month, or the date of the first ask."""
        if self.report is not None:
            month = self.report.reported_in or "an undated report"
            return f"reported as invented by language models ({month}): {self.report.source}"
        asked = self.first_asked.date().isoformat() if self.first_asked else "an unknown date"
        return f"first asked for on {asked}, while it did not exist (pkgintel usage log)"

    def facts(self) -> dict[str, Any]:
        """The wire object every door shows (`/api/typosquat`, the report, check_bulk, MCP).
        `registered_on` is the first release date, `unknown` when the registry metadata at hand
        does not give it, null when the name is not registered (or that is unknown)."""
        report = self.report
        return {
            "reported_as_llm_invented": report is not None,
            "basis": self.basis,
            "evidence": self.evidence,
            "registered": self.registered,
            "registered_on": (
                self.registered_on.isoformat()
                if self.registered_on is not None
                else "unknown"
                if self.registered
                else None
            ),
            "registered_after_report": self.registered_after_report,
            "reported_in": report.reported_in if report is not None else None,
            "first_asked": self.first_asked.date().isoformat() if self.first_asked else None,
            "real_package": report.meant if report is not None else None,
            "note": report.note if report is not None else None,
            "source": report.source if report is not None else None,
        }


@dataclass(frozen=True, slots=True)
class TyposquatHint:
    """Whether a name looks like a misspelling of a much more popular one."""

    is_suspected: bool
    checked: bool
    targets: tuple[tuple[str, int], ...] = ()
    """(popular name, edit distance) of the targets that make it a suspect."""
    reason: str = ""
    matches: tuple[TyposquatTarget, ...] = ()
    """Every popular name it imitates, suspected or not, with the evidence."""
    suspect_popularity: str | None = None
    status: str = "ok"
    """`ok`, or `unavailable` when no popularity data is loaded for the ecosystem."""
    index: NameIndexState | None = None
    slopsquat: Slopsquat | None = None
    established: str | None = None
    """Why the name is established (and so not a suspect), when it is."""
