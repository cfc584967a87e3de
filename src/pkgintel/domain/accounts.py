"""
Accounts, magic links, sessions and API keys: the pure parts (issue 30).

- `Principal`: who is calling, as the rate-limit layer sets it on every request's scope state.
- Credentials: API keys are `pk_live_` + 32 random bytes in base62; magic-link tokens and session
  ids are 32 random bytes, URL-safe. None of them is ever stored: the database keeps their SHA-256
  (`digest`) and, for keys, a short display prefix.
- The errors of the account endpoints, each with the HTTP status it answers with.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar, Literal

from pkgintel.domain.errors import InvalidInput, PkgIntelError

PrincipalKind = Literal["anonymous", "session", "key"]

KEY_PREFIX = "pk_live_"
KEY_DISPLAY_CHARS = len(KEY_PREFIX) + 6
"""Characters of a key kept for display (`pk_live_AbC123`): 6 base62 characters, 36 bits, so it
identifies the key to its owner without helping anyone guess the other 37."""
MAGIC_LINK_LIFETIME = timedelta(minutes=15)
SESSION_LIFETIME = timedelta(days=30)
SESSION_COOKIE = "pkgintel_session"
MAX_ACTIVE_KEYS = 20
MAX_KEY_NAME_CHARS = 64
MAX_EMAIL_CHARS = 254
MAX_CREDENTIAL_CHARS = 128

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_EMAIL = re.compile(
    r"^[^@\s<>\"',;()\[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)+$"
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_KEY = re.compile(r"^pk_live_[0-9A-Za-z]{20,60}$")


@dataclass(frozen=True, slots=True)
class Principal:
    """
    The caller of one request. `client_hash` is the keyed hash of the client address (the usage
    log's `client`), never the address; `account_id`/`key_id` are set for sessions and keys.
    """

    account_id: int | None
    key_id: int | None
    kind: PrincipalKind
    client_hash: str


def anonymous(client_hash: str) -> Principal:
    """A caller without credentials."""
    return Principal(None, None, "anonymous", client_hash)


def base62(data: bytes) -> str:
    """`data` as a big-endian base62 number, zero-padded so equal-length inputs give equal-length
    outputs (32 bytes → 43 characters)."""
    number = int.from_bytes(data, "big")
    width = -(-len(data) * 8 * 1000 // 5954)  # ceil(bits / log2(62)), log2(62) ≈ 5.954
    out = []
    while number:
        number, rest = divmod(number, 62)
        out.append(_BASE62[rest])
    return "".join(reversed(out)).rjust(width, "0")


def new_api_key() -> str:
    """A fresh API key: `pk_live_` + 32 random bytes in base62."""
    return KEY_PREFIX + base62(secrets.token_bytes(32))


def new_token() -> str:
    """A fresh magic-link token or session id: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def digest(secret: str) -> str:
    """SHA-256 of a token, session id or key, hex: what the database stores instead of it. A plain
    hash suffices: the secrets are 256-bit random values, so there is nothing to brute-force."""
    return hashlib.sha256(secret.encode()).hexdigest()


def display_prefix(key: str) -> str:
    """The part of a key kept for display."""
    return key[:KEY_DISPLAY_CHARS]


def is_api_key(value: str) -> bool:
    """Whether `value` has the shape of one of our keys (any other Bearer value, such as the admin
    token, is not an API key and is left to the route that reads it)."""
    return value.startswith(KEY_PREFIX)


def well_formed_key(value: str) -> bool:
    return bool(_KEY.match(value))


def well_formed_token(value: str) -> bool:
    return bool(_TOKEN.match(value))


def email_address(value: str) -> str:
    """The address, trimmed and with its domain lower-cased; `InvalidInput("email")` when it is not
    one. The local part keeps its case (RFC 5321), so `A@x.org` and `a@x.org` are two accounts."""
    text = value.strip()
    if len(text) > MAX_EMAIL_CHARS or _CONTROL.search(text) or not _EMAIL.match(text):
        raise InvalidInput("email", "`email` is not an e-mail address")
    local, _, domain = text.rpartition("@")
    return f"{local}@{domain.lower()}"


def key_name(value: str | None) -> str:
    """A key's label, trimmed; `InvalidInput("name")` when too long or with control characters."""
    text = (value or "").strip()
    if len(text) > MAX_KEY_NAME_CHARS or _CONTROL.search(text):
        raise InvalidInput(
            "name", f"`name` must be at most {MAX_KEY_NAME_CHARS} printable characters"
        )
    return text


def month_of(moment: datetime) -> str:
    """`YYYY-MM` of `moment` (UTC): the period of a key's monthly count."""
    return moment.strftime("%Y-%m")


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    email: str
    created_at: datetime
    last_login_at: datetime | None


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A key as its owner sees it (never the key itself, only its display prefix)."""

    id: int
    account_id: int
    name: str
    prefix: str
    created_at: datetime
    revoked_at: datetime | None
    last_used_at: datetime | None
    month: str | None
    month_count: int


@dataclass(frozen=True, slots=True)
class Session:
    id: int
    account_id: int
    created_at: datetime
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    id: int
    created_at: datetime
    recipient: str
    subject: str
    body: str


class AccountProblem(PkgIntelError):
    """An account endpoint's refusal, with its HTTP status and problem `kind`."""

    status = 400
    title = "Bad request"
    kind = "auth"
    headers: ClassVar[dict[str, str] | None] = None


class NotAuthenticated(AccountProblem):
    """No valid session or key (→ 401 with `WWW-Authenticate`)."""

    status = 401
    title = "Authentication required"
    kind = "not-authenticated"
    headers: ClassVar[dict[str, str] | None] = {"WWW-Authenticate": 'Bearer realm="pkgintel"'}


class InvalidKey(AccountProblem):
    """An API key that is malformed, unknown or revoked (→ 401)."""

    status = 401
    title = "Invalid API key"
    kind = "invalid-api-key"
    headers: ClassVar[dict[str, str] | None] = {
        "WWW-Authenticate": 'Bearer realm="pkgintel", error="invalid_token"'
    }


class InvalidMagicLink(AccountProblem):
    """A magic-link token that is unknown, used or expired (→ 400; which one is not said)."""

    status = 400
    title = "Invalid sign-in link"
    kind = "magic-link-invalid"


class SessionRequired(AccountProblem):
    """Creating and revoking keys needs a signed-in session, not a key (→ 403)."""

    status = 403
    title = "Session required"
    kind = "session-required"


class KeyNotFound(AccountProblem):
    """No active key of this id belongs to the caller's account (→ 404)."""

    status = 404
    title = "API key not found"
    kind = "api-key-not-found"


class TooManyKeys(AccountProblem):
    """The account already has `MAX_ACTIVE_KEYS` active keys (→ 409)."""

    status = 409
    title = "Too many API keys"
    kind = "too-many-api-keys"


def principal_of(scope: Mapping[str, Any]) -> Principal | None:
    """The request's principal, or None when nobody set one (read defensively: any other object
    stored under the key counts as none)."""
    state = scope.get("state")
    found = state.get("principal") if isinstance(state, Mapping) else None
    return found if isinstance(found, Principal) else None
