"""Error-knowledge answers: resolve an install/build error (shared by every door)."""

from __future__ import annotations

import time
from typing import Any

from pkgintel.application.answer import NO_STORE, Answer
from pkgintel.application.schemas.errors import (
    resolution_wire,
)
from pkgintel.domain.errors import EcosystemNotSupported
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.error_resolver import ErrorService

ERROR_CACHE = "public, max-age=300, stale-while-revalidate=3600"
"""Entries change when knowledge is loaded or voted on: five minutes of client caching."""


SOURCE = {"name": "pkgintel error knowledge", "kind": "curated"}


def error_service(runtime: Runtime) -> ErrorService:
    if runtime.errors is None:
        raise EcosystemNotSupported("errors")
    return runtime.errors


async def error_meta(endpoint: str, runtime: Runtime) -> dict[str, Any]:
    """`_meta` of every error answer; the source's status says whether the knowledge is loaded
    (`ErrorService.source_status`)."""
    service = error_service(runtime)
    status, detail = await service.source_status()
    source: dict[str, Any] = {**SOURCE, "status": status, "backend": service.backend}
    if detail is not None:
        source["detail"] = detail
    return {"endpoint": endpoint, "docs": f"{runtime.public_url}/docs", "sources": [source]}


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


async def resolve_error_answer(runtime: Runtime, error: str, limit: int = 5) -> Answer:
    """
    The `POST /api/error/resolve` answer (shared with the MCP tool `resolve_error`): known fixes
    for `error`, best first; with none, the miss is recorded (so the answer is never cached).
    Raises `InvalidInput` for empty or overlong text, `EcosystemNotSupported` when the error
    database is not configured.
    """
    started = time.perf_counter()
    resolution = await error_service(runtime).resolve(error, limit=limit)
    body = {
        **resolution_wire(resolution),
        "_meta": await error_meta("/api/error/resolve", runtime),
    }
    return Answer(body, NO_STORE, {"_response_ms": elapsed_ms(started)})
