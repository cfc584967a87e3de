"""The compare page, `/compare/{ecosystem}/{a,b,c}`: the `/api/compare` answer side by side, the
best fit highlighted. `/compare?ecosystem=&packages=` (the form) redirects to the canonical path."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from pkgintel.domain.errors import PkgIntelError
from pkgintel.web.answers import compare_answer, problem_for
from pkgintel.web.pages.common import ecosystem_of, memo_of, runtime_of, unknown_ecosystem
from pkgintel.web.render import error_page, render
from pkgintel.web.security import secure

router = APIRouter(include_in_schema=False)


@router.get("/compare")
async def compare_form(request: Request) -> Response:
    raw = request.query_params.get("ecosystem") or ""
    names = [n.strip() for n in (request.query_params.get("packages") or "").split(",")]
    names = [n for n in names if n]
    eco = ecosystem_of(raw) if raw else None
    if eco is not None and names:
        target = f"/compare/{eco.value}/{quote(','.join(names)[:3000], safe='@/,')}"
        return secure(RedirectResponse(target, status_code=303))
    return render(
        request,
        "compare.html",
        {"title": "Compare packages", "answer": None, "selected": raw or "npm", "query": ""},
    )


@router.get("/compare/{ecosystem}/{packages_csv:path}")
async def compare_page(request: Request, ecosystem: str, packages_csv: str) -> Response:
    eco = ecosystem_of(ecosystem)
    if eco is None:
        return error_page(request, unknown_ecosystem(ecosystem))
    try:
        runtime = runtime_of(request)
        answer = await memo_of(request).get(
            ("compare", eco, packages_csv), lambda: compare_answer(runtime, eco, packages_csv)
        )
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    body = answer.wire()
    dimensions = sorted({d for p in body["packages"] for d in (p.get("breakdown") or {})})
    return render(
        request,
        "compare.html",
        {
            "title": f"Compare {packages_csv[:80]} ({eco.value})",
            "answer": body,
            "ecosystem": eco.value,
            "selected": eco.value,
            "dimensions": dimensions,
            "query": packages_csv,
        },
    )
