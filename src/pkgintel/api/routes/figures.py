"""
`GET /api/stats` (usage statistics from the usage log; 60 s fresh, 300 s hard, stale-while-
revalidate), `GET /api/savings` (tokens and energy saved, with the assumptions) and
`GET /api/translate`. Answers from `application/`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.translate import translate_answer
from pkgintel.application.usage_figures import savings_answer, stats_answer
from pkgintel.domain.usage_figures import STATS_FRESH_S, STATS_HARD_S

router = APIRouter(prefix="/api", tags=["discovery"])
FIGURES_CACHE = (
    f"public, max-age={STATS_FRESH_S}, stale-while-revalidate={STATS_HARD_S - STATS_FRESH_S}"
)
TRANSLATE_CACHE = "public, max-age=86400"


@router.get("/stats", summary="Usage statistics", responses=problem_responses(503))
async def stats(runtime: RuntimeDep) -> Response:
    """Calls, unique clients, packages, ecosystems, cache hit rate, latency p50/p95 and top
    endpoints over the last 30 days, from our usage log."""
    return plain_json(await stats_answer(runtime), cache_control=FIGURES_CACHE)


@router.get("/savings", summary="Tokens and energy saved", responses=problem_responses(503))
async def savings(runtime: RuntimeDep) -> Response:
    """Tokens and energy agents saved by asking us instead of reading registry pages, from
    real answered calls (crawlers excluded), with every assumption published."""
    return plain_json(await savings_answer(runtime), cache_control=FIGURES_CACHE)


@router.get("/translate", summary="Translate a text", responses=problem_responses(422, 503))
async def translate(
    runtime: RuntimeDep,
    text: Annotated[str, Query(min_length=1, max_length=20000)],
    to: Annotated[str, Query(min_length=2, max_length=16)] = "it",
) -> Response:
    """Translation by the configured LibreTranslate-compatible provider (503 when none is
    configured); the text length is limited by PKGINTEL_TRANSLATE_MAX_CHARS."""
    return plain_json(await translate_answer(runtime, text, to), cache_control=TRANSLATE_CACHE)
