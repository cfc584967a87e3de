"""
Error-to-fix knowledge: entries keyed by the SHA-256 of their normalised pattern, matches with
their confidence and reason, misses and votes (pure values).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from pkgintel.domain.knowledge.error_patterns import Form, NormalisedError


@dataclass(frozen=True, slots=True)
class InvolvedPackage:
    """A package an error is about, with the version range concerned (as the ecosystem writes it)."""

    name: str
    ecosystem: str
    versions: str | None = None
    """e.g. `>=23.0` (pip that enforces PEP 668); None when every version is concerned."""


@dataclass(frozen=True, slots=True)
class ErrorEntry:
    """One known error and its fix."""

    error_hash: str
    pattern: str
    form: Form
    ecosystem: str
    tool: str
    title: str
    cause: str
    fix: tuple[str, ...]
    sources: tuple[str, ...]
    packages: tuple[InvolvedPackage, ...] = ()
    votes_up: int = 0
    votes_down: int = 0
    hits: int = 0
    origin: str = "curated"
    updated_at: datetime | None = None


class MatchMethod(StrEnum):
    EXACT = "exact"
    FULLTEXT = "fulltext"
    FUZZY = "fuzzy"


@dataclass(frozen=True, slots=True)
class ErrorMatch:
    """An entry matched to an input, with how sure we are and why."""

    entry: ErrorEntry
    confidence: float
    """0..1: exact specific 0.97, exact generic 0.9, text/fuzzy similarity scaled below 0.85."""
    method: MatchMethod
    why: str
    matched_line: str | None = None
    """The input's normalised line that matched."""


@dataclass(frozen=True, slots=True)
class ErrorResolution:
    """Answer to "how do I fix this": matches best first, or a recorded miss."""

    normalised: NormalisedError
    matches: tuple[ErrorMatch, ...]
    miss_recorded: bool = False
    miss_count: int | None = None
    """How often this pattern has now been missed (when `miss_recorded`)."""
    unavailable: str | None = None
    """Why the error knowledge could not be searched (not loaded yet, or its load failed): a
    "no match" then says nothing about the error, and no miss is recorded."""


@dataclass(frozen=True, slots=True)
class ErrorMiss:
    """A pattern nobody could resolve; kept without the raw text."""

    error_hash: str
    pattern: str
    tool: str | None
    count: int
    first_seen: datetime
    last_seen: datetime


class Vote(StrEnum):
    UP = "up"
    DOWN = "down"


@dataclass(frozen=True, slots=True)
class VoteOutcome:
    """Totals after a vote; `status` is `recorded`, `changed` (the client flipped) or `unchanged`."""

    error_hash: str
    votes_up: int
    votes_down: int
    status: str


@dataclass(frozen=True, slots=True)
class KnowledgeLoad:
    """Summary of loading curated entries into storage."""

    total: int
    added: int
    updated: int
    removed: int
    by_tool: dict[str, int] = field(default_factory=dict)
