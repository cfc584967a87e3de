"""
Who a request acts for, as the front doors see it (pure).

`Principal` is set on each request's scope (`scope["state"]["principal"]`) by the authentication
layer: an account (session cookie), an API key, or an anonymous client. Readers treat it as
optional: a request without one is anonymous.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of one request: `kind` (`anonymous`, `session`, `key`), the account and key ids
    when known, and `client_hash` (the keyed hash of the caller's address, never the address)."""

    account_id: int | None
    key_id: int | None
    kind: str
    client_hash: str


def principal_of(scope: Mapping[str, Any]) -> Principal | None:
    """The request's principal, or None when nobody set one (read defensively: any other object
    stored under the key counts as none)."""
    state = scope.get("state")
    found = state.get("principal") if isinstance(state, Mapping) else None
    return found if isinstance(found, Principal) else None
