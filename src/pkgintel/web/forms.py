"""
Reading a state-changing form post: size-limited, and refused with a 403 problem unless it carries
the CSRF token of its cookie (`web.security`). The form is parsed only to find the token; nothing
the form asks for runs before the check passes.
"""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import FormData
from starlette.formparsers import MultiPartException

from pkgintel.web.render import problem_json
from pkgintel.web.security import CSRF_FIELD, csrf_valid

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


async def checked_form(
    request: Request, *, max_bytes: int, files: bool = False
) -> FormData | Response:
    """The posted form, or the response refusing it: 413 over `max_bytes`, 415 for a body that is
    not a form, 400 for a malformed one (or one with a file where `files` is False), 403
    (problem+json) without a matching CSRF token. The caller closes a form that may hold a file."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        return problem_json(
            413, "Body too large", f"forms take at most {max_bytes} bytes", "too-large"
        )
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in FORM_TYPES:
        return problem_json(415, "Unsupported media type", "post the page's form", "unsupported")
    try:
        form = await request.form(
            max_files=1 if files else 0, max_fields=20, max_part_size=max_bytes
        )
    except (MultiPartException, ValueError) as exc:
        return problem_json(400, "Bad request", f"the form cannot be read: {exc}", "bad-form")
    if not csrf_valid(request, form.get(CSRF_FIELD)):
        await form.close()
        return problem_json(
            403,
            "Forbidden",
            "the form's CSRF token is missing or does not match its cookie: reload the page and "
            "submit it again",
            "csrf-rejected",
        )
    return form
