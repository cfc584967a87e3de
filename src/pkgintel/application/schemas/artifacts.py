"""Wire models of `/api/scorecard` and `/api/provenance` (open models, for the OpenAPI document)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from pkgintel.application.schemas.packages import SourceOut, _Open, purl_field


class _MetaSourcesOut(_Open):
    endpoint: str
    sources: list[SourceOut]


class ScorecardCheckOut(_Open):
    name: str
    score: int | None = Field(description="0-10; null when Scorecard could not decide (it says -1)")
    reason: str | None


class ScorecardOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str = Field(description="The version whose metadata named the repository (latest).")
    available: bool
    status: str = Field(
        description="ok, stale, not_scanned, no_repository, unsupported_host or unavailable"
    )
    reason: str | None
    repository: str | None
    project: str | None
    score: float | None = Field(None, description="Aggregate 0-10 (present when available).")
    branch_protection: ScorecardCheckOut | None = None
    signed_releases: ScorecardCheckOut | None = None
    pinned_dependencies: ScorecardCheckOut | None = None
    checks: list[ScorecardCheckOut] | None = None
    meta: _MetaSourcesOut = Field(alias="_meta")


class ProvenanceOut(_Open):
    ecosystem: str
    package: str
    purl: str | None = purl_field()
    version: str
    requested_version: str | None
    available: bool = Field(description="False when no provenance source answered (see reason).")
    reason: str | None
    kind: str | None
    attested: bool | None = None
    lost_provenance: bool | None = Field(
        None,
        description="The version has no attestation while the release just before it had one.",
    )
    last_attested_version: str | None = None
    publisher_changed: bool | None = None
    current: dict[str, Any] | None = None
    predecessors: dict[str, Any] | None = None
    meta: _MetaSourcesOut = Field(alias="_meta")
