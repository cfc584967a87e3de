"""
`GET /api/trust/{ecosystem}/{package}`: the supply-chain signals of one package in one answer —
maintainers, OpenSSF Scorecard, quality and provenance, each exactly the body of its own endpoint
(`/api/maintainers`, `/api/scorecard`, `/api/quality`, `/api/provenance`), fetched concurrently.
`trust_signals_answer` is shared with the MCP tool `get_trust_signals`.
"""

from __future__ import annotations

import asyncio
import re
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import Answer, cached_json
from pkgintel.api.routes.artifacts import provenance_answer, scorecard_answer
from pkgintel.api.routes.people import maintainers_answer, quality_answer
from pkgintel.api.schemas.artifacts import ProvenanceOut, ScorecardOut
from pkgintel.api.schemas.packages import purl_field
from pkgintel.api.schemas.people import MaintainersOut, QualityOut
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.runtime.container import Runtime

router = APIRouter(prefix="/api", tags=["supply-chain"])

PARTS = ("maintainers", "scorecard", "quality", "provenance")
_MAX_AGE = re.compile(r"max-age=(\d+)")


class TrustSignalsOut(BaseModel):
    """The four signal answers, each the body of its own endpoint, and their sources together."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    ecosystem: str
    package: str
    purl: str | None = purl_field()
    maintainers: MaintainersOut
    scorecard: ScorecardOut
    quality: QualityOut
    provenance: ProvenanceOut
    meta: dict[str, Any] = Field(alias="_meta")


def _shortest(cache_controls: list[str]) -> str:
    """The `Cache-Control` of the part that may be cached least long (a combined answer is only as
    fresh as its stalest part)."""

    def max_age(value: str) -> int:
        found = _MAX_AGE.search(value)
        return int(found.group(1)) if found else 0

    return min(cache_controls, key=max_age)


def _union_sources(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for body in parts:
        for source in (body.get("_meta") or {}).get("sources") or ():
            key = (source.get("name"), source.get("kind"), source.get("status"))
            seen.setdefault(key, source)
    return list(seen.values())


async def trust_signals_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None = None
) -> Answer:
    """
    The four answers for `package` (`version` only narrows provenance). Each part is its own
    endpoint's answer, so an upstream that is down leaves that part "unavailable" with its reason
    and the others intact; a domain error that every part shares (unknown package, registry down
    with nothing stored, bad version) is raised once, as its endpoint raises it.
    """
    results = await asyncio.gather(
        maintainers_answer(runtime, ecosystem, package),
        scorecard_answer(runtime, ecosystem, package),
        quality_answer(runtime, ecosystem, package),
        provenance_answer(runtime, ecosystem, package, version),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:  # a domain error first (they are the same for every part), else what failed
        raise next((e for e in errors if isinstance(e, PkgIntelError)), errors[0])
    answers: list[Answer] = [r for r in results if isinstance(r, Answer)]
    bodies = [a.body for a in answers]
    shown = bodies[0].get("package") or package
    body: dict[str, Any] = {
        "ecosystem": ecosystem.value,
        "package": shown,
        "purl": purl_of(ecosystem, shown, version),
        **dict(zip(PARTS, bodies, strict=True)),
        "_meta": {
            "endpoint": "/api/trust/{ecosystem}/{package}",
            "parts": {part: f"/api/{part}/{ecosystem.value}/{{package}}" for part in PARTS},
            "sources": _union_sources(bodies),
        },
    }
    return Answer(body, _shortest([a.cache_control for a in answers]))


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
        Query(min_length=1, max_length=128, description="Version whose provenance is judged."),
    ] = None,
) -> Response:
    """Who publishes the package, how its project is looked after, and whether its releases are
    attested — the bodies of `/api/maintainers`, `/api/scorecard`, `/api/quality` and
    `/api/provenance` together (what the MCP tool `get_trust_signals` returns)."""
    answer = await trust_signals_answer(runtime, ecosystem, package, version)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )
