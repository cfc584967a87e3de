"""Package endpoints: check, health, prompt, brief, exists, latest, versions, license, install."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import IdentityDep, PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import cached_json, cached_text
from pkgintel.application.packages import (
    EXISTS_CACHE,
    cache_control_for,
    check_answer,
    exists_body,
    health_answer,
    install_answer,
    latest_answer,
    package_report,
    package_snapshot,
    prompt_answer,
    versions_answer,
)
from pkgintel.application.schemas.packages import (
    ExistsOut,
    InstallOut,
    LatestOut,
    LicenseOut,
    PackageHealthOut,
    PackageReportOut,
    VersionsListOut,
)
from pkgintel.application.schemas.wire import (
    sources_wire,
)
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.runtime.container import Runtime
from pkgintel.scoring import classify_license
from pkgintel.services.reports.briefs import render_brief

router = APIRouter(prefix="/api", tags=["packages"])


def _count(runtime: Runtime, group: str, cache_status: str | None = None) -> None:
    runtime.status.stats.count(group)
    if cache_status:
        runtime.status.stats.cache[cache_status] += 1


@router.get(
    "/check/{ecosystem}/{package:path}",
    response_model=PackageReportOut,
    summary="Full package report",
    responses={
        404: {"description": "Unknown package or version (problem+json with did_you_mean)"},
        503: {"description": "Registry down and nothing cached (problem+json, Retry-After)"},
    },
)
async def check(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    identity: IdentityDep,
    version: VersionQuery = None,
) -> Response:
    """Everything we know about a package (rendered for `version` when given): health, vulnerabilities, licence, recommendation."""
    report, answer = await check_answer(
        runtime, ecosystem, package, version, client_key=identity.key(request)
    )
    _count(runtime, "check", report.snapshot.cache_status)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/health/{ecosystem}/{package:path}",
    response_model=PackageHealthOut,
    summary="Health score and breakdown",
)
async def package_health(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """The health score (0-100) with its breakdown and the recommendation; the same number as `/api/check`."""
    report, answer = await health_answer(runtime, ecosystem, package, version)
    _count(runtime, "health", report.snapshot.cache_status)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/prompt/{ecosystem}/{package:path}",
    response_class=Response,
    summary="Plain-text brief (~500 tokens)",
    responses={200: {"content": {"text/plain": {}}}},
)
async def prompt(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """A plain-text brief for an LLM prompt, verdict first (about 500 tokens at most)."""
    report, text = await prompt_answer(runtime, ecosystem, package, version)
    _count(runtime, "prompt", report.snapshot.cache_status)
    return cached_text(request, text, cache_control=cache_control_for(report.snapshot.cache_status))


@router.get(
    "/ai/brief/{ecosystem}/{package:path}",
    response_class=Response,
    summary="Compact brief (~300 tokens)",
    responses={200: {"content": {"text/plain": {}}}},
)
async def ai_brief(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """The compact brief: verdict, score, top issues, vulnerabilities, licence, sources (about 300 tokens)."""
    report = await package_report(runtime, ecosystem, package, None)
    _count(runtime, "brief", report.snapshot.cache_status)
    return cached_text(
        request, render_brief(report), cache_control=cache_control_for(report.snapshot.cache_status)
    )


@router.get(
    "/exists/{ecosystem}/{package:path}",
    response_model=ExistsOut,
    summary="Existence (database only)",
)
async def exists(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Whether the name is in the ecosystem's name index; `exists: null` when that index is not loaded."""
    body = await exists_body(runtime, ecosystem, package)
    return cached_json(request, body, cache_control=EXISTS_CACHE)


@router.get(
    "/latest/{ecosystem}/{package:path}", response_model=LatestOut, summary="Latest version only"
)
async def latest(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """The latest version as the registry tags it."""
    answer = await latest_answer(runtime, ecosystem, package)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/versions/{ecosystem}/{package:path}", response_model=VersionsListOut, summary="Versions"
)
async def versions(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Latest, total count, the recent list (newest first) and every version with its date and flags."""
    answer = await versions_answer(runtime, ecosystem, package)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/license/{ecosystem}/{package:path}", response_model=LicenseOut, summary="Licence lookup"
)
async def license_lookup(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """The latest version's licence (SPDX), its class and what it means for commercial use."""
    name = validate_name(ecosystem, package)
    snap = await package_snapshot(runtime, ecosystem, name)
    lic = classify_license(snap.info.license)
    body = {
        "ecosystem": ecosystem.value,
        "package": snap.info.name,
        "purl": purl_of(ecosystem, snap.info.name, snap.info.latest_version),
        "version": snap.info.latest_version,
        "license": lic.license,
        "class": lic.license_class,
        "license_risk": lic.license_risk,
        "commercial_safe": lic.commercial_safe,
        "copyleft": lic.copyleft,
        "commercial_use_notes": lic.commercial_use_notes,
        "declared": snap.info.license,
        "_meta": {
            "endpoint": "/api/license/{ecosystem}/{package}",
            "sources": sources_wire(snap.sources),
        },
    }
    return cached_json(
        request,
        body,
        cache_control=cache_control_for(snap.cache_status),
        volatile={"_cache": snap.cache_status},
    )


@router.get(
    "/install/{ecosystem}/{package:path}", response_model=InstallOut, summary="Install commands"
)
async def install(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """Install commands and manifest lines for the ecosystem's tools (`domain/install/commands.py`), for `version` (pinned exactly) or the latest."""
    answer = await install_answer(runtime, ecosystem, package, version)
    return cached_json(request, answer.body, cache_control=answer.cache_control)
