"""Wire models of contact requests: the request body, its acknowledgement, the request types."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from pkgintel.application.schemas.answers import SourcesMetaOut
from pkgintel.domain.operations.contact import (
    MAX_EMAIL_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_PACKAGE_CHARS,
    MIN_MESSAGE_CHARS,
)


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
