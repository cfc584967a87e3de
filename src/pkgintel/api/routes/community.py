"""
Community endpoints: `POST /api/anomaly` (a wrong-verdict report; limited per client, at most
16 KiB), `POST /api/track` (a page view: path and referrer host only, no cookies) and the operators'
`GET /api/admin/anomalies`. Answers come from `application/community.py`, shared with MCP.
"""

from __future__ import annotations

from typing import Annotated, TypeVar

from fastapi import APIRouter, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pkgintel.api.deps import IdentityDep, RuntimeDep
from pkgintel.api.errors import problem
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.api.routes.admin import RESPONSES as ADMIN_RESPONSES
from pkgintel.api.routes.admin import OpsDep
from pkgintel.application.community import anomalies_answer, anomaly_answer, track_answer
from pkgintel.domain.community import (
    MAX_BODY_BYTES,
    MAX_PACKAGE_CHARS,
    MAX_PATH_CHARS,
    MAX_URL_CHARS,
    MAX_VERDICT_CHARS,
    MAX_VERSION_CHARS,
)

router = APIRouter(tags=["community"])
M = TypeVar("M", bound=BaseModel)


class AnomalyIn(BaseModel):
    """A report that one of our verdicts is wrong (field names: see docs/api.md)."""

    model_config = ConfigDict(extra="forbid")

    ecosystem: str = Field(max_length=16, description="Ecosystem of the package.")
    package: str = Field(min_length=1, max_length=MAX_PACKAGE_CHARS)
    version: str | None = Field(default=None, max_length=MAX_VERSION_CHARS)
    observed: str = Field(
        min_length=1, max_length=MAX_VERDICT_CHARS, description="What pkgintel answered."
    )
    expected: str = Field(
        min_length=1, max_length=MAX_VERDICT_CHARS, description="What the answer should be."
    )
    evidence_url: str | None = Field(
        default=None, max_length=MAX_URL_CHARS, description="An http(s) page showing it."
    )


class TrackIn(BaseModel):
    """One page view: the path and, optionally, the referrer (only its host is kept)."""

    model_config = ConfigDict(extra="forbid")

    path: str = Field(min_length=1, max_length=MAX_PATH_CHARS)
    referrer: str | None = Field(default=None, max_length=MAX_URL_CHARS)


async def read_limited(request: Request, limit: int) -> bytes | None:
    """The body, or None when it is larger than `limit` bytes (checked before and while reading)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large() -> Response:
    return problem(
        413,
        "Body too large",
        f"the body is limited to {MAX_BODY_BYTES:,} bytes",
        kind="body-too-large",
        limit=MAX_BODY_BYTES,
    )


def _parse(model: type[M], raw: bytes) -> M:
    try:
        return model.model_validate_json(raw or b"null")
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from exc


def _body_schema(model: type[BaseModel]) -> dict[str, object]:
    return {
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": model.model_json_schema()}},
        }
    }


@router.post(
    "/api/anomaly",
    summary="Report a wrong verdict",
    status_code=201,
    openapi_extra=_body_schema(AnomalyIn),
    responses=problem_responses(413, 422, 429, 503),
)
async def post_anomaly(runtime: RuntimeDep, identity: IdentityDep, request: Request) -> Response:
    """
    Tell us a verdict is wrong: the package, what we answered (`observed`), what it should be
    (`expected`) and a page that shows it. Free and without authentication; limited per client
    (kept as a keyed hash of its address, never the address). Answers the stored report's id.
    """
    raw = await read_limited(request, MAX_BODY_BYTES)
    if raw is None:
        return _too_large()
    body = _parse(AnomalyIn, raw)
    answer = await anomaly_answer(
        runtime,
        ecosystem=body.ecosystem,
        package=body.package,
        version=body.version,
        observed=body.observed,
        expected=body.expected,
        evidence_url=body.evidence_url,
        client=identity.key(request),
        source="api",
    )
    return plain_json(answer, cache_control=NO_STORE, status_code=201)


@router.post(
    "/api/track",
    summary="Record a page view (no cookies)",
    status_code=202,
    openapi_extra=_body_schema(TrackIn),
    responses=problem_responses(413, 422, 503),
)
async def post_track(runtime: RuntimeDep, identity: IdentityDep, request: Request) -> Response:
    """
    A page view of the web pages: the path (its query and fragment are dropped) and the
    referrer's host. No cookie is read or set; the client is kept as a keyed hash only.
    """
    raw = await read_limited(request, MAX_BODY_BYTES)
    if raw is None:
        return _too_large()
    body = _parse(TrackIn, raw)
    answer = await track_answer(
        runtime, path=body.path, referrer=body.referrer, client=identity.key(request)
    )
    return plain_json(answer, cache_control=NO_STORE, status_code=202)


@router.get(
    "/api/admin/anomalies",
    tags=["admin"],
    summary="Anomaly reports, newest first",
    responses={**ADMIN_RESPONSES, **problem_responses(503)},
)
async def admin_anomalies(
    ops: OpsDep,
    runtime: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> Response:
    return plain_json(await anomalies_answer(runtime, limit), cache_control=NO_STORE)
