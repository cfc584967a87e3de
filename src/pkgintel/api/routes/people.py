"""
People-and-project endpoints: maintainers, maintainer trust, quality. Thin: validate, call one
service, shape the answer (`schemas/people.py`). Each `*_answer` function is shared with MCP tools.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep
from pkgintel.api.http import cached_json
from pkgintel.application.answer import Answer
from pkgintel.application.schemas.people import (
    MaintainersOut,
    QualityOut,
    TrustOut,
)
from pkgintel.application.signals import (
    maintainers_answer,
    quality_answer,
    trust_answer,
)
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["supply-chain"])

NOT_FOUND = {"description": "Unknown package (problem+json with did_you_mean)"}
REGISTRY_DOWN = {"description": "Registry down and nothing cached (problem+json, Retry-After)"}


class Platform(StrEnum):
    """Account platforms maintainer trust is computed for."""

    GITHUB = "github"


Username = Annotated[
    str, Path(min_length=1, max_length=39, description="GitHub login", examples=["sindresorhus"])
]


def _send(request: Request, answer: Answer) -> Response:
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/maintainers/{ecosystem}/{package:path}",
    response_model=MaintainersOut,
    summary="Maintainers, bus factor, ownership changes",
    responses={404: NOT_FOUND, 503: REGISTRY_DOWN},
)
async def maintainers(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Who can publish the package and who published each release: count, bus factor, dominance,
    first-seen times, ownership changes between releases and alerts (a new publisher on the latest
    release, a sole maintainer, an account newer than the package)."""
    return _send(request, await maintainers_answer(runtime, ecosystem, package))


@router.get(
    "/maintainer/trust/{platform}/{username}",
    response_model=TrustOut,
    summary="Trust score of a maintainer account",
    responses={404: {"description": "No such account (problem+json)"}},
)
async def maintainer_trust(
    request: Request, platform: Platform, username: Username, runtime: RuntimeDep
) -> Response:
    """Trust 0-100 of a GitHub account with its breakdown (account age, followers, public
    repositories, its most popular repository, organisation memberships, recent activity). GitHub
    down or rate-limited: 200 with `available: false` and the reason."""
    return _send(request, await trust_answer(runtime, platform.value, username))


@router.get(
    "/quality/{ecosystem}/{package:path}",
    response_model=QualityOut,
    summary="Quality signals (criticality inputs, download trend, publish security)",
    responses={404: NOT_FOUND, 503: REGISTRY_DOWN},
)
async def quality(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """OpenSSF criticality-score inputs we can compute (age, release frequency, publishers,
    dependents from deps.dev, repository facts), the download trend, and publish-security signals
    (trusted publishing, MFA required) where the registry says; unknown parts are null with reasons."""
    return _send(request, await quality_answer(runtime, ecosystem, package))
