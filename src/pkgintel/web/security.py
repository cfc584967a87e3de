"""
What every web page carries for its safety: the security headers, and the CSRF token that every
state-changing form posts back.

CSRF is a double-submit token: a random value in the `pkgintel_csrf` cookie (HttpOnly,
SameSite=Strict) and the same value in each form's hidden `csrf_token` field. A POST whose field is
missing or differs from the cookie is refused with a 403 problem before anything is read or changed:
another site can make a browser send the cookie, never read it to fill the field.
"""

from __future__ import annotations

import hmac
import secrets

from fastapi import Request
from fastapi.responses import Response

CSRF_COOKIE = "pkgintel_csrf"
CSRF_FIELD = "csrf_token"
_TOKEN_BYTES = 32

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


def is_https(request: Request) -> bool:
    """Whether the page was asked for over HTTPS (so its cookies are marked Secure)."""
    return request.url.scheme == "https"


def csrf_token(request: Request) -> tuple[str, bool]:
    """The request's CSRF token and whether it is new (then the response must set the cookie)."""
    current = request.cookies.get(CSRF_COOKIE, "")
    if 40 <= len(current) <= 64 and current.replace("-", "").replace("_", "").isalnum():
        return current, False
    return secrets.token_urlsafe(_TOKEN_BYTES), True


def set_csrf_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        CSRF_COOKIE,
        token,
        httponly=True,
        samesite="strict",
        secure=is_https(request),
        path="/",
    )


def csrf_valid(request: Request, submitted: object) -> bool:
    """Whether the form field `submitted` matches the request's CSRF cookie (constant time)."""
    cookie = request.cookies.get(CSRF_COOKIE)
    if not cookie or not isinstance(submitted, str) or not submitted:
        return False
    return hmac.compare_digest(cookie.encode(), submitted.encode())


def secure(response: Response) -> Response:
    """`response` with the security headers of every web page."""
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response
