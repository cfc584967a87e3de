"""Contact answers: store a request for the operators, list the request types (shared by every door)."""

from __future__ import annotations

from typing import Any

from pkgintel.application.schemas.contact import (
    ContactIn,
)
from pkgintel.domain.operations.contact import (
    StoredContact,
)
from pkgintel.domain.operations.ops import OpsUnavailable
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.contact import ContactService

SOURCE = {"name": "pkgintel contact requests", "kind": "database", "status": "ok"}


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
