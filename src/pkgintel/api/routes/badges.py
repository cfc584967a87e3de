"""
SVG badges: `/badge/{ecosystem}/{package}` (score and verdict), `/badge/score/{ecosystem}/{package}` and
its alias `/badge/{ecosystem}/{package}/score` (score only). The score is `/api/health`'s (the same
answer function); a package we cannot score gets a grey "unknown" badge, never an error page.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.badge_svg import render_badge
from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import cached_bytes
from pkgintel.application.packages import health_answer
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime

router = APIRouter(prefix="/badge", tags=["badges"])

SVG = "image/svg+xml; charset=utf-8"
UNKNOWN_CACHE = "public, max-age=300"
"""A grey badge may turn into a score soon (registry back, name indexed): edges come back sooner."""
_RESPONSES: dict[int | str, dict[str, object]] = {
    200: {
        "content": {"image/svg+xml": {"schema": {"type": "string"}}},
        "description": "Flat SVG badge; grey 'unknown' when the package cannot be scored.",
    },
}


async def _badge(
    request: Request, runtime: Runtime, ecosystem: Ecosystem, package: str, *, score_only: bool
) -> Response:
    runtime.status.stats.count("badge")
    try:
        report, answer = await health_answer(runtime, ecosystem, package, None)
    except PkgIntelError:
        label = "health" if score_only else "pkgintel"
        svg = render_badge(label, "unknown", "grey")
        return cached_bytes(request, svg.encode(), media_type=SVG, cache_control=UNKNOWN_CACHE)
    health = answer.body["health"]
    if score_only:
        svg = render_badge("health", f"{health['score']}/100", health["colour"])
    else:
        verdict = report.recommendation.action.replace("_", " ")
        svg = render_badge("pkgintel", f"{health['score']} · {verdict}", health["colour"])
    return cached_bytes(request, svg.encode(), media_type=SVG, cache_control=answer.cache_control)


@router.get(
    "/score/{ecosystem}/{package:path}",
    response_class=Response,
    responses=_RESPONSES,
    summary="Score-only SVG badge",
)
async def score_badge(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """The health score (0-100) as a flat badge: green 80+, yellow 60-79, orange 40-59, red below 40."""
    return await _badge(request, runtime, ecosystem, package, score_only=True)


@router.get(
    "/{ecosystem}/{package:path}/score",
    response_class=Response,
    responses=_RESPONSES,
    summary="Score-only SVG badge (alias path)",
)
async def score_badge_alias(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Same badge as `/badge/score/{ecosystem}/{package}`."""
    return await _badge(request, runtime, ecosystem, package, score_only=True)


@router.get(
    "/{ecosystem}/{package:path}",
    response_class=Response,
    responses=_RESPONSES,
    summary="Health SVG badge",
)
async def health_badge(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Score and verdict (e.g. `87 · safe to use`) as a flat badge, coloured by the score's band."""
    return await _badge(request, runtime, ecosystem, package, score_only=False)
