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
from pkgintel.api.http import PACKAGE_CACHE, STALE_CACHE, Answer, cached_json
from pkgintel.api.schemas.people import (
    MaintainersOut,
    QualityOut,
    TrustOut,
    maintainers_answer_wire,
    quality_wire,
    trust_wire,
)
from pkgintel.api.schemas.wire import meta_wire, sources_wire
from pkgintel.domain.errors import PackageNotFound
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.runtime.container import Runtime
from pkgintel.services.signals.trust import TrustSignals

router = APIRouter(prefix="/api", tags=["supply-chain"])

NOT_FOUND = {"description": "Unknown package (problem+json with did_you_mean)"}
REGISTRY_DOWN = {"description": "Registry down and nothing cached (problem+json, Retry-After)"}


class Platform(StrEnum):
    """Account platforms maintainer trust is computed for."""

    GITHUB = "github"


Username = Annotated[
    str, Path(min_length=1, max_length=39, description="GitHub login", examples=["sindresorhus"])
]


def _signals(runtime: Runtime) -> TrustSignals:
    if runtime.trust is None:  # pragma: no cover - bootstrap always wires it
        raise RuntimeError("trust signals are not wired into this runtime")
    return runtime.trust


def _send(request: Request, answer: Answer) -> Response:
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


async def _suggest(runtime: Runtime, ecosystem: Ecosystem, exc: PackageNotFound) -> None:
    if not exc.did_you_mean:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, exc.name)


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


async def maintainers_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/maintainers` answer. Raises `PackageNotFound` (with suggestions),
    `RegistryUnavailable` when the registry is down with nothing stored."""
    name = validate_name(ecosystem, package)
    try:
        ans = await _signals(runtime).maintainers.get_maintainers(ecosystem, name)
    except PackageNotFound as exc:
        await _suggest(runtime, ecosystem, exc)
        raise
    body = maintainers_answer_wire(ans)
    body["_meta"] = meta_wire(
        endpoint="/api/maintainers/{ecosystem}/{package}",
        tier="standard",
        ecosystem=ecosystem,
        name=ans.package,
        public_url=runtime.public_url,
        sources=ans.sources,
    )
    cache = STALE_CACHE if ans.cache_status == "stale" else PACKAGE_CACHE
    return Answer(body, cache, {"_cache": ans.cache_status})


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


async def trust_answer(runtime: Runtime, platform: str, username: str) -> Answer:
    """The `/api/maintainer/trust` answer. Raises `InvalidInput` (422) for a malformed login and
    `AccountNotFound` (404) for an unknown one."""
    ans = await _signals(runtime).github.trust(username, platform=platform)
    body = trust_wire(ans)
    body["_meta"] = {
        "endpoint": "/api/maintainer/trust/{platform}/{username}",
        "tier": "standard",
        "docs": f"{runtime.public_url}/docs",
        "scoring": "docs/scoring.md#maintainer-trust",
        "sources": sources_wire(ans.sources),
    }
    stale = any(s.status.value != "ok" for s in ans.sources)
    return Answer(body, STALE_CACHE if stale else PACKAGE_CACHE)


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


async def quality_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/quality` answer. Raises `PackageNotFound` (with suggestions),
    `RegistryUnavailable` when the registry is down with nothing stored."""
    name = validate_name(ecosystem, package)
    try:
        ans = await _signals(runtime).quality.get_quality(ecosystem, name)
    except PackageNotFound as exc:
        await _suggest(runtime, ecosystem, exc)
        raise
    body = {
        "package": ans.package,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, ans.package, ans.latest_version),
        "latest_version": ans.latest_version,
        **quality_wire(ans),
    }
    body["_meta"] = meta_wire(
        endpoint="/api/quality/{ecosystem}/{package}",
        tier="standard",
        ecosystem=ecosystem,
        name=ans.package,
        public_url=runtime.public_url,
        sources=ans.sources,
    )
    cache = STALE_CACHE if ans.cache_status == "stale" else PACKAGE_CACHE
    return Answer(body, cache, {"_cache": ans.cache_status})
