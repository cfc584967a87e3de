"""
The curated compromise knowledge base (`knowledge/compromises`) merged into the malicious-package
answers. The merge only ever adds: a `malicious` status stays `malicious`; a release the knowledge
base names as compromised becomes `malicious`; a package with a past incident whose judged release is
outside it becomes `historical_incident` (from `clean`; `unknown` — no reports loaded — stays
`unknown`, since other reports may exist). `is_malicious` is never set to False here. Bulk checks
(database only) use `bulk_status`, where `historical_incident` is a warning, not a clean bill.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pkgintel.domain.packages import Ecosystem
from pkgintel.knowledge.compromises import CompromiseMatch, compromises_for
from pkgintel.knowledge.compromises import warm as warm_knowledge
from pkgintel.scoring.verdicts import MaliciousStatus
from pkgintel.services.advisories.vulnerabilities import MaliciousAnswer

CURATED_SOURCE = "pkgintel-compromises"


def incident_wire(m: CompromiseMatch) -> dict[str, Any]:
    """One curated incident as the answers show it."""
    return {
        "id": m.incident.id,
        "title": m.incident.title,
        "kind": m.incident.kind,
        "disclosed": m.incident.disclosed.isoformat(),
        "summary": m.incident.summary,
        "package": m.affected.package,
        "affected_versions": list(m.affected.versions),
        "all_versions": m.affected.all_versions,
        "version": m.version,
        "version_affected": m.version_affected,
        "remediation": m.affected.remediation,
        "sources": list(m.incident.sources),
    }


def merge_status(
    status: MaliciousStatus, ecosystem: Ecosystem, name: str
) -> tuple[MaliciousStatus, tuple[CompromiseMatch, ...]]:
    """`status` with the curated incidents of `name` merged in (see the module contract)."""
    matches = compromises_for(ecosystem, name, status.judged_version)
    if not matches or status.status == "malicious":
        return status, matches
    hit = next((m for m in matches if m.version_affected), None)
    affected = tuple(
        dict.fromkeys(
            (*status.affected_versions, *(v for m in matches for v in m.affected.versions))
        )
    )
    if hit is not None:
        what = "every release" if hit.affected.all_versions else f"release {status.judged_version}"
        return (
            MaliciousStatus(
                "malicious",
                status.judged_version,
                f"{what} is a known compromised release ({hit.incident.title}; "
                f"{hit.incident.sources[0]})",
                False,
                affected,
            ),
            matches,
        )
    if status.status == "unknown":
        # No reports are loaded: a release outside the curated incident is not thereby known clean.
        return status, matches
    newest = matches[0].incident
    judged = status.judged_version
    where = f"release {judged} is outside it" if judged else "no release was judged"
    reason = f"past compromise: {newest.title} ({newest.disclosed.isoformat()}); {where}"
    if status.status == "historical_incident":
        reason = f"{status.reason}; {reason}"
    return dataclasses.replace(
        status, status="historical_incident", reason=reason, affected_versions=affected
    ), matches


def merge_answer(
    answer: MaliciousAnswer, ecosystem: Ecosystem, name: str, version: str
) -> MaliciousAnswer:
    """The report's malicious answer for `version`: `is_malicious` becomes True when the knowledge
    base names that release as compromised (never False from curated data)."""
    matches = compromises_for(ecosystem, name, version)
    if not matches or answer.is_malicious:
        return answer
    if any(m.version_affected for m in matches):
        return dataclasses.replace(
            answer,
            is_malicious=True,
            extra={**answer.extra, "curated_incidents": [m.incident.id for m in matches]},
        )
    return answer


def bulk_status(
    ecosystem: Ecosystem, name: str, judged_version: str | None
) -> tuple[str, str, tuple[CompromiseMatch, ...]] | None:
    """For `/api/check_bulk`: (`malicious` or `historical_incident`, reason, matches) when the
    knowledge base names the package, else None."""
    matches = compromises_for(ecosystem, name, judged_version)
    if not matches:
        return None
    hit = next((m for m in matches if m.version_affected), None)
    if hit is not None:
        what = "every release" if hit.affected.all_versions else f"release {judged_version}"
        return (
            "malicious",
            f"{what} is a known compromised release ({hit.incident.title})",
            matches,
        )
    newest = matches[0].incident
    where = (
        f"release {judged_version} is outside it"
        if judged_version
        else "the release to judge is not known"
    )
    return (
        "historical_incident",
        f"past compromise: {newest.title} ({newest.disclosed.isoformat()}); {where}",
        matches,
    )


def warm() -> int:
    """Load the compromise knowledge base now (`knowledge.compromises.warm`), not in the first
    request that needs it; how many packages it names."""
    return warm_knowledge()
