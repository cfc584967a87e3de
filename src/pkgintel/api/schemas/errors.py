"""Wire shapes of the error-to-fix endpoints (plain dicts, built from domain values)."""

from __future__ import annotations

from typing import Any

from pkgintel.domain.error_knowledge import ErrorEntry, ErrorMatch, ErrorResolution, VoteOutcome
from pkgintel.domain.error_patterns import NormalisedError


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
    elif not r.normalised.pattern:
        message = "no match: no decisive error line was found in the text"
    else:
        message = "no match: this error is not in the database yet; its pattern was recorded"
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
