"""Wire shape of a typosquat answer: `/api/typosquat`, the report's `typosquat` field, MCP."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pkgintel.application.schemas.answers import SourcesMetaOut, _Open
from pkgintel.application.schemas.packages import purl_field
from pkgintel.domain.names.rules import NameIndexState
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.services.names.hints import TyposquatHint


def suspected_or_unknown(hint: TyposquatHint) -> bool | None:
    """
    `is_suspected` on the wire, the same in every door (report, `/api/typosquat`, MCP): `true` when
    suspected (also from the slopsquat reports alone), `null` when not checked (no popularity data
    is loaded for the ecosystem: unknown, never "not suspected"), else `false` (ADR 0003).
    """
    if hint.is_suspected:
        return True
    return None if hint.status == "unavailable" or not hint.checked else False


def typosquat_wire(hint: TyposquatHint) -> dict[str, Any]:
    """
    The typosquat object (the report's `typosquat` field and the body of `/api/typosquat`).
    `is_suspected` is `suspected_or_unknown`: `null` when the name could not be checked.
    `targets` lists every popular name the package imitates, suspected or not, with the evidence.
    """
    slop = hint.slopsquat
    return {
        "is_suspected": suspected_or_unknown(hint),
        "checked": hint.checked,
        "status": hint.status,
        "reason": hint.reason,
        "suspect_popularity": hint.suspect_popularity,
        "established": hint.established,
        "targets": [
            {
                "name": m.name,
                "technique": m.technique,
                "edit_distance": m.edit_distance,
                "similarity": m.similarity,
                "detail": m.detail,
                "target_popularity": m.popularity,
                "target_monthly_downloads": m.monthly_downloads,
                "target_rank": m.rank,
                "popularity_delta": {"ratio": m.popularity_ratio, "basis": m.gap_basis},
                "suspected": m.suspected,
                "why": m.why,
                "target_ecosystem": m.ecosystem,
                "outside_pool": m.outside_pool,
            }
            for m in hint.matches
        ],
        "slopsquat": None if slop is None else slop.facts(),
    }


def name_index_source(ecosystem: str, state: NameIndexState | None) -> SourceStatus:
    """The name index as a `_meta.sources` entry (unavailable when it was never loaded)."""
    if state is None:
        return SourceStatus(
            "name_index",
            "name_index",
            SourceState.UNAVAILABLE,
            detail=f"no {ecosystem} name index is loaded (`pkgintel ingest names`)",
        )
    return SourceStatus(
        f"name_index:{state.source}",
        "name_index",
        SourceState.OK,
        fetched_at=state.loaded_at,
        detail=(
            f"{state.names_count:,} most popular {ecosystem} names of the popularity snapshot "
            "shipped with pkgintel (a partial index: absence proves nothing)"
            if state.partial
            else f"{state.names_count:,} {ecosystem} names"
        ),
    )


class TyposquatOut(_Open):
    """`/api/typosquat/{ecosystem}/{package}`: popular names the package imitates."""

    package: str
    purl: str | None = purl_field()
    ecosystem: str
    normalized: str
    exists: bool | None = Field(description="in the name index; null when none is loaded")
    is_suspected: bool | None = Field(description="null: no popularity data to judge with")
    checked: bool
    status: str = Field(description="ok or unavailable")
    reason: str
    suspect_popularity: str | None
    established: str | None
    targets: list[dict[str, Any]]
    slopsquat: dict[str, Any] | None
    meta: SourcesMetaOut = Field(alias="_meta")
    response_ms: int = Field(alias="_response_ms")
