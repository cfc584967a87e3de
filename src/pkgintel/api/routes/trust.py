"""
`GET /api/trust/{ecosystem}/{package}`: the supply-chain signals of one package in one answer —
maintainers, OpenSSF Scorecard, quality and provenance, each exactly the body of its own endpoint
(`/api/maintainers`, `/api/scorecard`, `/api/quality`, `/api/provenance`), fetched concurrently.
`trust_signals_answer` is shared with the MCP tool `get_trust_signals`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import cached_json
from pkgintel.application.schemas.trust import TrustSignalsOut
from pkgintel.application.signals import (
    trust_signals_answer,
)
from pkgintel.domain.limits import MAX_VERSION_CHARS
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["supply-chain"])


@router.get(
    "/trust/{ecosystem}/{package:path}",
    response_model=TrustSignalsOut,
    summary="Supply-chain signals in one answer (maintainers, Scorecard, quality, provenance)",
    responses={
        404: {"description": "Unknown package or version (problem+json)"},
        503: {"description": "Registry down and nothing cached (problem+json, Retry-After)"},
    },
)
async def trust_signals(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=MAX_VERSION_CHARS,
            description="Version whose provenance is judged.",
        ),
    ] = None,
) -> Response:
    """Who publishes the package, how its project is looked after, and whether its releases are
    attested — the bodies of `/api/maintainers`, `/api/scorecard`, `/api/quality` and
    `/api/provenance` together (what the MCP tool `get_trust_signals` returns)."""
    answer = await trust_signals_answer(runtime, ecosystem, package, version)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )
