"""
`ingest_curated`: loads the curated files (`knowledge/curated/*.yaml`) into the database (`pkgintel
ingest knowledge`, and the shipped-knowledge load at start).
"""

from __future__ import annotations

from datetime import datetime

from pkgintel.domain.knowledge.values import CuratedRow
from pkgintel.domain.names.rules import normalise_name
from pkgintel.knowledge.curated import CuratedKnowledge
from pkgintel.storage.base import KnowledgeStore


async def ingest_curated(
    store: KnowledgeStore, curated: CuratedKnowledge, now: datetime
) -> dict[str, int]:
    """Replace the stored curated entries with `curated`; returns counts per kind."""
    rows: list[CuratedRow] = []
    for alt in curated.alternatives:
        rows.append(
            CuratedRow(
                "alternatives",
                alt.ecosystem,
                normalise_name(alt.ecosystem, alt.package),
                "",
                {
                    "package": alt.package,
                    "reason": alt.reason,
                    "deprecated": alt.deprecated,
                    "alternatives": [
                        {"name": c.name, "why": c.why, "source": c.source, "builtin": c.builtin}
                        for c in alt.alternatives
                    ],
                },
                alt.source,
                now,
            )
        )
    for m in curated.migrations:
        rows.append(
            CuratedRow(
                "migration",
                m.ecosystem,
                normalise_name(m.ecosystem, m.from_package),
                normalise_name(m.ecosystem, m.to_package),
                {
                    "from": m.from_package,
                    "to": m.to_package,
                    "rationale": m.rationale,
                    "estimated_minutes": m.estimated_minutes,
                    "steps": list(m.steps),
                    "before": m.before,
                    "after": m.after,
                    "differences": list(m.differences),
                    "sources": list(m.sources),
                },
                m.sources[0],
                now,
            )
        )
    for b in curated.breaking:
        rows.append(
            CuratedRow(
                "breaking",
                b.ecosystem,
                normalise_name(b.ecosystem, b.package),
                b.version,
                {
                    "package": b.package,
                    "changes": [{"text": t, "hint": h} for t, h in b.changes],
                },
                b.source,
                now,
            )
        )
    await store.replace_curated(rows)
    return {
        "alternatives": len(curated.alternatives),
        "migrations": len(curated.migrations),
        "breaking": len(curated.breaking),
    }
