"""
Admin API (`/api/admin/*`): missions, proposals, curator, cron, jobs, agents-by-range, contact
requests, audit, doctor.

Closed by default: without `PKGINTEL_ADMIN_TOKEN` every path answers 404 exactly like a path that
does not exist. With it, requests need `Authorization: Bearer <token>` (401 without, 403 wrong;
compared in constant time). Every answered request is written to the audit log by
`AdminAuditMiddleware` (who, method, path, status, when).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal
from uuid import UUID

import orjson
from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, Field
from sse_starlette import EventSourceResponse, ServerSentEvent

from pkgintel.api.errors import problem
from pkgintel.api.http import plain_json
from pkgintel.application.answer import NO_STORE
from pkgintel.application.contact import contact_service, contact_wire
from pkgintel.application.jobs import job_wire
from pkgintel.domain.operations.contact import ContactType
from pkgintel.domain.operations.ops import AdminAccessDenied, OpsNotFound, OpsUnavailable
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.admin_access import admin_surface_open, check_admin_credential
from pkgintel.services.operations.agents_by_range import BUCKETS, MAX_BUCKETS
from pkgintel.services.operations.missions import mission_wire
from pkgintel.services.operations.ops import Ops
from pkgintel.services.operations.proposals import proposal_wire

_PROBLEM: dict[str, Any] = {"content": {"application/problem+json": {}}}
RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"description": "No `Authorization: Bearer` credential", **_PROBLEM},
    403: {"description": "Wrong admin credential", **_PROBLEM},
    404: {
        "description": "Admin API closed (no admin token configured: the plain JSON body of an "
        "absent path), or an unknown id (problem+json)",
        "content": {"application/json": {}, "application/problem+json": {}},
    },
}
CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"description": "Illegal status change or cannot run now", **_PROBLEM}
}
ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {"description": "Accepted: runs in the background"}
}


def admin_open(request: Request) -> bool:
    """Whether this instance serves the admin API (`PKGINTEL_ADMIN_TOKEN` set); closed, every
    admin path answers 404 and discovery documents leave them out."""
    runtime: Runtime = request.app.state.runtime
    return admin_surface_open(runtime.ops)


async def require_admin(request: Request) -> Ops:
    """The `Ops` services for an authenticated admin request; see the module docstring."""
    runtime: Runtime = request.app.state.runtime
    if not admin_surface_open(runtime.ops):
        raise AdminAccessDenied(404, "not found")
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        request.state.admin_actor = "anonymous"
        raise AdminAccessDenied(401, "the admin API needs `Authorization: Bearer <admin token>`")
    try:
        ops = check_admin_credential(runtime.ops, given)
    except AdminAccessDenied:
        request.state.admin_actor = "wrong-token"
        raise
    request.state.admin_actor = "admin-token"
    return ops


OpsDep = Annotated[Ops, Depends(require_admin)]
router = APIRouter(prefix="/api/admin", tags=["admin"], responses=RESPONSES)

MissionId = Annotated[UUID, Path(description="Mission id (UUID).")]
ProposalId = Annotated[UUID, Path(description="Proposal id (UUID).")]
Limit50 = Annotated[int, Query(ge=1, le=1000)]
StatusQ = Annotated[str | None, Query(max_length=16, pattern=r"^[a-z]+$")]


def _json(body: Any, status: int = 200) -> Response:
    resp = plain_json(body, cache_control=NO_STORE)
    resp.status_code = status
    return resp


# -- missions -------------------------------------------------------------------------------


class MissionIn(BaseModel):
    profile: str = Field(min_length=1, max_length=64, description="A name from /missions/profiles.")
    params: dict[str, Any] = Field(default_factory=dict, description="The profile's params.")


class FlagIn(BaseModel):
    profile: str = Field(min_length=1, max_length=64)
    enabled: bool


class DecisionIn(BaseModel):
    decision: Literal["approve", "reject", "revert"]
    reason: str = Field("", max_length=2000)


class LaunchIn(BaseModel):
    reason: str = Field("launched by an admin", max_length=2000)


class IntervalIn(BaseModel):
    seconds: int = Field(ge=10, le=7 * 86400)


class ToggleIn(BaseModel):
    enabled: bool | None = Field(None, description="Omit to flip the current state.")


@router.get("/missions", summary="List missions")
async def list_missions(ops: OpsDep, limit: Limit50 = 50, status: StatusQ = None) -> Response:
    missions = await ops.missions.list(status=status, limit=limit)
    return _json({"count": len(missions), "missions": [mission_wire(m) for m in missions]})


@router.post("/missions", summary="Create a mission (draft)", status_code=201)
async def create_mission(ops: OpsDep, body: MissionIn) -> Response:
    m = await ops.missions.create(body.profile, body.params)
    return _json(mission_wire(m), 201)


@router.get("/missions/profiles", summary="Mission profiles")
async def profiles(ops: OpsDep) -> Response:
    return _json({"profiles": await ops.missions.list_profiles()})


@router.get("/missions/prompts", summary="Prompt files")
async def prompts(ops: OpsDep) -> Response:
    items = [
        {
            "name": name,
            "bytes": len(text.encode()),
            "first_line": text.splitlines()[0] if text else "",
        }
        for name, text in sorted(ops.missions.prompts.items())
    ]
    return _json({"prompts": items})


@router.get(
    "/missions/prompts/{name}/raw", summary="One prompt file, raw", response_class=PlainTextResponse
)
async def prompt_raw(
    ops: OpsDep, name: Annotated[str, Path(max_length=64, pattern=r"^[a-z0-9-]+$")]
) -> Response:
    return PlainTextResponse(ops.missions.prompt(name), headers={"Cache-Control": NO_STORE})


@router.get("/missions/budget", summary="Mission budget: spend and caps")
async def budget(ops: OpsDep) -> Response:
    return _json(await ops.missions.budget.state())


@router.post("/missions/flags", summary="Switch a profile on or off")
async def flags(ops: OpsDep, body: FlagIn) -> Response:
    return _json({"flags": await ops.missions.set_flag(body.profile, body.enabled)})


@router.get("/missions/proposals/list", summary="List proposals")
async def list_proposals(
    ops: OpsDep, status: StatusQ = None, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> Response:
    items = await ops.proposals.list(status=status, limit=limit)
    return _json({"count": len(items), "proposals": [proposal_wire(p) for p in items]})


@router.post(
    "/missions/proposals/{proposal_id}/decide",
    summary="Approve, reject or revert",
    responses=CONFLICT,
)
async def decide(ops: OpsDep, proposal_id: ProposalId, body: DecisionIn) -> Response:
    pid = str(proposal_id)
    if body.decision == "revert":
        p = await ops.proposals.revert(pid, actor="admin")
    else:
        p = await ops.proposals.decide(
            pid,
            approve=body.decision == "approve",
            reason=body.reason or body.decision,
            actor="admin",
        )
    return _json(proposal_wire(p))


@router.post(
    "/missions/proposals/{proposal_id}/launch",
    summary="Approve and queue a builder mission",
    status_code=202,
    responses={**CONFLICT, **ACCEPTED},
)
async def launch(
    ops: OpsDep, proposal_id: ProposalId, body: Annotated[LaunchIn | None, Body()] = None
) -> Response:
    p, m = await ops.missions.launch(
        str(proposal_id), actor="admin", reason=(body or LaunchIn()).reason
    )
    return _json({"proposal": proposal_wire(p), "mission": mission_wire(m)}, 202)


@router.get("/missions/{mission_id}", summary="One mission")
async def get_mission(ops: OpsDep, mission_id: MissionId) -> Response:
    return _json(mission_wire(await ops.missions.get(str(mission_id))))


@router.get(
    "/missions/{mission_id}/stream",
    summary="Mission events (SSE: status, log, proposal, done; resumable with Last-Event-ID)",
    response_class=EventSourceResponse,
)
async def stream(
    ops: OpsDep,
    mission_id: MissionId,
    last_event_id: Annotated[str | None, Query(include_in_schema=False)] = None,
    request: Request = None,  # type: ignore[assignment]
) -> EventSourceResponse:
    raw = request.headers.get("last-event-id") or last_event_id or "0"
    after = int(raw) if raw.isdigit() and len(raw) < 18 else 0
    await ops.missions.get(str(mission_id))

    async def events() -> Any:
        async for event in ops.missions.stream(str(mission_id), after=after):
            yield ServerSentEvent(
                data=orjson.dumps(event.data).decode(), event=event.kind, id=str(event.id)
            )

    return EventSourceResponse(events(), ping=15, headers={"Cache-Control": NO_STORE})


@router.post(
    "/missions/{mission_id}/run",
    summary="Queue a draft mission",
    status_code=202,
    responses={**CONFLICT, **ACCEPTED},
)
async def run_mission(ops: OpsDep, mission_id: MissionId) -> Response:
    return _json(mission_wire(await ops.missions.run(str(mission_id))), 202)


@router.post(
    "/missions/{mission_id}/kill", summary="Kill a mission", responses={**CONFLICT, **ACCEPTED}
)
async def kill_mission(ops: OpsDep, mission_id: MissionId) -> Response:
    m = await ops.missions.kill(str(mission_id))
    return _json(mission_wire(m), 200 if m.status.value == "killed" else 202)


# -- curator --------------------------------------------------------------------------------


@router.get("/curator/status", summary="Curator state")
async def curator_status(ops: OpsDep) -> Response:
    return _json(await ops.curator.status())


@router.post("/curator/toggle", summary="Switch the curator on or off")
async def curator_toggle(ops: OpsDep, body: Annotated[ToggleIn | None, Body()] = None) -> Response:
    return _json(await ops.curator.toggle((body or ToggleIn()).enabled))


@router.post("/curator/interval", summary="Set the curator interval")
async def curator_interval(ops: OpsDep, body: IntervalIn) -> Response:
    return _json(await ops.curator.set_interval(body.seconds))


@router.post("/curator/trigger", summary="Run the curator now", status_code=202, responses=ACCEPTED)
async def curator_trigger(ops: OpsDep) -> Response:
    return _json({"job_id": await ops.curator.trigger(), "status": "queued"}, 202)


@router.get("/curator/decisions", summary="Curator decisions, newest first")
async def curator_decisions(ops: OpsDep, limit: Limit50 = 50) -> Response:
    return _json({"decisions": await ops.curator.decisions(limit)})


# -- cron and jobs --------------------------------------------------------------------------

Slug = Annotated[str, Path(max_length=64, pattern=r"^[a-z0-9-]+$")]


@router.get("/cron/list", summary="Scheduled jobs")
async def cron_list(ops: OpsDep) -> Response:
    return _json({"jobs": await ops.cron.list()})


@router.get("/cron/log/{slug}", summary="Tail of a cron job's newest run")
async def cron_log(
    ops: OpsDep, slug: Slug, lines: Annotated[int, Query(ge=1, le=5000)] = 50
) -> Response:
    return _json(await ops.cron.log(slug, lines))


@router.post(
    "/cron/run/{slug}",
    summary="Run a cron job now",
    status_code=202,
    responses={
        **ACCEPTED,
        409: {"description": "That job is already running, or queued to run next", **_PROBLEM},
    },
)
async def cron_run(ops: OpsDep, slug: Slug) -> Response:
    """Queue a run of `slug`. 409 (naming the job) when it is already running or queued and due;
    when another job of its exclusivity group is running it waits behind it (`waiting_for`)."""
    job = await ops.cron.run(slug)
    blocker = await ops.queue.blocker(job)
    return _json(
        {
            "job_id": job.id,
            "slug": slug,
            "status": job.status.value,
            "waiting_for": {"job_id": blocker.id, "kind": blocker.kind} if blocker else None,
        },
        202,
    )


@router.get("/jobs", summary="Jobs, newest first")
async def list_jobs(
    ops: OpsDep,
    status: StatusQ = None,
    kind: Annotated[str | None, Query(max_length=64)] = None,
    limit: Limit50 = 50,
) -> Response:
    jobs = await ops.queue.list(status=status, kind=kind, limit=limit)
    return _json({"counts": await ops.queue.counts(), "jobs": [job_wire(j) for j in jobs]})


JobId = Annotated[str, Path(max_length=36, pattern=r"^[0-9a-f-]+$")]


@router.get("/jobs/{job_id}", summary="One job with its log tail")
async def get_job(
    ops: OpsDep, job_id: JobId, lines: Annotated[int, Query(ge=1, le=5000)] = 50
) -> Response:
    job = await ops.queue.get(job_id)
    log = await ops.queue.log_tail(job_id, lines)
    return _json(
        {
            **job_wire(job),
            "log": [f"{e.created_at.isoformat()} {e.data.get('line', '')}" for e in log],
        }
    )


@router.post("/jobs/{job_id}/kill", summary="Kill a job")
async def kill_job(ops: OpsDep, job_id: JobId) -> Response:
    return _json(job_wire(await ops.queue.kill(job_id)))


# -- agents and audit -----------------------------------------------------------------------


@router.get(
    "/agents-by-range",
    summary="Calls per user-agent class per time bucket",
    responses={503: {"description": "No call log in this installation", **_PROBLEM}},
)
async def agents_by_range(
    ops: OpsDep,
    since: datetime | None = None,
    until: datetime | None = None,
    bucket: Literal["hour", "day", "week"] = "day",
) -> Response:
    def aware(value: datetime) -> datetime:
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)

    try:
        end = aware(until) if until is not None else datetime.now(UTC)
        start = aware(since) if since is not None else end - timedelta(days=7)
    except (OverflowError, ValueError):
        return problem(422, "Bad range", "`since`/`until` out of range", kind="bad-range")
    if start >= end:
        return problem(422, "Bad range", "`since` must be before `until`", kind="bad-range")
    if (end - start) / BUCKETS[bucket] > MAX_BUCKETS:
        return problem(422, "Range too long", f"at most {MAX_BUCKETS} buckets", kind="bad-range")
    try:
        return _json(await ops.agents.report(start, end, bucket))
    except OpsUnavailable as exc:
        return problem(503, "Call log unavailable", exc.message, kind="no-call-log")


@router.get(
    "/contact",
    summary="Contact requests, newest first",
    responses={503: {"description": "No contact requests in this installation", **_PROBLEM}},
)
async def contact_requests(
    ops: OpsDep,
    request: Request,
    limit: Limit50 = 50,
    type: Annotated[ContactType | None, Query(description="Only this request type.")] = None,
) -> Response:
    runtime: Runtime = request.app.state.runtime
    service = contact_service(runtime)
    rows = await service.newest(limit=limit, type=type)
    return _json(
        {
            "requests": [
                {
                    **contact_wire(row, service.retention_days),
                    "message": row.request.message,
                    "email": row.request.email,
                    "client": row.request.client,
                    "source": row.request.source,
                }
                for row in rows
            ]
        }
    )


@router.get(
    "/doctor",
    summary="Installation check: configuration, database, cache, upstreams, data ages, jobs",
    responses={503: {"description": "No doctor in this installation", **_PROBLEM}},
)
async def doctor(ops: OpsDep, request: Request) -> Response:
    """
    What `pkgintel doctor --format json` prints, for this server's settings: each check's `status`
    (`ok`, `info`, `warn`, `fail`), `detail`, `fix` and, for requests, `elapsed_ms`; `healthy` is
    false when any check fails. Always 200 when it ran (the body says how healthy); it takes up to
    the upstream probe timeout (5 s at most by default).
    """
    runtime: Runtime = request.app.state.runtime
    if runtime.doctor is None:
        return problem(503, "Doctor unavailable", "no doctor is wired", kind="no-doctor")
    return _json((await runtime.doctor.run()).wire())


@router.get("/audit", summary="Admin audit log, newest first")
async def audit_log(ops: OpsDep, limit: Limit50 = 100) -> Response:
    return _json({"entries": await ops.store.audit_log(limit)})


__all__ = ["OpsNotFound", "router"]
