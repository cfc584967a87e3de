"""Project audits: `POST /api/scan`, `POST /api/check_bulk`, `POST /api/ai/stack` (database only)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from starlette.concurrency import run_in_threadpool

from pkgintel import __version__
from pkgintel.api.deps import RuntimeDep
from pkgintel.api.errors import problem, validation_error
from pkgintel.api.gc_pause import collector_paused
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.names import normalise_name, validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.versions import validate_version
from pkgintel.lockfiles import ParsedLockfile, parse_lockfile
from pkgintel.services.audit import packages_from_mapping, to_sbom
from pkgintel.services.bulk import MAX_ITEMS
from pkgintel.upstream_guard import fan_out

router = APIRouter(prefix="/api", tags=["audit"])

OFF_LOOP_BYTES = 64 * 1024
"""Bodies at least this large are decoded, validated and parsed, and SBOMs always built, in a
worker thread: pure CPU work of up to hundreds of milliseconds that would otherwise stall every
other request. Matching runs on the loop in slices (`services.audit.CHUNK`), and large answers
are encoded in a thread too."""


LARGE_ANSWER_PACKAGES = 1000
"""Answers about more packages than this are JSON-encoded in a worker thread."""


def _read_body(raw: bytes) -> ScanBody:
    """The scan body from raw bytes: UnicodeDecodeError when not UTF-8, else pydantic's errors."""
    raw.decode("utf-8")
    return ScanBody.model_validate_json(raw)


def _parse(body: ScanBody) -> ParsedLockfile:
    with collector_paused():
        return parse_lockfile(body.lockfile or "", kind=body.lockfile_kind, filename=body.filename)


class ScanBody(BaseModel):
    """The specification's scan body (plus `filename`, a hint for detecting the lockfile kind)."""

    model_config = ConfigDict(extra="forbid")
    ecosystem: Ecosystem | None = None
    packages: dict[Annotated[str, Field(min_length=1, max_length=214)], str] | None = Field(
        None, max_length=5000
    )
    lockfile: str | None = None
    lockfile_kind: str | None = Field(None, max_length=64)
    filename: str | None = Field(None, max_length=256)
    format: Literal["native", "cyclonedx", "spdx"] = "native"
    include_transitive: bool = True


class _NamedItem(BaseModel):
    """One package of a body: the name must be one the ecosystem allows and the version one its
    scheme can parse, else a 422 naming the item's field (`body.items.3.version`)."""

    ecosystem: Ecosystem
    package: str = Field(min_length=1, max_length=214)
    version: str | None = Field(None, min_length=1, max_length=128)

    @field_validator("package")
    @classmethod
    def _valid_name(cls, value: str, info: ValidationInfo) -> str:
        ecosystem = info.data.get("ecosystem")
        try:
            return validate_name(ecosystem, value) if ecosystem else value
        except InvalidInput as exc:
            raise ValueError(exc.message) from None

    @field_validator("version")
    @classmethod
    def _valid_version(cls, value: str | None, info: ValidationInfo) -> str | None:
        ecosystem = info.data.get("ecosystem")
        if value is None or ecosystem is None:
            return value
        try:
            return validate_version(ecosystem, value)
        except InvalidInput as exc:
            raise ValueError(exc.message) from None


class BulkItem(_NamedItem):
    pass


class BulkBody(BaseModel):
    items: list[BulkItem] = Field(min_length=1, max_length=MAX_ITEMS)


class StackItem(_NamedItem):
    pass


class StackBody(BaseModel):
    """A proposed dependency stack: the packages an agent intends to install, versions optional."""

    packages: list[StackItem] = Field(min_length=1, max_length=200)


async def _read_limited(request: Request, limit: int) -> bytes | None:
    """The body, or None when it is larger than `limit` bytes (checked before and while reading)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/scan",
    summary="Audit a project (lockfile or package map)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ScanBody.model_json_schema()}},
        }
    },
    responses={
        413: {"description": "Body larger than PKGINTEL_MAX_LOCKFILE_BYTES"},
        422: {"description": "Invalid body or unparseable lockfile (names the line)"},
    },
)
async def scan(request: Request, runtime: RuntimeDep) -> Response:
    """Per package: advisories affecting that exact version, malicious flag, deprecation, licence, nearest safe version; a summary; or CycloneDX 1.6 / SPDX 2.3 JSON."""
    started = time.perf_counter()
    raw = await _read_limited(request, runtime.max_lockfile_bytes)
    if raw is None:
        return problem(
            413,
            "Body too large",
            f"the scan body is limited to {runtime.max_lockfile_bytes:,} bytes",
            kind="body-too-large",
            limit=runtime.max_lockfile_bytes,
        )
    large = len(raw) >= OFF_LOOP_BYTES
    try:
        body = await run_in_threadpool(_read_body, raw) if large else _read_body(raw)
    except UnicodeDecodeError as exc:
        return validation_error(
            "body",
            f"the body is not UTF-8 text (byte {exc.start} cannot be decoded); send JSON in UTF-8",
            None,
            where="body",
        )
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from exc
    if body.lockfile is not None:
        if large:
            parsed = await run_in_threadpool(_parse, body)
        else:
            parsed = _parse(body)
        if body.ecosystem is not None and body.ecosystem is not parsed.ecosystem:
            raise InvalidInput(
                "ecosystem",
                f"the {parsed.kind} holds {parsed.ecosystem.value} packages, not {body.ecosystem.value}",
            )
    elif body.packages is not None:
        if body.ecosystem is None:
            raise InvalidInput("ecosystem", "ecosystem is required with packages")
        for name in body.packages:
            validate_name(body.ecosystem, name)
        parsed = packages_from_mapping(body.ecosystem, body.packages)
    else:
        raise InvalidInput("lockfile", "send either lockfile or packages")
    if large:
        # The audit of a big lockfile allocates in proportion to it; collections it would set
        # off mid-way walk the whole heap on the event loop (see `gc_pause`).
        with collector_paused():
            result = await runtime.audit.audit(parsed)
    else:
        result = await runtime.audit.audit(parsed)
    if body.format != "native":
        created = datetime.now(UTC).replace(microsecond=0)
        try:
            document = await run_in_threadpool(
                to_sbom,
                parsed,
                result,
                body.format,
                name=parsed.kind,
                created=created,
                tool_version=__version__,
            )
        except ValueError as exc:
            return problem(500, "SBOM could not be built", str(exc), kind="sbom-invalid")
        return plain_json(document)
    payload: dict[str, Any] = {
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
    if len(result.packages) > LARGE_ANSWER_PACKAGES:
        encoded = await run_in_threadpool(orjson.dumps, payload)
        return Response(encoded, media_type="application/json", headers={"Cache-Control": NO_STORE})
    return plain_json(payload)


def _not_looked_up() -> dict[str, Any]:
    """`not_looked_up`: packages this request could not ask upstream about (fan-out bound)."""
    budget = fan_out.get()
    if budget is None or not budget.skipped:
        return {}
    return {
        "not_looked_up": list(budget.skipped),
        "not_looked_up_reason": f"on-demand upstream lookups are limited to {budget.limit} per request",
    }


@router.post("/check_bulk", summary="Check up to 100 packages from the database")
async def check_bulk(body: BulkBody, runtime: RuntimeDep) -> Response:
    """One status per item — stdlib, malicious, typosquat_suspect, historical_incident, exists or unknown — from the database only; `unknown` means fall back to /api/check."""
    started = time.perf_counter()
    items = [(i.ecosystem, validate_name(i.ecosystem, i.package), i.version) for i in body.items]
    results = await runtime.bulk.check(items)
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return plain_json(
        {
            "count": len(results),
            "results": results,
            "summary": counts,
            "_meta": {"endpoint": "/api/check_bulk", "database_only": True},
            "_response_ms": round((time.perf_counter() - started) * 1000),
        },
        cache_control=NO_STORE,
    )


_ACTION_RANK = {
    "replace": 0,
    "upgrade": 1,
    "review": 2,
    "remove": 3,
    "remove_duplicate": 4,
    "pin": 5,
    "verify": 6,
}


@router.post("/ai/stack", summary="Audit a proposed dependency stack")
async def ai_stack(body: StackBody, runtime: RuntimeDep) -> Response:
    """Per package a verdict; action items ordered by severity: replace, upgrade to X, review, remove (stdlib), remove duplicate, pin, verify."""
    started = time.perf_counter()
    items = [(i.ecosystem, validate_name(i.ecosystem, i.package), i.version) for i in body.packages]
    statuses = await runtime.bulk.check(items)
    verdicts: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []
    seen: dict[tuple[str, str], int] = {}
    for (eco, name, version), status in zip(items, statuses, strict=True):
        verdict: dict[str, Any] = {
            "ecosystem": eco.value,
            "package": name,
            "version": version,
            "status": status["status"],
            "reason": status["reason"],
        }
        ident = (eco.value, normalise_name(eco, name))
        if ident in seen:
            actions.append(
                {
                    "action": "remove_duplicate",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": f"listed more than once (as {items[seen[ident]][1]!r} before)",
                }
            )
        seen.setdefault(ident, len(verdicts))
        st = status["status"]
        if st == "malicious":
            verdict["verdict"] = "do_not_use"
            actions.append(
                {
                    "action": "replace",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": "reported malicious: " + ", ".join(status.get("advisories", [])),
                }
            )
        elif st == "typosquat_suspect":
            verdict["verdict"] = "likely_typo"
            actions.append(
                {
                    "action": "replace",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": f"did you mean {', '.join(status.get('similar_to', []))}?",
                }
            )
        elif st == "stdlib":
            verdict["verdict"] = "builtin"
            actions.append(
                {
                    "action": "remove",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": status["reason"],
                }
            )
        elif st == "unknown":
            verdict["verdict"] = "unknown"
            actions.append(
                {
                    "action": "verify",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": status["reason"],
                }
            )
        else:
            verdict["verdict"] = "ok"
            if st == "historical_incident":
                actions.append(
                    {
                        "action": "review",
                        "package": name,
                        "ecosystem": eco.value,
                        "detail": status["reason"],
                    }
                )
        if version is not None and st not in ("malicious", "stdlib"):
            report = await runtime.advisories.for_version(eco, name, version)
            verdict["vulnerabilities"] = {
                "status": report.status,
                "count": len(report.details),
                "ids": [d["id"] for d in report.details],
            }
            if report.details:
                verdict["verdict"] = "vulnerable"
                target = report.fixed_version
                actions.append(
                    {
                        "action": "upgrade",
                        "package": name,
                        "ecosystem": eco.value,
                        "to": target,
                        "detail": (
                            f"upgrade to {target}"
                            if target
                            else "no single fixed version; see /api/pin_safe"
                        )
                        + f" ({len(report.details)} advisories affect {version})",
                    }
                )
        elif version is None and st in ("exists", "historical_incident"):
            actions.append(
                {
                    "action": "pin",
                    "package": name,
                    "ecosystem": eco.value,
                    "detail": "no version given: pin one (see /api/pin_safe)",
                }
            )
        verdicts.append(verdict)
    actions.sort(key=lambda a: _ACTION_RANK[a["action"]])
    return plain_json(
        {
            "packages": verdicts,
            "action_items": actions,
            "summary": {"packages": len(verdicts), "action_items": len(actions)},
            "_meta": {"endpoint": "/api/ai/stack", "database_only": True},
            "_response_ms": round((time.perf_counter() - started) * 1000),
        },
        cache_control=NO_STORE,
    )
