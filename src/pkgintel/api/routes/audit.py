"""Project audits: `POST /api/scan`, `POST /api/check_bulk`, `POST /api/ai/stack` (database only)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import (
    ValidationError,
)
from starlette.concurrency import run_in_threadpool

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.errors import problem, validation_error
from pkgintel.api.http import large_json, plain_json
from pkgintel.application.answer import NO_STORE
from pkgintel.application.audit import (
    OFF_LOOP_BYTES,
    SbomError,
    check_bulk_answer,
    read_scan_body,
    scan_answer,
    stack_answer,
)
from pkgintel.application.schemas.audit import (
    BulkBody,
    ScanBody,
    StackBody,
)
from pkgintel.domain.limits import body_limit_message

router = APIRouter(prefix="/api", tags=["audit"])


LARGE_ANSWER_PACKAGES = 1000
"""Answers about more packages than this are JSON-encoded in a worker thread."""


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
            body_limit_message(runtime.max_lockfile_bytes),
            kind="body-too-large",
            limit=runtime.max_lockfile_bytes,
        )
    large = len(raw) >= OFF_LOOP_BYTES
    try:
        body = await run_in_threadpool(read_scan_body, raw) if large else read_scan_body(raw)
    except UnicodeDecodeError as exc:
        return validation_error(
            "body",
            f"the body is not UTF-8 text (byte {exc.start} cannot be decoded); send JSON in UTF-8",
            None,
            where="body",
        )
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from exc
    try:
        payload = await scan_answer(runtime, body, started=started, large=large)
    except SbomError as exc:
        return problem(500, "SBOM could not be built", str(exc), kind="sbom-invalid")
    packages = payload.get("packages")
    if isinstance(packages, list) and len(packages) > LARGE_ANSWER_PACKAGES:
        # Encoding (and compressing) tens of thousands of entries takes long enough to stall
        # other requests: done in a thread.
        return await large_json(request, payload)
    return plain_json(payload)


@router.post("/check_bulk", summary="Check up to 100 packages from the database")
async def check_bulk(body: BulkBody, runtime: RuntimeDep) -> Response:
    """One status per item — stdlib, malicious, typosquat_suspect, historical_incident, exists or unknown — from the database only; `unknown` means fall back to /api/check."""
    return plain_json(await check_bulk_answer(runtime, body), cache_control=NO_STORE)


@router.post("/ai/stack", summary="Audit a proposed dependency stack")
async def ai_stack(body: StackBody, runtime: RuntimeDep) -> Response:
    """Per package a verdict (a package without a version is judged at its latest release; no advisory data is `unknown`, never `ok`); action items ordered by severity: replace, upgrade to a published release that clears the advisories, review, remove (stdlib), remove duplicate, pin, verify."""
    return plain_json(await stack_answer(runtime, body), cache_control=NO_STORE)
