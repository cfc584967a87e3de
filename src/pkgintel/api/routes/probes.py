"""
Probes with status codes, for load balancers and orchestrators (`docs/operations.md`):
`/livez` (200 while the process answers) and `/readyz` (200 when this worker should take traffic,
else 503 naming what is not ready). `/api/health` keeps the specification's always-200 shape.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.errors import problem
from pkgintel.api.http import NO_STORE, plain_json
from pkgintel.services.operations.readiness import WarmState, readiness

router = APIRouter(tags=["service"])


def warm_state(request: Request) -> WarmState:
    """The app's warm-up state (`create_app` sets it; an app without one counts as warm)."""
    state = getattr(request.app.state, "warm", None)
    return state if isinstance(state, WarmState) else WarmState(warm=True)


@router.get("/livez", summary="Liveness probe")
async def livez() -> Response:
    """200 while the process answers; checks nothing else (restarting cannot fix a database)."""
    return plain_json({"live": True}, cache_control=NO_STORE)


@router.get(
    "/readyz",
    summary="Readiness probe",
    responses={503: {"description": "Not ready: the body names each check that failed."}},
)
async def readyz(request: Request, runtime: RuntimeDep) -> Response:
    """200 when the database answers and this worker is warm; else 503 with `Retry-After`,
    `checks` naming what is not ready."""
    answer = await readiness(runtime.status.database, warm_state(request))
    if answer.ready:
        return plain_json(answer.body(), cache_control=NO_STORE)
    return problem(
        503,
        "Not ready",
        "not ready: " + ", ".join(answer.not_ready),
        kind="not-ready",
        headers={"Retry-After": str(answer.retry_after), "Cache-Control": NO_STORE},
        **answer.body(),
    )
