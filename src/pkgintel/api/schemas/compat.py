"""Wire shape of a compatibility answer."""

from __future__ import annotations

from typing import Any

from pkgintel.domain.compat import Conflict
from pkgintel.services.compat import CompatReport


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
    }


def compat_wire(r: CompatReport, *, public_url: str) -> dict[str, Any]:
    if r.compatible is True:
        verdict = "compatible: every declared constraint among these versions holds"
    elif r.compatible is False:
        verdict = f"incompatible: {len(r.conflicts)} conflict(s)"
    else:
        verdict = "unknown: metadata of some packages is unavailable"
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
            {"package": u.package, "version": u.version, "reason": u.reason, "message": u.message}
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
