"""
Wire shape of a compatibility answer: `compat_wire` builds the plain dict the routes send; `CompatOut`
documents it for `/openapi.json` and is the MCP tool `check_compatibility`'s output schema. Open
(`extra="allow"`): a new field is not a breaking change.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.domain.knowledge.compat import Conflict
from pkgintel.services.knowledge.compatibility import CompatReport


def conflict_wire(c: Conflict) -> dict[str, Any]:
    return {
        "package": c.package,
        "version": c.package_version,
        "requires": c.requires,
        "constraint": c.constraint,
        "found_version": c.found_version,
        "kind": c.kind,
        "origin": c.origin,
        "source": c.source,
        "message": c.message,
        "fix": c.fix or None,
    }


def compat_wire(r: CompatReport, *, public_url: str) -> dict[str, Any]:
    if r.compatible is True:
        verdict = "compatible: every declared constraint among these versions holds"
    elif r.compatible is False:
        verdict = f"incompatible: {len(r.conflicts)} conflict(s)"
    else:
        verdict = "unknown: " + "; ".join(_unchecked(r))
    return {
        "ecosystem": r.ecosystem.value,
        "ecosystem_detected": r.ecosystem_detected,
        "detection": r.detection,
        "packages": r.packages,
        "runtimes": r.runtimes,
        "python_assumed": r.python_assumed,
        "compatible": r.compatible,
        "verdict": verdict,
        "conflicts": [conflict_wire(c) for c in r.conflicts],
        "warnings": [
            {
                "package": w.package,
                "kind": w.kind,
                "message": w.message,
                "requires": w.requires,
                "constraint": w.constraint,
            }
            for w in r.warnings
        ],
        "unavailable": [
            {
                "package": u.package,
                "version": u.version,
                "reason": u.reason,
                "message": u.message,
                "unread": list(u.unread),
            }
            for u in r.unavailable
        ],
        "suggested_versions": [
            {"keep": s.keep, "versions": s.versions, "changes": s.changes} for s in r.suggestions
        ],
        "_meta": {
            "endpoint": "/api/compat",
            "docs": f"{public_url}/docs",
            "sources": [
                {
                    "name": s.name,
                    "package": s.package,
                    "version": s.version,
                    "status": s.status,
                    "fetched_at": s.fetched_at.isoformat() if s.fetched_at else None,
                }
                for s in r.sources
            ],
        },
    }


def _unchecked(r: CompatReport) -> list[str]:
    """What kept the answer from `compatible`: declarations not read, constraints not evaluated."""
    out = [
        f"{u.package} {u.version}: {', '.join(u.unread) or 'metadata'} not read ({u.reason})"
        for u in r.unavailable
    ]
    out += [f"{w.package}: {w.message}" for w in r.warnings if w.kind == "unevaluable"]
    return out or ["not every declared constraint could be checked"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class ConflictOut(_Open):
    package: str = Field(description="the package whose declared constraint is broken")
    version: str
    requires: str = Field(description="the package or runtime (node, python) it constrains")
    constraint: str = Field(description="the range as the ecosystem writes it")
    found_version: str = Field(description="the version in the stack that breaks it")
    kind: str = Field(description="peer, peer_optional, requires, engine or curated")
    origin: str = Field(description="declared (registry metadata) or curated (our knowledge)")
    source: str = Field(description="where the constraint is written (metadata field or a URL)")
    message: str
    fix: str | None = Field(
        default=None,
        description="curated conflicts: the versions that work together again (null if declared)",
    )


class CompatWarningOut(_Open):
    package: str
    kind: str = Field(description="missing_peer, duplicate_copy, unevaluable or runtime_unstated")
    message: str
    requires: str | None
    constraint: str | None


class CompatUnavailableOut(_Open):
    package: str
    version: str
    reason: str = Field(
        description="not_found, version_not_found, upstream_unavailable, unsupported or "
        "metadata_unavailable (the version exists; some of its own declarations could not be read)"
    )
    message: str
    unread: list[str] = Field(
        default_factory=list,
        description="the declarations of this version that were not checked "
        "(requires_dist, requires_python; npm dependencies, peerDependencies, engines...)",
    )


class CompatSuggestionOut(_Open):
    keep: str | None = Field(description="the package kept at its asked version (null: all move)")
    versions: dict[str, str] = Field(description="a whole compatible set of published versions")
    changes: dict[str, str] = Field(description="only the versions that differ from the asked ones")


class CompatSourceOut(_Open):
    name: str
    package: str
    version: str
    status: str = Field(description="ok, stale or unavailable")
    fetched_at: datetime | None


class CompatMetaOut(_Open):
    endpoint: str
    docs: str
    sources: list[CompatSourceOut]


class CompatOut(_Open):
    """`/api/compat` (GET and POST): whether exact versions satisfy each other's constraints."""

    ecosystem: str
    ecosystem_detected: bool
    detection: str = Field(description="how the ecosystem was chosen")
    packages: dict[str, str]
    runtimes: dict[str, str] = Field(description="node / python versions given")
    python_assumed: str | None = Field(description="the Python version assumed when none is given")
    compatible: bool | None = Field(
        description="null: some declared constraint could not be read or evaluated "
        "(see unavailable and unevaluable warnings); never true then"
    )
    verdict: str
    conflicts: list[ConflictOut]
    warnings: list[CompatWarningOut]
    unavailable: list[CompatUnavailableOut]
    suggested_versions: list[CompatSuggestionOut]
    meta: CompatMetaOut = Field(alias="_meta")
    response_ms: float = Field(alias="_response_ms")
