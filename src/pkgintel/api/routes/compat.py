"""Stack compatibility: `GET /api/compat?stack=a@1,b@2` and `POST /api/compat`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import cached_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.compat import (
    compat_answer,
    with_runtimes,
)
from pkgintel.application.schemas.compat import CompatOut
from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.knowledge.compatibility import parse_stack

router = APIRouter(prefix="/api", tags=["compatibility"])


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
