"""
The account pages of issue 30, mounted only when accounts exist (`web.answers.accounts_answers`
and `runtime.accounts`): `/login` (request a magic link), `/dashboard` (the account, its limits,
its usage chart, its API keys: create — the key is shown on that one page only —, list, revoke),
`/logout`. The link in the mail is the API's `GET /api/auth/verify`, which sets the session cookie
and redirects here. Closed like the account API: without a live session `/dashboard` sends the
browser to `/login`; keys are managed only with a session, by CSRF-checked forms.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from starlette.exceptions import HTTPException

from pkgintel.domain.accounts import SESSION_COOKIE
from pkgintel.domain.errors import PkgIntelError
from pkgintel.web.answers import accounts_answers, problem_for
from pkgintel.web.charts import usage_bars_svg
from pkgintel.web.forms import checked_form
from pkgintel.web.pages.common import runtime_of
from pkgintel.web.render import error_page, render
from pkgintel.web.security import secure

router = APIRouter(include_in_schema=False)

MAX_FORM_BYTES = 8 * 1024


def accounts_available(runtime: Any) -> bool:
    """Whether this installation has accounts: their answers and the runtime's capability."""
    return accounts_answers is not None and getattr(runtime, "accounts", None) is not None


def _accounts(request: Request) -> Any:
    return getattr(runtime_of(request), "accounts", None)


def _closed() -> Response:
    """This installation has no accounts: the app's answer for a path that does not exist."""
    raise HTTPException(status_code=404)


async def _principal(request: Request) -> Any:
    """The caller: the principal the rate-limit layer set, else the session cookie's."""
    found = request.scope.get("state", {}).get("principal")
    if found is not None and getattr(found, "kind", None) == "session":
        return found
    identity = request.app.state.identity
    return await _accounts(request).principal(
        identity.key(request), key=None, session=request.cookies.get(SESSION_COOKIE)
    )


def _to(path: str) -> Response:
    return secure(RedirectResponse(path, status_code=303, headers={"Cache-Control": "no-store"}))


@router.get("/login")
async def login_form(request: Request) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    return render(request, "login.html", {"title": "Sign in", "sent": None})


@router.post("/login")
async def login_request(request: Request) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    assert accounts_answers is not None
    email = str(form.get("email") or "").strip()
    try:
        sent = await accounts_answers.magic_link_request_answer(_accounts(request), email)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    return render(request, "login.html", {"title": "Check your mail", "sent": sent}, status=202)


async def _dashboard(request: Request, new_key: dict[str, Any] | None = None) -> Response:
    assert accounts_answers is not None
    principal = await _principal(request)
    if getattr(principal, "kind", None) != "session":
        return _to("/login")
    accounts = _accounts(request)
    try:
        me = await accounts_answers.me_answer(accounts, principal)
        keys = await accounts_answers.keys_answer(accounts, principal)
        usage = await accounts_answers.usage_answer(accounts, principal, datetime.now(UTC))
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    return render(
        request,
        "dashboard.html",
        {
            "title": "Dashboard",
            "me": me,
            "keys": keys,
            "usage": usage,
            "chart": usage_bars_svg(usage.get("calls") or []),
            "new_key": new_key,
        },
        status=201 if new_key else 200,
        headers={"Cache-Control": "no-store"},
    )


@router.get("/dashboard")
async def dashboard(request: Request) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    return await _dashboard(request)


@router.post("/dashboard/keys")
async def create_key(request: Request) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    assert accounts_answers is not None
    principal = await _principal(request)
    if getattr(principal, "kind", None) != "session":
        return _to("/login")
    name = str(form.get("name") or "").strip() or None
    try:
        created = await accounts_answers.create_key_answer(_accounts(request), principal, name)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    return await _dashboard(request, new_key=created)


@router.post("/dashboard/keys/{key_id}/revoke")
async def revoke_key(request: Request, key_id: int) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    assert accounts_answers is not None
    principal = await _principal(request)
    if getattr(principal, "kind", None) != "session":
        return _to("/login")
    try:
        await accounts_answers.revoke_key_answer(_accounts(request), principal, key_id)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    return _to("/dashboard")


@router.post("/logout")
async def logout(request: Request) -> Response:
    if not accounts_available(runtime_of(request)):
        return _closed()
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    assert accounts_answers is not None
    # Without a live session there is nothing to revoke: the browser ends signed out either way.
    with contextlib.suppress(PkgIntelError):
        await accounts_answers.logout_answer(
            _accounts(request), request.cookies.get(SESSION_COOKIE)
        )
    response = _to("/")
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response
