"""
The one admin credential check, shared by every door that opens the admin surface (the JSON API's
`Authorization: Bearer`, the web console's cookie).

Closed by default: without `PKGINTEL_ADMIN_TOKEN` the surface does not exist (404). With it, a
missing credential is 401 and a wrong one 403; the comparison is of SHA-256 digests in constant
time, so neither the token's length nor its content leaks through timing.
"""

from __future__ import annotations

import hashlib
import hmac

from pkgintel.domain.operations.ops import AdminAccessDenied
from pkgintel.services.operations.ops import Ops


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).digest()


def admin_surface_open(ops: Ops | None) -> bool:
    """Whether this instance serves an admin surface at all (`PKGINTEL_ADMIN_TOKEN` set)."""
    return ops is not None and bool(ops.admin_token)


def check_admin_credential(ops: Ops | None, given: str | None) -> Ops:
    """
    `ops` when `given` is the admin token. Raises `AdminAccessDenied` with status 404 (surface
    closed), 401 (`given` empty or None) or 403 (`given` is not the token).
    """
    if ops is None or not ops.admin_token:
        raise AdminAccessDenied(404, "not found")
    if given is None or not given.strip():
        raise AdminAccessDenied(401, "the admin surface needs the admin token")
    if not hmac.compare_digest(_digest(given.strip()), _digest(ops.admin_token)):
        raise AdminAccessDenied(403, "this credential is not the admin token")
    return ops
