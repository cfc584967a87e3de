"""
Wire shapes of the error-to-fix endpoints: plain dicts built from domain values by the `*_wire`
functions, and `ErrorResolutionOut`, which documents the `/api/error/resolve` answer for
`/openapi.json` and is the MCP tool `resolve_error`'s output schema (open: new fields are allowed).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.domain.knowledge.error_patterns import NormalisedError
from pkgintel.domain.knowledge.errors import ErrorEntry, ErrorMatch, ErrorResolution, VoteOutcome


def entry_wire(entry: ErrorEntry) -> dict[str, Any]:
    return {
        "error_hash": entry.error_hash,
        "pattern": entry.pattern,
        "form": entry.form.value,
        "ecosystem": entry.ecosystem,
        "tool": entry.tool,
        "title": entry.title,
        "cause": entry.cause,
        "fix": list(entry.fix),
        "packages": [
            {"name": p.name, "ecosystem": p.ecosystem, "versions": p.versions}
            for p in entry.packages
        ],
        "sources": list(entry.sources),
        "votes": {
            "up": entry.votes_up,
            "down": entry.votes_down,
            "score": entry.votes_up - entry.votes_down,
        },
        "hits": entry.hits,
        "origin": entry.origin,
    }


def match_wire(match: ErrorMatch) -> dict[str, Any]:
    return {
        **entry_wire(match.entry),
        "confidence": match.confidence,
        "match": match.method.value,
        "why": match.why,
        "matched_line": match.matched_line,
    }


def normalised_wire(n: NormalisedError) -> dict[str, Any]:
    return {
        "pattern": n.pattern,
        "error_hash": n.error_hash if n.pattern else None,
        "tool": n.tool,
        "decisive_lines": [
            {"line": d.index + 1, "family": d.family, "pattern": d.specific, "generic": d.generic}
            for d in n.lines
        ],
    }


def resolution_wire(r: ErrorResolution) -> dict[str, Any]:
    matched = bool(r.matches)
    if matched:
        message = f"{len(r.matches)} known fix(es), best first"
    elif r.unavailable is not None:
        message = f"no match possible: {r.unavailable}"
    elif not r.normalised.pattern:
        message = "no match: no decisive error line was found in the text"
    else:
        message = "no match: this error is not in the database yet" + (
            "; its pattern was recorded" if r.miss_recorded else ""
        )
    return {
        "status": "match" if matched else "no_match",
        "message": message,
        "normalised": normalised_wire(r.normalised),
        "solutions": [match_wire(m) for m in r.matches],
        "miss": {"recorded": r.miss_recorded, "count": r.miss_count} if not matched else None,
    }


def vote_wire(v: VoteOutcome) -> dict[str, Any]:
    return {
        "error_hash": v.error_hash,
        "status": v.status,
        "votes": {"up": v.votes_up, "down": v.votes_down, "score": v.votes_up - v.votes_down},
    }


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class InvolvedPackageOut(_Open):
    name: str
    ecosystem: str
    versions: str | None = Field(description="the range concerned; null: every version")


class VotesOut(_Open):
    up: int
    down: int
    score: int


class ErrorSolutionOut(_Open):
    """One known error entry matched to the input."""

    error_hash: str
    pattern: str
    form: str
    ecosystem: str
    tool: str
    title: str
    cause: str
    fix: list[str] = Field(description="the steps, in order")
    packages: list[InvolvedPackageOut]
    sources: list[str] = Field(description="where the fix is documented (URLs)")
    votes: VotesOut
    hits: int
    origin: str
    confidence: float = Field(ge=0, le=1)
    match: str = Field(description="exact, fulltext or fuzzy")
    why: str
    matched_line: str | None


class DecisiveLineOut(_Open):
    line: int = Field(description="1-based line number in the input")
    family: str
    pattern: str
    generic: str


class NormalisedOut(_Open):
    pattern: str = Field(description='the primary pattern; "" when no line is decisive')
    error_hash: str | None
    tool: str | None
    decisive_lines: list[DecisiveLineOut]


class MissOut(_Open):
    recorded: bool
    count: int | None


class ErrorMetaOut(_Open):
    endpoint: str
    docs: str
    sources: list[dict[str, Any]]


class ErrorResolutionOut(_Open):
    """`POST /api/error/resolve`: known fixes for an error or log, best first."""

    status: str = Field(description="match or no_match")
    message: str
    normalised: NormalisedOut
    solutions: list[ErrorSolutionOut]
    miss: MissOut | None = Field(description="with no match: whether the miss was recorded")
    meta: ErrorMetaOut = Field(alias="_meta")
    response_ms: float = Field(alias="_response_ms")
