"""
The scan page, `/scan`: paste or upload a lockfile, see the audit (the `/api/scan` answer), download
its SBOM (CycloneDX or SPDX JSON). Read-only, but a POST: it carries the CSRF token like every form.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from pkgintel.domain.errors import PkgIntelError
from pkgintel.web.answers import Problem, SbomError, ScanBody, problem_for, scan_answer
from pkgintel.web.forms import checked_form
from pkgintel.web.pages.common import runtime_of
from pkgintel.web.render import error_page, render
from pkgintel.web.security import secure

router = APIRouter(include_in_schema=False)

FORM_OVERHEAD = 64 * 1024
"""Room for the form's other fields and multipart framing above the lockfile size limit."""
SBOM_FILES = {"cyclonedx": "sbom.cdx.json", "spdx": "sbom.spdx.json"}


def _invalid(detail: str) -> Problem:
    return Problem(422, "Lockfile cannot be scanned", detail, "invalid-input")


@router.get("/scan")
async def scan_form(request: Request) -> Response:
    return render(request, "scan.html", {"title": "Scan a project", "result": None, "text": ""})


@router.post("/scan")
async def scan_submit(request: Request) -> Response:
    runtime = runtime_of(request)
    form = await checked_form(
        request, max_bytes=runtime.max_lockfile_bytes + FORM_OVERHEAD, files=True
    )
    if isinstance(form, Response):
        return form
    try:
        text = str(form.get("lockfile") or "")
        filename = str(form.get("filename") or "").strip() or None
        fmt = str(form.get("format") or "native")
        upload = form.get("file")
        raw = None
        if isinstance(upload, UploadFile) and upload.filename:
            raw = await upload.read(runtime.max_lockfile_bytes + 1)
            filename = filename or upload.filename
    finally:
        await form.close()
    if raw is not None:
        if len(raw) > runtime.max_lockfile_bytes:
            limit = runtime.max_lockfile_bytes
            too_large = Problem(
                413, "Body too large", f"lockfiles are limited to {limit:,} bytes", "too-large"
            )
            return error_page(request, too_large)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return error_page(request, _invalid(f"the file is not UTF-8 text (byte {exc.start})"))
    if not text.strip():
        return error_page(request, _invalid("paste a lockfile or choose a file"))
    try:
        body = ScanBody.model_validate({"lockfile": text, "filename": filename, "format": fmt})
    except ValidationError as exc:
        detail = "; ".join(str(e.get("msg")) for e in exc.errors(include_url=False))
        return error_page(request, _invalid(detail))
    try:
        payload: dict[str, Any] = await scan_answer(runtime, body)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    except SbomError as exc:
        return error_page(
            request, Problem(500, "SBOM could not be built", str(exc), "sbom-invalid")
        )
    if fmt in SBOM_FILES:
        return secure(
            Response(
                orjson.dumps(payload, option=orjson.OPT_INDENT_2),
                media_type="application/json",
                headers={
                    "Content-Disposition": f'attachment; filename="{SBOM_FILES[fmt]}"',
                    "Cache-Control": "no-store",
                },
            )
        )
    return render(
        request,
        "scan.html",
        {"title": "Scan result", "result": payload, "text": text, "filename": filename or ""},
    )
