"""
GDPR endpoints: `GET /api/gdpr/export`, `POST /api/gdpr/delete`, `GET /api/gdpr/policy`. No
authentication: the caller is the keyed hash of the address the request comes from
(`ClientIdentity`), so a request reaches that hash's rows only. Answers from `application/privacy.py`.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import IdentityDep, RuntimeDep
from pkgintel.api.http import NO_STORE, cached_json, plain_json
from pkgintel.api.openapi import problem_responses
from pkgintel.application.privacy import (
    gdpr_delete_answer,
    gdpr_export_answer,
    gdpr_policy_answer,
)

router = APIRouter(prefix="/api/gdpr", tags=["privacy"])
POLICY_CACHE = "public, max-age=3600"


@router.get(
    "/export",
    summary="Every stored row linked to your address hash",
    responses=problem_responses(429, 503),
)
async def gdpr_export(runtime: RuntimeDep, identity: IdentityDep, request: Request) -> Response:
    """All rows stored under the keyed hash of your address (usage log, page views, anomaly
    reports, contact requests), as JSON."""
    return plain_json(
        await gdpr_export_answer(runtime, identity.key(request)), cache_control=NO_STORE
    )


@router.post(
    "/delete",
    summary="Erase every row linked to your address hash",
    responses=problem_responses(429, 503),
)
async def gdpr_delete(runtime: RuntimeDep, identity: IdentityDep, request: Request) -> Response:
    """Erase every row stored under the keyed hash of your address; answers how many."""
    return plain_json(
        await gdpr_delete_answer(runtime, identity.key(request)), cache_control=NO_STORE
    )


@router.get(
    "/policy", summary="What is stored, why, for how long", responses=problem_responses(503)
)
async def gdpr_policy(runtime: RuntimeDep, request: Request) -> Response:
    """Machine-readable privacy policy: data kept, purpose, retention, legal basis, the hash
    method and how to reach the operators."""
    return cached_json(request, gdpr_policy_answer(runtime), cache_control=POLICY_CACHE)
