"""
`AdvisoryIngestor`: load OSV exports, the KEV catalog and EPSS scores into the advisory store.

OSV ingestion contract (one feed, one OSV ecosystem per run):

- **Incremental and idempotent.** A record whose bytes hash like the stored copy is skipped without
  being parsed; anything else is parsed and upserted. The content hash, not `modified`, decides,
  because some sources carry a placeholder `modified` (Go's in-repo files say `0001-01-01`) — a
  changed `modified` always changes the bytes, so nothing that changed is missed.
- **Batched transactions.** Every `batch_size` changed records are written in one transaction,
  so a killed run leaves whole batches; the rerun skips what is stored and writes the rest, ending
  with the same content as one clean run. The run is marked incomplete (`source_run.completed_at`
  null) until it finishes, and answers built on it say `partial` meanwhile.
- **Feeds stay apart.** Records are keyed by (feed, OSV ecosystem, id): ingesting `osv-malicious`
  never touches `osv`. A record the export no longer holds is removed from *that* feed only, and
  only after a complete pass.
- **Live-feed events.** A malicious record new to its feed appends an `advisory` event (one per
  package it names) in the same transaction — except during a feed's first complete load, which is
  a baseline, not news (otherwise a fresh install would announce 30,000 "new" reports).
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

import orjson

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.feeds import KevFact, RecordRow
from pkgintel.events.base import EventBus
from pkgintel.sources.epss import read_epss
from pkgintel.sources.kev import parse_kev
from pkgintel.sources.osv_export import ExportEntry
from pkgintel.sources.osv_schema import InvalidOSVRecord, parse_osv
from pkgintel.storage.base import AdvisoryStore

ADVISORY_EVENT = "advisory"
KEV_FEED = "cisa-kev"
EPSS_FEED = "epss"
MALWARE_SEVERITY = "critical"
"""Severity of a malicious-package report that states none (GitHub rates every malware advisory
critical: installing the package runs the attacker's code)."""
PARSE_REVISION = b"pkgintel-parse-2\n"
"""Hashed with each record's bytes: bumping it makes the next run re-parse and re-store every record
once, when what ingestion derives from a record changes (revision 2: advisories that say the package
carries malicious code are flagged malicious)."""


@dataclass(slots=True)
class IngestSummary:
    """What one run did. `skipped` maps a reason to how many members it applied to."""

    feed: str
    scope: str
    location: str
    total: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    withdrawn: int = 0
    removed: int = 0
    events: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "feed": self.feed,
            "scope": self.scope,
            "location": self.location,
            "total": self.total,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "withdrawn": self.withdrawn,
            "removed": self.removed,
            "events": self.events,
            "skipped": dict(self.skipped),
            "seconds": round(self.seconds, 2),
        }


def event_payloads(advisory: Advisory) -> list[dict[str, Any]]:
    """The live-feed `advisory` payloads for a malicious record: one per package it names."""
    severity = advisory.severity.value if advisory.severity else MALWARE_SEVERITY
    published = advisory.published or advisory.modified
    seen: set[tuple[str, str]] = set()
    out: list[dict[str, Any]] = []
    for affected in advisory.affected:
        if affected.ecosystem is None or (affected.ecosystem.value, affected.name) in seen:
            continue
        seen.add((affected.ecosystem.value, affected.name))
        out.append(
            {
                "ecosystem": affected.ecosystem.value,
                "package": affected.display_name,
                "vuln_id": advisory.id,
                "severity": severity,
                "summary": advisory.summary or f"Malicious code in {affected.display_name}",
                "published_at": published.isoformat().replace("+00:00", "Z") if published else None,
            }
        )
    return out


class AdvisoryIngestor:
    """Writes sources into an `AdvisoryStore`; announces new events on the bus after each commit."""

    def __init__(
        self,
        store: AdvisoryStore,
        *,
        clock: Callable[[], datetime],
        bus: EventBus | None = None,
        batch_size: int = 1000,
        keep_events: int = 10_000,
    ) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        self._batch_size = batch_size
        self._keep_events = keep_events

    @property
    def store(self) -> AdvisoryStore:
        """The store written to (also read by tests and the live feed)."""
        return self._store

    async def ingest_osv(
        self,
        *,
        feed: str,
        osv_ecosystem: str,
        location: str,
        entries: Iterable[ExportEntry],
        progress: Callable[[int], None] | None = None,
    ) -> IngestSummary:
        """Load one export (see the module contract). Raises `StorageError` on database failure."""
        started = time.perf_counter()
        summary = IngestSummary(feed, osv_ecosystem, location)
        runs = {(r.feed, r.scope): r for r in await self._store.runs()}
        previous = runs.get((feed, osv_ecosystem))
        announce = previous is not None and bool(previous.detail.get("loaded_once"))
        await self._store.start_run(feed, osv_ecosystem, location, now=self._clock())
        stored = await self._store.record_hashes(feed, osv_ecosystem)
        id_by_hash = {digest: rid for rid, digest in stored.items()}
        seen: set[str] = set()
        rows: dict[str, RecordRow] = {}
        events: list[tuple[str, dict[str, Any]]] = []
        source = f"{feed}:{osv_ecosystem}"

        for entry in entries:
            summary.total += 1
            if progress is not None:
                progress(1)
            if entry.data is None:
                summary.skipped[entry.skipped_reason or "unreadable"] += 1
                continue
            digest = hashlib.sha256(PARSE_REVISION + entry.data).hexdigest()
            known = id_by_hash.get(digest)
            if known is not None and known not in seen:
                seen.add(known)
                summary.unchanged += 1
                continue
            try:
                advisory = parse_osv(orjson.loads(entry.data), source=source)
            except orjson.JSONDecodeError:
                summary.skipped["not valid JSON"] += 1
                continue
            except InvalidOSVRecord as exc:
                summary.skipped[str(exc).replace(f" from {source}", "")] += 1
                continue
            if advisory.id in seen:
                summary.skipped["duplicate id in the export"] += 1
                continue
            seen.add(advisory.id)
            is_new = advisory.id not in stored
            if is_new:
                summary.added += 1
            else:
                summary.updated += 1
            if advisory.is_withdrawn:
                summary.withdrawn += 1
            elif is_new and announce and advisory.reports_malicious_code:
                events.extend((ADVISORY_EVENT, p) for p in event_payloads(advisory))
            rows[advisory.id] = _row(advisory, entry.data, digest)
            if len(rows) >= self._batch_size:
                summary.events += await self._flush(feed, osv_ecosystem, rows, events)
                rows, events = {}, []
        summary.events += await self._flush(feed, osv_ecosystem, rows, events)

        gone = [rid for rid in stored if rid not in seen]
        if gone:
            summary.removed = await self._store.delete_records(feed, osv_ecosystem, gone)
        if summary.events:
            await self._store.prune_events(self._keep_events)
        summary.seconds = time.perf_counter() - started
        newest, malicious, total = await self._store.feed_stats(feed, osv_ecosystem)
        await self._store.finish_run(
            feed,
            osv_ecosystem,
            records=total,
            data_updated_at=newest,
            detail={
                "loaded_once": True,
                "malicious_records": malicious,
                "advisory_records": total - malicious,
                "last": summary.as_dict(),
            },
            now=self._clock(),
        )
        return summary

    async def ingest_kev(self, *, location: str, data: bytes) -> str:
        """Replace the KEV catalog from its JSON; returns a one-line summary.
        Raises `InvalidSourceData` (nothing written) for a malformed catalog."""
        catalog = parse_kev(data, source=location)
        await self._store.start_run(KEV_FEED, "", location, now=self._clock())
        facts = [
            KevFact(e.cve_id, e.date_added, e.due_date, e.ransomware, e.vendor, e.product, e.name)
            for e in catalog.entries
        ]
        count = await self._store.replace_kev(facts)
        await self._store.finish_run(
            KEV_FEED,
            "",
            records=count,
            data_updated_at=catalog.date_released,
            detail={"catalog_version": catalog.catalog_version, "skipped": len(catalog.skipped)},
            now=self._clock(),
        )
        return (
            f"{count:,} CVEs, catalog {catalog.catalog_version or 'of unknown version'}"
            f" ({len(catalog.skipped)} entries skipped)"
        )

    async def ingest_epss(self, *, location: str, stream: IO[bytes]) -> str:
        """Replace all EPSS scores from a FIRST csv(.gz) stream in one transaction; returns a
        one-line summary. Raises `InvalidSourceData` (nothing written) for a malformed file."""
        epss = read_epss(stream, source=location)
        await self._store.start_run(EPSS_FEED, "", location, now=self._clock())
        count = await self._store.replace_epss(epss.rows)
        await self._store.finish_run(
            EPSS_FEED,
            "",
            records=count,
            data_updated_at=epss.score_date,
            detail={"model_version": epss.model_version, "skipped": epss.skipped},
            now=self._clock(),
        )
        date = epss.score_date.date().isoformat() if epss.score_date else "unknown date"
        return f"{count:,} scores of {date} ({epss.skipped} rows skipped)"

    async def _flush(
        self,
        feed: str,
        osv_ecosystem: str,
        rows: dict[str, RecordRow],
        events: list[tuple[str, dict[str, Any]]],
    ) -> int:
        if not rows and not events:
            return 0
        last = await self._store.write_records(
            feed, osv_ecosystem, list(rows.values()), events, now=self._clock()
        )
        if last is not None and self._bus is not None:
            await self._bus.publish(last)
        return len(events)


def _row(advisory: Advisory, data: bytes, digest: str) -> RecordRow:
    packages = tuple(
        dict.fromkeys(
            (a.ecosystem.value, a.name) for a in advisory.affected if a.ecosystem is not None
        )
    )
    return RecordRow(
        id=advisory.id,
        content_hash=digest,
        modified=advisory.modified,
        published=advisory.published,
        withdrawn=advisory.is_withdrawn,
        is_malicious=advisory.reports_malicious_code,
        record=data,
        packages=packages,
    )
