"""Error-to-fix endpoints: search, resolve, popular, one entry, votes."""

from __future__ import annotations

import time
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pkgintel.api.deps import IdentityDep, RuntimeDep
from pkgintel.api.http import cached_json, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.answer import NO_STORE
from pkgintel.application.errors import (
    ERROR_CACHE,
    elapsed_ms,
    error_meta,
    error_service,
    resolve_error_answer,
)
from pkgintel.application.schemas.errors import (
    ErrorResolutionOut,
    entry_wire,
    match_wire,
    normalised_wire,
    vote_wire,
)
from pkgintel.domain.knowledge.errors import Vote
from pkgintel.services.knowledge.error_resolver import MAX_ERROR_CHARS

router = APIRouter(prefix="/api/error", tags=["errors"])


MAX_QUERY_CHARS = 2000
"""Longest `q` / `code` of `GET /api/error`, characters. Percent-encoded, a character may take 12
bytes (`%F0%9F%98%80`), and both parameters may be given: 2 × 2000 × 12 bytes stays under the 80 KiB
request head uvicorn's parser reads, so a longer text is this app's 422, never the server's bare 400.
Whole logs go to `POST /api/error/resolve` (a body)."""


class ResolveIn(BaseModel):
    error: str = Field(
        min_length=1,
        max_length=MAX_ERROR_CHARS,
        description="The error message or the whole log / stack trace, as printed.",
    )
    limit: int = Field(default=5, ge=1, le=20, description="At most this many solutions.")


class VoteIn(BaseModel):
    vote: Literal["up", "down"] = Field(description="`up` if the fix worked, `down` if it did not.")


@router.get("", summary="Search the error database (exact hash, full text, fuzzy)")
async def search_errors(
    request: Request,
    runtime: RuntimeDep,
    q: Annotated[
        str,
        Query(
            max_length=MAX_QUERY_CHARS,
            description="Error text or an error_hash (longer logs: `POST /api/error/resolve`).",
        ),
    ] = "",
    code: Annotated[
        str | None, Query(max_length=MAX_QUERY_CHARS, description="Alias of `q`.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=50)] = 5,
) -> Response:
    """An `error_hash` is looked up exactly; text is normalised and matched; empty `q` lists popular entries."""
    started = time.perf_counter()
    query = q or code or ""
    normalised, matches = await error_service(runtime).search(query, limit=limit)
    body = {
        "query": query,
        "normalised": normalised_wire(normalised) if normalised else None,
        "count": len(matches),
        "results": [match_wire(m) for m in matches],
        "_meta": await error_meta("/api/error", runtime),
    }
    return cached_json(
        request, body, cache_control=ERROR_CACHE, volatile={"_response_ms": elapsed_ms(started)}
    )


@router.post(
    "/resolve",
    response_model=ErrorResolutionOut,
    summary="Known fixes for an error or stack trace",
)
async def resolve_error(body: Annotated[ResolveIn, Body()], runtime: RuntimeDep) -> Response:
    """Matched entries with confidence and why; with no match the pattern is recorded as a miss."""
    answer = await resolve_error_answer(runtime, body.error, body.limit)
    return plain_json(answer.wire(), cache_control=answer.cache_control)


@router.get("/popular", summary="Top error patterns by votes and hits")
async def popular_errors(
    request: Request, runtime: RuntimeDep, limit: Annotated[int, Query(ge=1, le=500)] = 500
) -> Response:
    entries = await error_service(runtime).popular(limit)
    body = {
        "count": len(entries),
        "results": [entry_wire(e) for e in entries],
        "_meta": await error_meta("/api/error/popular", runtime),
    }
    return cached_json(request, body, cache_control=ERROR_CACHE)


@router.get("/{error_hash}", summary="One error entry by its hash")
async def get_error(
    request: Request,
    runtime: RuntimeDep,
    error_hash: Annotated[
        str, Path(pattern="^[0-9a-fA-F]{64}$", description="SHA-256 of the normalised pattern.")
    ],
) -> Response:
    entry = await error_service(runtime).get(error_hash)
    body = {**entry_wire(entry), "_meta": await error_meta("/api/error/{error_hash}", runtime)}
    return cached_json(request, body, cache_control=ERROR_CACHE)


@router.post(
    "/{error_hash}/vote",
    summary="Vote on whether an entry's fix worked",
    responses=problem_responses(429),
)
async def vote_error(
    request: Request,
    runtime: RuntimeDep,
    identity: IdentityDep,
    body: Annotated[VoteIn, Body()],
    error_hash: Annotated[str, Path(pattern="^[0-9a-fA-F]{64}$")],
) -> Response:
    """One vote per client per entry (clients are keyed hashes of their address); rate-limited."""
    outcome = await error_service(runtime).vote(
        error_hash, Vote(body.vote), client=identity.key(request)
    )
    return plain_json(vote_wire(outcome), cache_control=NO_STORE)
