"""The search page, `/search?q=&ecosystem=`: the `/api/search` answer as links to package pages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.web.answers import search_answer
from pkgintel.web.pages.common import (
    ecosystem_of,
    memo_of,
    part,
    runtime_of,
    unknown_ecosystem,
)
from pkgintel.web.render import error_page, render

router = APIRouter(include_in_schema=False)

RESULTS = 20
MAX_QUERY_CHARS = 200


@router.get("/search")
async def search_page(request: Request) -> Response:
    query = (request.query_params.get("q") or "").strip()
    raw = request.query_params.get("ecosystem") or "npm"
    eco = ecosystem_of(raw)
    if eco is None:
        return error_page(request, unknown_ecosystem(raw))
    context: dict[str, Any] = {
        "title": "Search",
        "query": query,
        "selected": eco.value,
        "results": None,
    }
    if query:
        if len(query) > MAX_QUERY_CHARS:
            query = query[:MAX_QUERY_CHARS]
        runtime = runtime_of(request)
        found = await memo_of(request).get(
            ("search", eco, query), lambda: part(search_answer(runtime, eco, query, RESULTS))
        )
        found = found.rendered()
        context.update(title=f"{query} in {eco.value}", results=found)
    return render(request, "search.html", context)
