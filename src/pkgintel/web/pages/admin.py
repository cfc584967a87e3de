"""
The admin console, `/admin`: cron jobs (list, run now), missions with their live event stream,
proposals to decide, curator status and switch.

Closed exactly like the admin API, by the same check (`check_admin_credential`): without
`PKGINTEL_ADMIN_TOKEN` every `/admin` path answers the admin API's 404 of a closed surface; without the token, 401 and a form to give it; with a wrong one, 403. The token given in the
form is kept in the `pkgintel_admin` cookie (HttpOnly, SameSite=Strict, path `/admin`) and checked
again on every request. Every action is a CSRF-checked POST and is written to the admin audit log.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response
from sse_starlette import EventSourceResponse, ServerSentEvent

from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.operations.ops import AdminAccessDenied
from pkgintel.services.operations.admin_access import (
    admin_surface_open,
    check_admin_credential,
)
from pkgintel.services.operations.missions import mission_wire
from pkgintel.services.operations.ops import Ops
from pkgintel.services.operations.proposals import proposal_wire
from pkgintel.web.answers import Problem, problem_for
from pkgintel.web.forms import checked_form
from pkgintel.web.pages.common import runtime_of
from pkgintel.web.render import error_page, render
from pkgintel.web.security import is_https, secure

router = APIRouter(include_in_schema=False)

ADMIN_COOKIE = "pkgintel_admin"
ACTOR = "admin-token (web console)"
MAX_FORM_BYTES = 16 * 1024


def _denied(request: Request, exc: AdminAccessDenied) -> Response:
    """The 401/403 page with the token form; a closed surface (404) is re-raised, so the app
    answers it with the admin API's own answer for a closed surface."""
    if exc.status == 404:
        raise exc
    title = "Admin token needed" if exc.status == 401 else "Forbidden"
    return render(
        request,
        "admin_login.html",
        {"title": title, "detail": exc.message},
        status=exc.status,
        headers={"WWW-Authenticate": 'Bearer realm="pkgintel-admin"'}
        if exc.status == 401
        else None,
    )


def _ops(request: Request) -> Ops:
    """The admin services for this request's cookie; raises `AdminAccessDenied` (404/401/403)."""
    return check_admin_credential(runtime_of(request).ops, request.cookies.get(ADMIN_COOKIE))


async def _audit(ops: Ops, request: Request, status: int, detail: str | None = None) -> None:
    await ops.store.audit(
        actor=ACTOR,
        method=request.method,
        path=request.url.path,
        status=status,
        detail=detail,
        now=datetime.now(UTC),
    )


@router.get("/admin")
async def console(request: Request) -> Response:
    try:
        ops = _ops(request)
    except AdminAccessDenied as exc:
        return _denied(request, exc)
    cron = await ops.cron.list()
    missions = [mission_wire(m) for m in await ops.missions.list(status=None, limit=20)]
    proposals = [proposal_wire(p) for p in await ops.proposals.list(status="pending", limit=50)]
    curator = await ops.curator.status()
    return render(
        request,
        "admin.html",
        {
            "title": "Admin console",
            "cron": cron,
            "missions": missions,
            "proposals": proposals,
            "curator": curator,
        },
    )


@router.post("/admin/login")
async def login(request: Request) -> Response:
    if not admin_surface_open(runtime_of(request).ops):
        raise AdminAccessDenied(404, "not found")
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    token = str(form.get("token") or "")
    try:
        ops = check_admin_credential(runtime_of(request).ops, token)
    except AdminAccessDenied as exc:
        return _denied(request, exc)
    await _audit(ops, request, 303, "signed in to the web console")
    response = RedirectResponse("/admin", status_code=303)
    response.set_cookie(
        ADMIN_COOKIE,
        token.strip(),
        httponly=True,
        samesite="strict",
        secure=is_https(request),
        path="/admin",
    )
    return secure(response)


@router.post("/admin/logout")
async def logout(request: Request) -> Response:
    if not admin_surface_open(runtime_of(request).ops):
        raise AdminAccessDenied(404, "not found")
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    response = RedirectResponse("/admin", status_code=303)
    response.delete_cookie(ADMIN_COOKIE, path="/admin", httponly=True, samesite="strict")
    return secure(response)


async def _action(request: Request, what: str, run: Any) -> Response:
    """A console action: access and CSRF checked, `run(ops, form)` awaited, audited, back to the
    console (or the problem's page when the operation refuses)."""
    try:
        ops = _ops(request)
    except AdminAccessDenied as exc:
        return _denied(request, exc)
    form = await checked_form(request, max_bytes=MAX_FORM_BYTES)
    if isinstance(form, Response):
        return form
    try:
        await run(ops, form)
    except PkgIntelError as exc:
        problem: Problem = problem_for(exc)
        await _audit(ops, request, problem.status, f"{what}: {problem.detail}"[:500])
        return error_page(request, problem)
    await _audit(ops, request, 303, what)
    return secure(RedirectResponse("/admin", status_code=303))


@router.post("/admin/cron/{slug}/run")
async def cron_run(request: Request, slug: str) -> Response:
    async def run(ops: Ops, form: Any) -> None:
        await ops.cron.run(slug[:64])

    return await _action(request, f"run cron job {slug[:64]}", run)


@router.post("/admin/proposals/{proposal_id}/decide")
async def decide(request: Request, proposal_id: str) -> Response:
    async def run(ops: Ops, form: Any) -> None:
        decision = str(form.get("decision") or "")
        reason = str(form.get("reason") or decision)[:2000]
        if decision == "revert":
            await ops.proposals.revert(proposal_id[:64], actor="admin")
        elif decision in ("approve", "reject"):
            await ops.proposals.decide(
                proposal_id[:64], approve=decision == "approve", reason=reason, actor="admin"
            )
        else:
            raise InvalidInput("decision", "a decision is approve, reject or revert")

    return await _action(request, f"decide proposal {proposal_id[:64]}", run)


@router.post("/admin/curator/toggle")
async def curator_toggle(request: Request) -> Response:
    async def run(ops: Ops, form: Any) -> None:
        await ops.curator.toggle(None)

    return await _action(request, "toggle the curator", run)


@router.get("/admin/missions/{mission_id}")
async def mission(request: Request, mission_id: str) -> Response:
    try:
        ops = _ops(request)
        found = mission_wire(await ops.missions.get(mission_id[:64]))
    except AdminAccessDenied as exc:
        return _denied(request, exc)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    return render(request, "admin_mission.html", {"title": "Mission", "mission": found})


@router.get("/admin/missions/{mission_id}/stream")
async def mission_stream(request: Request, mission_id: str) -> Response:
    """The mission's events (`status`, `log`, `proposal`, `done`) for the console's script; the
    admin API's stream, authenticated by the console's cookie (EventSource sends no header)."""
    try:
        ops = _ops(request)
        await ops.missions.get(mission_id[:64])
    except AdminAccessDenied as exc:
        return _denied(request, exc)
    except PkgIntelError as exc:
        return error_page(request, problem_for(exc))
    raw = request.headers.get("last-event-id") or "0"
    after = int(raw) if raw.isdigit() and len(raw) < 18 else 0

    async def events() -> Any:
        async for event in ops.missions.stream(mission_id[:64], after=after):
            yield ServerSentEvent(
                data=orjson.dumps(event.data).decode(), event=event.kind, id=str(event.id)
            )

    return EventSourceResponse(events(), ping=15, headers={"Cache-Control": "no-store"})
