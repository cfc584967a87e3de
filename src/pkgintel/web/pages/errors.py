"""The error explorer, `/errors`: paste an error or a trace, see the matched fixes with their
sources (the `POST /api/error/resolve` answer)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.web.answers import resolve_error_answer
from pkgintel.web.forms import checked_form
from pkgintel.web.pages.common import part, runtime_of
from pkgintel.web.render import render

router = APIRouter(include_in_schema=False)

MAX_FORM_BYTES = 256 * 1024


@router.get("/errors")
async def errors_form(request: Request) -> Response:
    return render(request, "errors.html", {"title": "Error explorer", "text": "", "result": None})


@router.post("/errors")
async def errors_resolve(request: Request) -> Response:
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    text = str(form.get("error") or "")
    result = await part(resolve_error_answer(runtime_of(request), text))
    status = 200 if result.body is not None else 422
    return render(
        request,
        "errors.html",
        {"title": "Error explorer", "text": text, "result": result},
        status=status,
    )
