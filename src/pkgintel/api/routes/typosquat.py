"""`GET /api/typosquat/{ecosystem}/{package}`: popular names a package imitates (database only)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import cached_json
from pkgintel.application.schemas.typosquat import TyposquatOut
from pkgintel.application.typosquat import typosquat_answer
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["packages"])


@router.get(
    "/typosquat/{ecosystem}/{package:path}",
    response_model=TyposquatOut,
    summary="Typosquat check (database only)",
)
async def typosquat(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Popular names of the same ecosystem this name imitates — technique, edit distance,
    popularity delta — and whether that makes it a suspect; `is_suspected: null` when no popularity
    data is loaded for the ecosystem."""
    answer = await typosquat_answer(runtime, ecosystem, package)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )
