"""Stack compatibility: `GET /api/compat?stack=a@1,b@2` and `POST /api/compat`."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import Answer, cached_json
from pkgintel.api.openapi import problem_responses
from pkgintel.api.schemas.compat import CompatOut, compat_wire
from pkgintel.domain.errors import EcosystemNotSupported, InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.knowledge.compatibility import SUPPORTED, CompatService, parse_stack

router = APIRouter(prefix="/api", tags=["compatibility"])

COMPAT_CACHE = "public, max-age=21600, stale-while-revalidate=86400"


class CompatIn(BaseModel):
    packages: dict[str, str] = Field(
        min_length=1,
        max_length=100,
        description="Package name → exact version; `node` / `python` entries are runtimes.",
        examples=[{"react": "18.2.0", "react-dom": "17.0.2", "node": "18.17.0"}],
    )
    ecosystem: Ecosystem | None = Field(
        default=None,
        description="`npm` or `pypi` (another ecosystem: 422); detected from the names and "
        "registries when omitted.",
    )
    python: str | None = Field(default=None, max_length=32, description="Same as a `python` entry.")
    node: str | None = Field(default=None, max_length=32, description="Same as a `node` entry.")


def _service(runtime: Runtime) -> CompatService:
    if runtime.compat is None:
        raise EcosystemNotSupported("compat")
    return runtime.compat


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


@router.get(
    "/compat",
    response_model=CompatOut,
    summary="Are these exact versions compatible?",
    responses=problem_responses(501, 503),
)
async def compat_get(
    request: Request,
    runtime: RuntimeDep,
    stack: Annotated[
        str | None,
        Query(
            max_length=4000,
            description="Comma-separated `name@version` items; `node@18.17.0`, `python@3.9` are runtimes.",
        ),
    ] = None,
    packages: Annotated[str | None, Query(max_length=4000, description="Alias of `stack`.")] = None,
    ecosystem: Annotated[
        Ecosystem | None,
        Query(description="`npm` or `pypi` (another ecosystem: 422); detected when omitted."),
    ] = None,
) -> Response:
    text = stack if stack is not None else packages
    if not text:
        raise InvalidInput("stack", "give `stack` (or `packages`) as name@version,name@version")
    answer = await compat_answer(runtime, parse_stack(text), ecosystem)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.post(
    "/compat",
    response_model=CompatOut,
    summary="Are these exact versions compatible? (JSON body)",
    responses=problem_responses(501, 503),
)
async def compat_post(
    request: Request, runtime: RuntimeDep, body: Annotated[CompatIn, Body()]
) -> Response:
    packages = with_runtimes(body.packages, python=body.python, node=body.node)
    answer = await compat_answer(runtime, packages, body.ecosystem)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


def with_runtimes(
    packages: Mapping[str, str], *, python: str | None = None, node: str | None = None
) -> dict[str, str]:
    """`packages` plus the `python` / `node` runtime entries when given (they win over entries)."""
    merged = dict(packages)
    if python:
        merged["python"] = python
    if node:
        merged["node"] = node
    return merged


async def compat_answer(
    runtime: Runtime, packages: Mapping[str, str], ecosystem: Ecosystem | None = None
) -> Answer:
    """
    The `/api/compat` answer (GET and POST; shared with the MCP tool `check_compatibility`) for
    `packages` ({name: exact version}; `node` / `python` entries are runtimes). Raises
    `InvalidInput` (empty, oversized or undetectable stack, an ecosystem without compatibility
    rules) and `EcosystemNotSupported` (no compatibility service in this runtime).
    """
    started = time.perf_counter()
    if ecosystem is not None and ecosystem not in SUPPORTED:
        # Compatibility rules exist for some ecosystems only: asking about another is a question
        # this service cannot answer, said as a 422 naming the supported ones (not a 501).
        raise InvalidInput(
            "ecosystem",
            f"compatibility is checked for {' and '.join(e.value for e in SUPPORTED)} only, "
            f"not {ecosystem.value}",
        )
    report = await _service(runtime).check(packages, ecosystem=ecosystem)
    body: dict[str, Any] = compat_wire(report, public_url=runtime.public_url)
    return Answer(body, COMPAT_CACHE, {"_response_ms": _ms(started)})
