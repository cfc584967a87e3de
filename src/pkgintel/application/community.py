"""Answers of `POST /api/anomaly`, `POST /api/track` and the operators' list of anomaly reports."""

from __future__ import annotations

from typing import Any

from pkgintel.application.usage_access import meta, usage_services
from pkgintel.domain.community import StoredAnomaly
from pkgintel.domain.usage_figures import iso
from pkgintel.runtime.container import Runtime


def anomaly_wire(stored: StoredAnomaly, retention_days: int) -> dict[str, Any]:
    r = stored.report
    return {
        "id": stored.id,
        "status": "received",
        "received_at": iso(stored.received_at),
        "ecosystem": r.ecosystem.value,
        "package": r.package,
        "version": r.version,
        "retention_days": retention_days,
    }


async def anomaly_answer(
    runtime: Runtime,
    *,
    ecosystem: str,
    package: str,
    version: str | None,
    observed: str,
    expected: str,
    evidence_url: str | None,
    client: str,
    source: str,
) -> dict[str, Any]:
    """Store one wrong-verdict report from `client` (a keyed hash) arriving through `source`."""
    service = usage_services(runtime).anomalies
    stored = await service.submit(
        ecosystem=ecosystem,
        package=package,
        version=version,
        observed=observed,
        expected=expected,
        evidence_url=evidence_url,
        client=client,
        source=source,
    )
    return {
        **anomaly_wire(stored, service.retention_days),
        "_meta": meta("/api/anomaly", "pkgintel anomaly reports"),
    }


async def anomalies_answer(runtime: Runtime, limit: int) -> dict[str, Any]:
    """The newest reports with their whole content (operators only)."""
    service = usage_services(runtime).anomalies
    rows = await service.newest(limit=limit)
    return {
        "reports": [
            {
                **anomaly_wire(row, service.retention_days),
                "observed": row.report.observed,
                "expected": row.report.expected,
                "evidence_url": row.report.evidence_url,
                "client": row.report.client,
                "source": row.report.source,
            }
            for row in rows
        ]
    }


async def track_answer(
    runtime: Runtime, *, path: str, referrer: str | None, client: str
) -> dict[str, Any]:
    stored_path, host = await usage_services(runtime).tracker.track(
        path=path, referrer=referrer, client=client
    )
    return {"status": "recorded", "path": stored_path, "referrer_host": host}
