"""Supply-chain signals of a package's artifacts: `/api/scorecard` and `/api/provenance`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import PACKAGE_CACHE, STALE_CACHE, Answer, cached_json
from pkgintel.api.schemas.artifacts import ProvenanceOut, ScorecardOut
from pkgintel.api.schemas.artifacts_wire import provenance_wire, scorecard_wire
from pkgintel.api.schemas.wire import sources_wire
from pkgintel.domain.errors import EcosystemNotSupported, PackageNotFound
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.runtime.container import Runtime

router = APIRouter(prefix="/api", tags=["supply chain"])

_RESPONSES: dict[int | str, dict[str, str]] = {
    404: {"description": "Unknown package or version (problem+json with did_you_mean)"},
    501: {"description": "Ecosystem without a live registry adapter (problem+json)"},
    503: {"description": "The package's registry is down and nothing is stored (problem+json)"},
}


def _cache_control(cache_status: str, sources: tuple[SourceStatus, ...]) -> str:
    """Short edge caching while any source is stale or unavailable, so a recovery shows soon."""
    degraded = cache_status == "stale" or any(s.status is not SourceState.OK for s in sources)
    return STALE_CACHE if degraded else PACKAGE_CACHE


async def _did_you_mean(runtime: Runtime, ecosystem: Ecosystem, name: str, exc: Exception) -> None:
    if isinstance(exc, PackageNotFound) and not exc.did_you_mean:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, name)


@router.get(
    "/scorecard/{ecosystem}/{package:path}",
    response_model=ScorecardOut,
    summary="OpenSSF Scorecard of the package's repository",
    responses=_RESPONSES,
)
async def scorecard(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """The OpenSSF Scorecard (0-10 and every check) of the repository the registry names, with
    branch-protection, signed-releases and pinned-dependencies called out. `available: false` with a
    `reason` when there is no result (no repository, a host Scorecard does not scan, not scanned,
    the Scorecard API down) — never a score of 0."""
    answer = await scorecard_answer(runtime, ecosystem, package)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


async def scorecard_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/scorecard` answer (for the MCP door too)."""
    name = validate_name(ecosystem, package)
    if runtime.scorecard is None:
        raise EcosystemNotSupported(ecosystem.value)
    try:
        ans = await runtime.scorecard.get(ecosystem, name)
    except PackageNotFound as exc:
        await _did_you_mean(runtime, ecosystem, name, exc)
        raise
    runtime.status.stats.count("scorecard")
    body = {
        "ecosystem": ecosystem.value,
        "package": ans.snapshot.info.name,
        "purl": purl_of(ecosystem, ans.snapshot.info.name, ans.version),
        "version": ans.version,
        **scorecard_wire(ans.result),
        "_meta": {
            "endpoint": "/api/scorecard/{ecosystem}/{package}",
            "sources": sources_wire(ans.sources),
        },
    }
    return Answer(
        body,
        _cache_control(ans.snapshot.cache_status, ans.sources),
        {"_cache": ans.snapshot.cache_status},
    )


@router.get(
    "/provenance/{ecosystem}/{package:path}",
    response_model=ProvenanceOut,
    summary="Provenance and signing signals of a release",
    responses=_RESPONSES,
)
async def provenance(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """Whether the release (latest, or `version`) carries registry attestations (npm provenance,
    PyPI PEP 740), who built and signed it (issuer, repository, workflow, commit), and whether it
    **lost the provenance its predecessors had**. Best effort: `available: false` with a `reason`
    for ecosystems without attestations or when the attestation source is down."""
    answer = await provenance_answer(runtime, ecosystem, package, version)
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


async def provenance_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None
) -> Answer:
    """The `/api/provenance` answer (for the MCP door too)."""
    name = validate_name(ecosystem, package)
    if runtime.provenance is None:
        raise EcosystemNotSupported(ecosystem.value)
    try:
        ans = await runtime.provenance.get(ecosystem, name, version)
    except PackageNotFound as exc:
        await _did_you_mean(runtime, ecosystem, name, exc)
        raise
    runtime.status.stats.count("provenance")
    body = {
        **provenance_wire(ans),
        "_meta": {
            "endpoint": "/api/provenance/{ecosystem}/{package}",
            "sources": sources_wire(ans.sources),
        },
    }
    return Answer(
        body,
        _cache_control(ans.snapshot.cache_status, ans.sources),
        {"_cache": ans.snapshot.cache_status},
    )
