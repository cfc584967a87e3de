"""
Contact endpoints: `POST /api/contact` (free, no authentication, limited per client) and
`GET /api/contact/types`. The MCP tool `contact` calls `contact_answer`, the same function as the
POST route. The operators read requests through `GET /api/admin/contact`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response

from pkgintel.api.deps import IdentityDep, RuntimeDep
from pkgintel.api.http import cached_json, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.answer import NO_STORE
from pkgintel.application.contact import (
    contact_answer,
    types_answer,
)
from pkgintel.application.schemas.contact import (
    ContactIn,
    ContactOut,
    ContactTypesOut,
)

router = APIRouter(prefix="/api/contact", tags=["contact"])

TYPES_CACHE = "public, max-age=86400"


@router.post(
    "",
    summary="Send a contact request",
    status_code=201,
    response_model=ContactOut,
    responses=problem_responses(422, 429, 503),
)
async def post_contact(
    runtime: RuntimeDep, identity: IdentityDep, request: Request, body: Annotated[ContactIn, Body()]
) -> Response:
    """
    Tell the operators about a wrong answer, a package to look at or a problem with the service.
    Free and without authentication; limited per client (the sender is kept as a keyed hash of its
    address, never the address).
    """
    answer = await contact_answer(runtime, body, client=identity.key(request), source="api")
    return plain_json(answer, cache_control=NO_STORE, status_code=201)


@router.get("/types", summary="Allowed contact request types", response_model=ContactTypesOut)
async def get_types(runtime: RuntimeDep, request: Request) -> Response:
    return cached_json(request, types_answer(runtime), cache_control=TYPES_CACHE)
