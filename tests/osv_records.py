"""Hand-written OSV records (the real schema, invented packages) and export zips built from them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pkgintel.sources.osv_export import iter_records

if TYPE_CHECKING:
    from pkgintel.runtime.container import Runtime
    from pkgintel.services.advisories.ingest import IngestSummary


def record(
    rid: str,
    ecosystem: str,
    name: str,
    *,
    events: list[dict[str, str]] | None = None,
    versions: list[str] | None = None,
    aliases: list[str] | None = None,
    severity: str | None = None,
    modified: str = "2026-01-01T00:00:00Z",
    withdrawn: str | None = None,
    summary: str = "",
    range_type: str = "ECOSYSTEM",
) -> dict[str, Any]:
    """One OSV record naming one package."""
    affected: dict[str, Any] = {"package": {"ecosystem": ecosystem, "name": name}}
    if events is not None:
        affected["ranges"] = [{"type": range_type, "events": events}]
    if versions is not None:
        affected["versions"] = versions
    rec: dict[str, Any] = {
        "schema_version": "1.6.0",
        "id": rid,
        "modified": modified,
        "published": "2025-12-01T00:00:00Z",
        "aliases": aliases or [],
        "summary": summary or f"Issue {rid} in {name}",
        "affected": [affected],
        "references": [{"type": "ADVISORY", "url": f"https://example.test/{rid}"}],
    }
    if severity:
        rec["database_specific"] = {"severity": severity}
    if withdrawn:
        rec["withdrawn"] = withdrawn
    return rec


def malicious(
    rid: str, ecosystem: str, name: str, versions: list[str] | None = None
) -> dict[str, Any]:
    """An OpenSSF-style malicious-package report: every version, or the listed ones."""
    rec = record(
        rid,
        ecosystem,
        name,
        events=None if versions else [{"introduced": "0"}],
        versions=versions,
        summary=f"Malicious code in {name} ({ecosystem})",
        range_type="SEMVER",
    )
    rec["database_specific"] = {"malicious-packages-origins": [{"source": "test"}]}
    return rec


def write_export(base: Path, ecosystem: str, records: list[dict[str, Any]]) -> Path:
    """Write `<base>/<ecosystem>/all.zip` holding one `<id>.json` per record; returns the zip path."""
    folder = base / ecosystem
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "all.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rec in records:
            zf.writestr(f"{rec['id']}.json", json.dumps(rec, indent=1))
    return path


async def ingest_records(
    rt: Runtime, base: Path, feed: str, ecosystem: str, records: list[dict[str, Any]]
) -> IngestSummary:
    """Ingest `records` as feed `feed`'s export for `ecosystem` (written under `base/feed`) through
    the runtime's real ingestor, then drop the advisory caches; returns the ingestion summary."""
    path = write_export(base / feed, ecosystem, records)
    summary = await rt.ingestor.ingest_osv(
        feed=feed, osv_ecosystem=ecosystem, location=str(path), entries=iter_records(path)
    )
    rt.advisories.invalidate()
    return summary
