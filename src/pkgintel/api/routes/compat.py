"""Stack compatibility: `GET /api/compat?stack=a@1,b@2` and `POST /api/compat`."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import cached_json
from pkgintel.api.schemas.compat import compat_wire
from pkgintel.domain.errors import EcosystemNotSupported, InvalidInput
from pkgintel.domain.packages import Ecosystem
from pkgintel.services.compat import CompatService, parse_stack
from pkgintel.services.runtime import Runtime

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
        description="`npm` or `pypi`; detected from the names and registries when omitted.",
    )
    python: str | None = Field(default=None, max_length=32, description="Same as a `python` entry.")
    node: str | None = Field(default=None, max_length=32, description="Same as a `node` entry.")


def _service(runtime: Runtime) -> CompatService:
    if runtime.compat is None:
        raise EcosystemNotSupported("compat")
    return runtime.compat


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


@router.get("/compat", summary="Are these exact versions compatible?")
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
    ecosystem: Annotated[Ecosystem | None, Query(description="Detected when omitted.")] = None,
) -> Response:
    started = time.perf_counter()
    text = stack if stack is not None else packages
    if not text:
        raise InvalidInput("stack", "give `stack` (or `packages`) as name@version,name@version")
    report = await _service(runtime).check(parse_stack(text), ecosystem=ecosystem)
    body: dict[str, Any] = compat_wire(report, public_url=runtime.public_url)
    return cached_json(
        request, body, cache_control=COMPAT_CACHE, volatile={"_response_ms": _ms(started)}
    )


@router.post("/compat", summary="Are these exact versions compatible? (JSON body)")
async def compat_post(
    request: Request, runtime: RuntimeDep, body: Annotated[CompatIn, Body()]
) -> Response:
    started = time.perf_counter()
    packages = dict(body.packages)
    if body.python:
        packages["python"] = body.python
    if body.node:
        packages["node"] = body.node
    report = await _service(runtime).check(packages, ecosystem=body.ecosystem)
    payload = compat_wire(report, public_url=runtime.public_url)
    return cached_json(
        request, payload, cache_control=COMPAT_CACHE, volatile={"_response_ms": _ms(started)}
    )
