"""
The answers of the typosquat judgement: `TyposquatHint` (is the name a suspect, and why),
`TyposquatTarget` (one popular name it imitates, with the evidence) and `Slopsquat` (the name was
reported as invented by language models). Values only; `names.typosquat` builds them.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    """The name was publicly reported as invented by language models (`knowledge.slopsquats`)."""

    report: HallucinatedName
    registered: bool | None
    """True: the registry (or the name index) has it; None: unknown (no index loaded)."""
    registered_after_report: bool | None
    """From the first release date when known; None when either date is unknown."""


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
