"""`GET /api/typosquat/{ecosystem}/{package}`: popular names a package imitates (database only)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import Answer, cached_json
from pkgintel.api.schemas.typosquat import TyposquatOut, name_index_source, typosquat_wire
from pkgintel.api.schemas.wire import sources_wire
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.runtime.container import Runtime

router = APIRouter(prefix="/api", tags=["packages"])

TYPOSQUAT_CACHE = "public, max-age=3600"


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


async def typosquat_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/typosquat` answer (shared with the MCP tool `check_typosquat`). Raises
    `InvalidInput` for a name the ecosystem cannot have."""
    started = time.perf_counter()
    name = validate_name(ecosystem, package)
    found = await runtime.names.exists(ecosystem, name, suggestions=False)
    hint = await runtime.names.typosquat(ecosystem, name, found.entry, lookup=False)
    runtime.status.stats.count("typosquat")
    body = {
        "package": name,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, name),
        "normalized": found.normalized,
        "exists": found.exists,
        **typosquat_wire(hint),
        "_meta": {
            "endpoint": "/api/typosquat/{ecosystem}/{package}",
            "database_only": True,
            "sources": sources_wire([name_index_source(ecosystem.value, hint.index)]),
        },
    }
    return Answer(
        body, TYPOSQUAT_CACHE, {"_response_ms": round((time.perf_counter() - started) * 1000)}
    )
