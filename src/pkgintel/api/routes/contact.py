"""
Contact endpoints: `POST /api/contact` (free, no authentication, limited per client) and
`GET /api/contact/types`. The MCP tool `contact` calls `contact_answer`, the same function as the
POST route. The operators read requests through `GET /api/admin/contact`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from pkgintel.api.deps import IdentityDep, RuntimeDep
from pkgintel.api.http import NO_STORE, cached_json, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.api.schemas.answers import SourcesMetaOut
from pkgintel.domain.operations.contact import (
    MAX_EMAIL_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_PACKAGE_CHARS,
    MIN_MESSAGE_CHARS,
    StoredContact,
)
from pkgintel.domain.operations.ops import OpsUnavailable
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.contact import ContactService

router = APIRouter(prefix="/api/contact", tags=["contact"])

TYPES_CACHE = "public, max-age=86400"
SOURCE = {"name": "pkgintel contact requests", "kind": "database", "status": "ok"}


class ContactIn(BaseModel):
    """A contact request (the specification leaves the field names open; see docs/api.md)."""

    model_config = ConfigDict(extra="forbid")

    type: str = Field(
        max_length=32, description="What the request is about: a value of `GET /api/contact/types`."
    )
    message: str = Field(
        min_length=1,
        max_length=MAX_MESSAGE_CHARS + 200,
        description=f"What happened or what you need, {MIN_MESSAGE_CHARS}–{MAX_MESSAGE_CHARS} "
        "characters after trimming.",
    )
    email: str | None = Field(
        default=None,
        max_length=MAX_EMAIL_CHARS,
        description="Reply address, only if you want an answer; stored with the request and "
        "removed with it after the retention period.",
    )
    ecosystem: str | None = Field(
        default=None, max_length=16, description="Ecosystem of the package the request is about."
    )
    package: str | None = Field(
        default=None,
        max_length=MAX_PACKAGE_CHARS,
        description="Package the request is about (needs `ecosystem`).",
    )


class ContactOut(BaseModel):
    """The acknowledgement of a stored request."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    status: str
    type: str
    received_at: str
    ecosystem: str | None
    package: str | None
    reply_requested: bool
    retention_days: int
    meta: SourcesMetaOut = Field(alias="_meta")


class ContactTypeOut(BaseModel):
    value: str
    description: str


class ContactTypesOut(BaseModel):
    types: list[ContactTypeOut]
    limit: str | None = Field(description="Requests one client may send (`5 per 1 hour`).")
    retention_days: int


def contact_service(runtime: Runtime) -> ContactService:
    """The runtime's contact service; `OpsUnavailable` (503) when this installation has none."""
    if runtime.contact is None:
        raise OpsUnavailable("contact requests are not wired in this installation")
    return runtime.contact


def contact_wire(stored: StoredContact, retention_days: int) -> dict[str, Any]:
    r = stored.request
    return {
        "id": stored.id,
        "status": "received",
        "type": r.type.value,
        "received_at": stored.received_at.isoformat().replace("+00:00", "Z"),
        "ecosystem": r.ecosystem.value if r.ecosystem else None,
        "package": r.package,
        "reply_requested": r.email is not None,
        "retention_days": retention_days,
    }


async def contact_answer(
    runtime: Runtime, body: ContactIn, *, client: str, source: str
) -> dict[str, Any]:
    """Store one request for the client `client` (a keyed hash) arriving through `source`."""
    service = contact_service(runtime)
    stored = await service.submit(
        type=body.type,
        message=body.message,
        email=body.email,
        ecosystem=body.ecosystem,
        package=body.package,
        client=client,
        source=source,
    )
    wire = contact_wire(stored, service.retention_days)
    stored_in = {**SOURCE, "fetched_at": wire["received_at"], "age_s": 0}
    return {**wire, "_meta": {"endpoint": "/api/contact", "sources": [stored_in]}}


def types_answer(runtime: Runtime) -> dict[str, Any]:
    service = contact_service(runtime)
    return {
        "types": [{"value": t.value, "description": d} for t, d in service.types().items()],
        "limit": service.limit,
        "retention_days": service.retention_days,
    }


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
