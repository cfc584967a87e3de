"""
Hallucination benchmark: `GET /api/benchmark/hallucinations` (the corpus, CC BY-NC-SA 4.0),
`GET /api/benchmark/verify` and `GET /api/benchmark/results`. Answers from
`application/benchmark.py`, shared with the MCP tool `verify_package_name`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.benchmark import (
    VerificationOut,
    hallucinations_answer,
    results_answer,
    verify_answer,
)
from pkgintel.domain.hallucinations import (
    CORPUS_LIMIT_DEFAULT,
    CORPUS_LIMIT_MAX,
    CORPUS_LIMIT_MIN,
)
from pkgintel.domain.names.rules import MAX_NAME_LENGTH

router = APIRouter(prefix="/api/benchmark", tags=["benchmark"])
CORPUS_CACHE = "public, max-age=300"


@router.get(
    "/hallucinations",
    summary="Package names agents asked for that do not exist",
    responses=problem_responses(422, 503),
)
async def hallucinations(
    runtime: RuntimeDep,
    request: Request,
    ecosystem: Annotated[str | None, Query(max_length=16)] = None,
    limit: Annotated[int, Query(ge=CORPUS_LIMIT_MIN, le=CORPUS_LIMIT_MAX)] = CORPUS_LIMIT_DEFAULT,
) -> Response:
    """The corpus, sorted by `hit_count` descending, with the nearest real name and whether the
    name was registered since (a slopsquat alert). Licensed CC BY-NC-SA 4.0: non-commercial,
    attribution required."""
    return plain_json(
        await hallucinations_answer(runtime, ecosystem, limit), cache_control=CORPUS_CACHE
    )


@router.get(
    "/verify",
    summary="Is this package name a known hallucination?",
    response_model=VerificationOut,
    responses=problem_responses(422, 503),
)
async def verify(
    runtime: RuntimeDep,
    ecosystem: Annotated[str, Query(max_length=16)],
    package: Annotated[str, Query(min_length=1, max_length=MAX_NAME_LENGTH)],
) -> Response:
    """`is_hallucinated` is true exactly when the name is in the corpus and not in the registry."""
    return plain_json(await verify_answer(runtime, ecosystem, package), cache_control=NO_STORE)


@router.get(
    "/results",
    summary="Benchmark hit rates by model and condition",
    responses=problem_responses(503),
)
async def results(runtime: RuntimeDep) -> Response:
    """Hit rates of the newest result file an operator loaded (`pkgintel benchmark load`); empty
    with an explanation until then."""
    return plain_json(await results_answer(runtime), cache_control=NO_STORE)
