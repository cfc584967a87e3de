"""Wire shapes of the Scorecard, provenance, bundle and TypeScript signals (plain dicts)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pkgintel.domain.purl import purl_of
from pkgintel.domain.signals.attestations import SigstoreFacts
from pkgintel.domain.signals.scorecard import CALLED_OUT, ScorecardCheck
from pkgintel.services.signals.artifacts import BundleFacts, TypescriptFacts
from pkgintel.services.signals.provenance import ProvenanceAnswer, VersionProvenance
from pkgintel.services.signals.scorecard import ScorecardResult

_CALLED_OUT_KEYS = {
    "Branch-Protection": "branch_protection",
    "Signed-Releases": "signed_releases",
    "Pinned-Dependencies": "pinned_dependencies",
}


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def _check(check: ScorecardCheck | None, name: str) -> dict[str, Any]:
    if check is None:
        return {"name": name, "score": None, "reason": "not in this Scorecard result"}
    return {
        "name": check.name,
        "score": check.score,
        "reason": check.reason,
        **({"inconclusive": True} if check.score is None else {}),
        "documentation": check.documentation_url,
    }


def scorecard_wire(result: ScorecardResult) -> dict[str, Any]:
    """The report's `scorecard` object and the body of `/api/scorecard` (without `_meta`)."""
    card = result.scorecard
    out: dict[str, Any] = {
        "available": card is not None,
        "status": result.status,
        "reason": result.reason,
        "repository": result.repository,
        "project": result.project,
    }
    if card is None:
        return out
    out.update(
        {
            "score": card.score,
            "max_score": 10,
            "date": _iso(card.date),
            "scorecard_version": card.scorecard_version,
            "commit": card.commit,
            **{_CALLED_OUT_KEYS[name]: _check(card.check(name), name) for name in CALLED_OUT},
            "checks": [_check(c, c.name) for c in card.checks],
        }
    )
    return out


def bundle_wire(bundle: BundleFacts) -> dict[str, Any]:
    return {
        "version": bundle.version,
        "unpacked_size_bytes": bundle.unpacked_size_bytes,
        "file_count": bundle.file_count,
        "dependencies_count": bundle.dependencies_count,
        "minified_size_bytes": None,
        "gzip_size_bytes": None,
        "reason": bundle.reason,
        "sizes_note": "minified and gzip sizes are not published by the registry; not measured here",
        "source": "registry.npmjs.org",
    }


def typescript_wire(ts: TypescriptFacts) -> dict[str, Any]:
    dt = ts.definitely_typed
    return {
        "version": ts.version,
        "bundled_types": ts.bundled_types,
        "types_entry": ts.types_entry,
        "declared_by": ts.declared_by,
        "definitely_typed": None
        if dt is None
        else {
            "name": dt.name,
            "exists": dt.exists,
            "latest_version": dt.latest_version,
            "deprecated": dt.deprecated,
            "deprecated_message": dt.deprecated_message,
            "reason": dt.reason,
        },
        "note": ts.note,
    }


def facts_wire(facts: SigstoreFacts) -> dict[str, Any]:
    return {
        "predicate_type": facts.predicate_type,
        "issuer": facts.issuer,
        "identity": facts.identity,
        "repository": facts.repository,
        "workflow": facts.workflow,
        "ref": facts.ref,
        "commit": facts.commit,
        "trigger": facts.trigger,
        "runner": facts.runner,
        "run_url": facts.run_url,
        "publisher_kind": facts.publisher_kind,
        "environment": facts.environment,
        "signed_at": _iso(facts.signed_at),
        "transparency_log_index": facts.log_index,
        "subjects": list(facts.subjects),
    }


def version_provenance_wire(vp: VersionProvenance) -> dict[str, Any]:
    idx = vp.index
    out: dict[str, Any] = {
        "version": idx.version,
        "attested": idx.attested,
    }
    if idx.files is not None:
        out["files"] = idx.files
        out["attested_files"] = idx.attested_files
    if idx.registry_signed is not None:
        out["registry_signed"] = idx.registry_signed
    if idx.predicate_types:
        out["predicate_types"] = list(idx.predicate_types)
    out["facts_status"] = vp.facts_status
    if vp.facts_reason:
        out["facts_reason"] = vp.facts_reason
    out["bundles"] = [facts_wire(f) for f in vp.facts]
    return out


def provenance_wire(ans: ProvenanceAnswer) -> dict[str, Any]:
    """The body of `/api/provenance` (without `_meta`)."""
    out: dict[str, Any] = {
        "ecosystem": ans.ecosystem.value,
        "package": ans.package,
        "purl": purl_of(ans.ecosystem, ans.package, ans.version),
        "version": ans.version,
        "requested_version": ans.requested_version,
        "is_latest": ans.version == ans.snapshot.info.latest_version,
        "available": ans.available,
        "reason": ans.reason,
        "kind": ans.kind,
        "verified_by_us": False,
        "verification_note": (
            "facts are read from the attestations the registry serves; the registry verified them "
            "at upload, this service does not re-verify signatures"
        ),
    }
    if not ans.available or ans.current is None or ans.change is None:
        return out
    change = ans.change
    out.update(
        {
            "attested": ans.current.index.attested,
            "current": version_provenance_wire(ans.current),
            "lost_provenance": change.lost_provenance,
            "last_attested_version": change.last_attested,
            "publisher_changed": ans.publisher_change is not None,
            "publisher_change": ans.publisher_change,
            "predecessors": {
                "compared": list(change.compared),
                "attested": change.attested_predecessors,
                "versions": [version_provenance_wire(v) for v in ans.predecessors],
            },
            "summary": change.reason,
        }
    )
    return out
