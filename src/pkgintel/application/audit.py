"""Audit answers: scan a lockfile or package map, check many packages, audit a proposed stack (shared by every door)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from pkgintel import __version__
from pkgintel.application.schemas.audit import (
    BulkBody,
    ScanBody,
    StackBody,
)
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.freshness import Freshness, iso
from pkgintel.domain.names.rules import validate_name
from pkgintel.lockfiles import ParsedLockfile, is_empty, parse_lockfile
from pkgintel.lockfiles.includes import expand_requirements
from pkgintel.runtime.container import Runtime
from pkgintel.services.audit.scan import packages_from_mapping, purl_keys_resolved, to_sbom
from pkgintel.transport.gc_pause import collector_paused
from pkgintel.transport.guard import fan_out

OFF_LOOP_BYTES = 64 * 1024
"""Bodies at least this large are decoded, validated and parsed, and SBOMs always built, in a
worker thread: pure CPU work of up to hundreds of milliseconds that would otherwise stall every
other request. Matching runs on the loop in slices (`audit.scan.CHUNK`), and large answers
are encoded in a thread too."""


def read_scan_body(raw: bytes) -> ScanBody:
    """The scan body from raw bytes: UnicodeDecodeError when not UTF-8, else pydantic's errors."""
    raw.decode("utf-8")
    return ScanBody.model_validate_json(raw)


def _parse(body: ScanBody) -> ParsedLockfile:
    with collector_paused():
        parsed = parse_lockfile(
            body.lockfile or "", kind=body.lockfile_kind, filename=body.filename
        )
        if (
            body.files
            and parsed.kind == "requirements.txt"
            and not is_empty(parsed.kind, body.lockfile or "")
        ):
            files = {f.filename: f.content for f in body.files}
            return expand_requirements(
                body.lockfile or "", body.filename or "requirements.txt", files
            )
        return parsed


class SbomError(ValueError):
    """The SBOM document could not be built (a library refused what we gave it)."""


async def scan_answer(
    runtime: Runtime,
    body: ScanBody,
    *,
    started: float | None = None,
    large: bool | None = None,
) -> dict[str, Any]:
    """
    The `/api/scan` answer (shared with the MCP tool `scan_project`): the native audit, or the SBOM
    document itself for `format` cyclonedx/spdx. Raises `SbomError` when the SBOM cannot be built.
    `large` (default: the lockfile is at least `OFF_LOOP_BYTES`) moves parsing off the event loop and
    pauses the collector during the audit.
    """
    started = time.perf_counter() if started is None else started
    if large is None:
        large = len(body.lockfile or "") >= OFF_LOOP_BYTES
    if body.lockfile is not None:
        if large:
            parsed = await asyncio.to_thread(_parse, body)
        else:
            parsed = _parse(body)
        if body.ecosystem is not None and body.ecosystem is not parsed.ecosystem:
            raise InvalidInput(
                "ecosystem",
                f"the {parsed.kind} holds {parsed.ecosystem.value} packages, not {body.ecosystem.value}",
            )
    elif body.packages is not None:
        ecosystem, packages = purl_keys_resolved(body.ecosystem, body.packages)
        if ecosystem is None:
            raise InvalidInput(
                "ecosystem", "ecosystem is required with packages (unless they are package URLs)"
            )
        for name in packages:
            validate_name(ecosystem, name)
        parsed = packages_from_mapping(ecosystem, packages)
    else:
        raise InvalidInput("lockfile", "send either lockfile or packages")
    ignore = [entry.suppression() for entry in body.ignore or ()]
    if large:
        # The audit of a big lockfile allocates in proportion to it; collections it would set
        # off mid-way walk the whole heap on the event loop (see `gc_pause`).
        with collector_paused():
            result = await runtime.audit.audit(parsed, ignore)
    else:
        result = await runtime.audit.audit(parsed, ignore)
    if body.format != "native":
        created = datetime.now(UTC).replace(microsecond=0)
        try:
            document: dict[str, Any] = await asyncio.to_thread(
                to_sbom,
                parsed,
                result,
                body.format,
                name=parsed.kind,
                created=created,
                tool_version=__version__,
            )
        except ValueError as exc:
            raise SbomError(str(exc)) from exc
        return document
    return {
        "kind": parsed.kind,
        "ecosystem": parsed.ecosystem.value,
        "summary": result.summary,
        "packages": list(result.packages),
        "warnings": list(result.warnings),
        "include_transitive": body.include_transitive,
        "_meta": {
            "endpoint": "/api/scan",
            "database_only": True,
            "note": "nothing a lockfile names is fetched or executed",
            **_not_looked_up(),
        },
        "_response_ms": round((time.perf_counter() - started) * 1000),
    }


def vulnerability_data_fields(data: Freshness | None) -> dict[str, Any]:
    """`vulnerability_data` (null when no package was judged on advisories), its `_as_of` date
    and `_sources` (the stale feeds), as the scan's summary has them."""
    return {
        "vulnerability_data": data.status if data else None,
        "vulnerability_data_as_of": iso(data.as_of) if data else None,
        "vulnerability_data_sources": data.sources_wire() if data else [],
    }


def _not_looked_up() -> dict[str, Any]:
    """`not_looked_up`: packages this request could not ask upstream about (fan-out bound)."""
    budget = fan_out.get()
    if budget is None or not budget.skipped:
        return {}
    return {
        "not_looked_up": list(budget.skipped),
        "not_looked_up_reason": f"on-demand upstream lookups are limited to {budget.limit} per request",
    }


async def check_bulk_answer(runtime: Runtime, body: BulkBody) -> dict[str, Any]:
    """The `/api/check_bulk` answer (shared with the MCP tool `check_bulk`); database only."""
    started = time.perf_counter()
    items = [i.target() for i in body.items]
    results = await runtime.bulk.check(items)
    data = await runtime.bulk.malicious_data([eco for eco, _, _ in items])
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return {
        "count": len(results),
        "results": results,
        "summary": counts,
        "malicious_data": data.status,
        "malicious_data_as_of": iso(data.as_of),
        "malicious_data_sources": data.sources_wire(),
        "_meta": {"endpoint": "/api/check_bulk", "database_only": True},
        "_response_ms": round((time.perf_counter() - started) * 1000),
    }


async def stack_answer(runtime: Runtime, body: StackBody) -> dict[str, Any]:
    """The `/api/ai/stack` answer: a verdict per proposed package (judged at its latest release
    when no version is given) and the action items, ordered by severity."""
    started = time.perf_counter()
    items = [i.target() for i in body.packages]
    audit = await runtime.stack.audit(items)
    return {
        "packages": list(audit.packages),
        "action_items": list(audit.action_items),
        "compatibility": audit.compatibility,
        "summary": {
            "packages": len(audit.packages),
            "action_items": len(audit.action_items),
            **vulnerability_data_fields(audit.vulnerability_data),
        },
        "_meta": {
            "endpoint": "/api/ai/stack",
            "database_only": not audit.compatibility,
            "note": "verdicts from the database; compatibility from registry metadata (cached)",
        },
        "_response_ms": round((time.perf_counter() - started) * 1000),
    }
