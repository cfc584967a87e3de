"""
OSV JSON → `Advisory` (pure).

`parse_osv(record, source=...)` reads one OSV record (schema 1.0-1.7,
https://ossf.github.io/osv-schema/) by careful dict reading: every field but `id` may be
missing or of the wrong type, and is then left at its default. It raises `InvalidOSVRecord`
(a `ValueError`) only for a record that is not an object or has no usable `id`.

Reading rules worth knowing:

- Times are parsed as ISO 8601 in UTC; Go's in-repo placeholder `0001-01-01T00:00:00Z` is not a
  real time and becomes None, as does anything unparseable.
- Package names are normalised per ecosystem (`names.normalise_name`); the written name is kept
  as `display_name`. OSV ecosystem names map through `domain.osv_ecosystems`.
- Events keep their record order; an event object with several keys (invalid OSV) yields each
  known key in turn. Unknown event keys and range types are dropped, and the drop is recorded in
  `Affected.unevaluable_reason`.
- Severity comes from `advisories.severity_from_osv`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from pkgintel.domain.advisories import (
    EVENT_KINDS,
    GIT_RANGE_REASON,
    Advisory,
    Affected,
    AffectedRange,
    EventKind,
    RangeType,
    Reference,
    severity_from_osv,
)
from pkgintel.domain.json_fields import as_datetime, as_list, as_object
from pkgintel.domain.names.rules import normalise_name
from pkgintel.domain.osv_ecosystems import ecosystem_from_osv


class InvalidOSVRecord(ValueError):
    """The data is not an OSV record (not a JSON object, or no `id`)."""


def parse_osv(record: Mapping[str, Any], *, source: str) -> Advisory:
    """
    Build an `Advisory` from one OSV record read from `source`.

    Tolerant of missing and mistyped fields; raises `InvalidOSVRecord` when `record` is not a
    mapping or its `id` is missing or blank.
    """
    if not isinstance(record, Mapping):
        raise InvalidOSVRecord(f"OSV record from {source} is not a JSON object")
    rid = record.get("id")
    if not isinstance(rid, str) or not rid.strip():
        raise InvalidOSVRecord(f"OSV record from {source} has no id")
    rid = rid.strip()
    db = as_object(record.get("database_specific"))
    bucket, score, vector = severity_from_osv(record)
    db_severity = db.get("severity")
    converted = db.get("converted_from")
    return Advisory(
        id=rid,
        source=source,
        aliases=_strings(record.get("aliases"), exclude=rid),
        related=_strings(record.get("related"), exclude=rid),
        upstream=_strings(record.get("upstream"), exclude=rid),
        summary=_text(record.get("summary")),
        details=_text(record.get("details")),
        published=parse_time(record.get("published")),
        modified=parse_time(record.get("modified")),
        withdrawn=parse_time(record.get("withdrawn")),
        severity=bucket,
        cvss_score=score,
        cvss_vector=vector,
        database_severity=db_severity if isinstance(db_severity, str) else None,
        references=tuple(_references(record.get("references"))),
        affected=tuple(
            _affected(entry)
            for entry in as_list(record.get("affected"))
            if isinstance(entry, Mapping)
        ),
        is_malicious=rid.startswith("MAL-") or "malicious-packages-origins" in db,
        converted_from=converted if isinstance(converted, str) else None,
        schema_version=_text(record.get("schema_version")) or None,
        cwe_ids=tuple(
            sorted({c.strip().upper() for c in as_list(db.get("cwe_ids")) if isinstance(c, str)})
        ),
    )


def parse_osv_json(data: bytes | str, *, source: str) -> Advisory:
    """`parse_osv` over JSON text; malformed JSON raises `InvalidOSVRecord`."""
    try:
        record = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidOSVRecord(f"OSV record from {source} is not valid JSON: {exc}") from exc
    return parse_osv(record, source=source)


def parse_time(value: object) -> datetime | None:
    """An RFC 3339 time as an aware UTC datetime; None for missing, invalid or year-1 values."""
    parsed = as_datetime(value)
    if parsed is None or parsed.year <= 1:
        return None  # placeholder (Go vulndb's in-repo files), not a real time
    return parsed


def _affected(entry: Mapping[str, Any]) -> Affected:
    package = as_object(entry.get("package"))
    osv_ecosystem = _text(package.get("ecosystem")).strip()
    display_name = _text(package.get("name")).strip()
    ecosystem = ecosystem_from_osv(osv_ecosystem) if osv_ecosystem else None
    name = normalise_name(ecosystem, display_name) if ecosystem is not None else display_name
    notes: list[str] = []
    if ecosystem is None:
        notes.append(f"OSV ecosystem {osv_ecosystem!r} is not one pkgintel serves")
    if not display_name:
        notes.append("affected entry names no package")

    ranges: list[AffectedRange] = []
    for raw in as_list(entry.get("ranges")):
        if not isinstance(raw, Mapping):
            continue
        rtype = _text(raw.get("type")).strip().upper()
        if rtype not in RangeType.__members__:
            notes.append(f"range type {raw.get('type')!r} is not defined by OSV; ignored")
            continue
        events: list[tuple[EventKind, str]] = []
        for event in as_list(raw.get("events")):
            if not isinstance(event, Mapping):
                continue
            for key, value in event.items():
                if (
                    key in EVENT_KINDS
                    and isinstance(value, str | int)
                    and not isinstance(value, bool)
                ):
                    events.append((cast(EventKind, key), str(value).strip()))
        repo = raw.get("repo")
        ranges.append(
            AffectedRange(
                type=RangeType(rtype),
                events=tuple(events),
                repo=repo if isinstance(repo, str) else None,
            )
        )
    versions = frozenset(
        v.strip() for v in as_list(entry.get("versions")) if isinstance(v, str) and v.strip()
    )
    if any(r.type is RangeType.GIT for r in ranges):
        notes.append(GIT_RANGE_REASON)
    eco_specific = as_object(entry.get("ecosystem_specific")).get("severity")
    purl = package.get("purl")
    return Affected(
        osv_ecosystem=osv_ecosystem,
        ecosystem=ecosystem,
        name=name,
        display_name=display_name,
        ranges=tuple(ranges),
        versions=versions,
        purl=purl if isinstance(purl, str) else None,
        ecosystem_specific_severity=eco_specific if isinstance(eco_specific, str) else None,
        unevaluable_reason="; ".join(notes) or None,
    )


def _references(value: object) -> list[Reference]:
    refs: list[Reference] = []
    for raw in as_list(value):
        if isinstance(raw, Mapping) and isinstance(raw.get("url"), str) and raw["url"].strip():
            refs.append(Reference(type=_text(raw.get("type")) or "WEB", url=raw["url"].strip()))
    return refs


def _strings(value: object, *, exclude: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in as_list(value):
        if isinstance(item, str) and item.strip() and item.strip() != exclude:
            seen[item.strip()] = None
    return tuple(seen)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
