"""
Contact requests: what a user or an agent can tell the operators (a wrong answer, a package to look at,
a hole in the service). Pure: the kinds, the limits and the validation of one request.

A request is a `type` (one of `ContactType`), a `message`, and optionally a reply address and the
package it is about. Validation never stores or echoes what it rejects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import MAX_NAME_CHARS
from pkgintel.domain.packages import Ecosystem


class ContactType(StrEnum):
    """The kinds of contact request; `CONTACT_TYPES` describes each one."""

    WRONG_ANSWER = "wrong-answer"
    FALSE_POSITIVE = "false-positive"
    MALICIOUS_PACKAGE = "malicious-package"
    MISSING_PACKAGE = "missing-package"
    ERROR_FIX = "error-fix"
    SECURITY = "security"
    FEATURE = "feature"
    OTHER = "other"


CONTACT_TYPES: dict[ContactType, str] = {
    ContactType.WRONG_ANSWER: "An answer is wrong: a verdict, a version, an advisory match, a licence "
    "or a date. Name the package and what the registry or advisory actually says.",
    ContactType.FALSE_POSITIVE: "A package is flagged (malicious, typosquat, vulnerable, deprecated) "
    "and should not be. Give the evidence.",
    ContactType.MALICIOUS_PACKAGE: "A package you believe is malicious and that we do not flag. It is "
    "reviewed against public reports before any verdict changes.",
    ContactType.MISSING_PACKAGE: "A package, version or ecosystem we do not know although it exists.",
    ContactType.ERROR_FIX: "An install or build error we do not resolve, or a fix of ours that did "
    "not work, with the error text.",
    ContactType.SECURITY: "A vulnerability in pkgintel itself. Leave a reply address; do not include "
    "secrets.",
    ContactType.FEATURE: "Something you would like the service to answer.",
    ContactType.OTHER: "Anything else about the service.",
}

MAX_MESSAGE_CHARS = 5000
MIN_MESSAGE_CHARS = 10
MAX_EMAIL_CHARS = 254
MAX_PACKAGE_CHARS = MAX_NAME_CHARS
_EMAIL = re.compile(
    r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class ContactRequest:
    """One validated request, as it is stored (`client` is the keyed hash of the sender, never an IP)."""

    type: ContactType
    message: str
    email: str | None
    ecosystem: Ecosystem | None
    package: str | None
    client: str
    source: str
    """Door it came through: `api` or `mcp`."""


@dataclass(frozen=True, slots=True)
class StoredContact:
    """A stored request with its id and arrival time."""

    id: str
    received_at: datetime
    request: ContactRequest


def contact_request(
    *,
    type: str,
    message: str,
    email: str | None,
    ecosystem: str | None,
    package: str | None,
    client: str,
    source: str,
) -> ContactRequest:
    """
    Validate one request. Raises `InvalidInput` naming the field: an unknown `type`, a message shorter
    than `MIN_MESSAGE_CHARS` or longer than `MAX_MESSAGE_CHARS` (after trimming), control characters
    other than tab and newline, a malformed reply address, a `package` without an `ecosystem`, or an
    unknown ecosystem.
    """
    try:
        kind = ContactType(type)
    except ValueError:
        allowed = ", ".join(t.value for t in ContactType)
        raise InvalidInput("type", f"`type` must be one of: {allowed}") from None
    text = message.replace("\r\n", "\n").strip()
    if len(text) < MIN_MESSAGE_CHARS:
        raise InvalidInput(
            "message", f"`message` must have at least {MIN_MESSAGE_CHARS} characters"
        )
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidInput("message", f"`message` must have at most {MAX_MESSAGE_CHARS} characters")
    if _CONTROL.search(text) or _has_unprintable(text):
        raise InvalidInput("message", "`message` must not contain control characters")
    address = (email or "").strip() or None
    if address is not None and (len(address) > MAX_EMAIL_CHARS or not _EMAIL.match(address)):
        raise InvalidInput("email", "`email` is not an e-mail address")
    eco: Ecosystem | None = None
    if ecosystem:
        try:
            eco = Ecosystem(ecosystem.strip().lower())
        except ValueError:
            raise InvalidInput("ecosystem", "`ecosystem` is not a known ecosystem") from None
    name = (package or "").strip() or None
    if name is not None:
        if eco is None:
            raise InvalidInput("package", "`package` needs an ecosystem")
        if len(name) > MAX_PACKAGE_CHARS or _CONTROL.search(name) or not name.isprintable():
            raise InvalidInput("package", "`package` is not a package name")
    return ContactRequest(kind, text, address, eco, name, client, source)


def _has_unprintable(text: str) -> bool:
    """True when `text` has unprintable characters other than newline and tab (surrogates too)."""
    return any(not ch.isprintable() and ch not in "\n\t" for ch in text)
