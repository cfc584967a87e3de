"""Supply-chain signals of a package's artifacts: `/api/scorecard` and `/api/provenance`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import cached_json
from pkgintel.application.schemas.artifacts import ProvenanceOut, ScorecardOut
from pkgintel.application.signals import (
    provenance_answer,
    scorecard_answer,
)
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["supply chain"])

_RESPONSES: dict[int | str, dict[str, str]] = {
    404: {"description": "Unknown package or version (problem+json with did_you_mean)"},
    501: {"description": "Ecosystem without a live registry adapter (problem+json)"},
    503: {"description": "The package's registry is down and nothing is stored (problem+json)"},
}


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
