"""Dependency tree, licences across the tree, and health history (issue 16, items 7-8)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import cached_json
from pkgintel.application.schemas.graph import HistoryOut, TreeLicensesOut, TreeOut
from pkgintel.application.trees import (
    history_answer,
    licenses_answer,
    tree_answer,
)
from pkgintel.domain.packages import Ecosystem

router = APIRouter(prefix="/api", tags=["dependencies"])


MaxDepth = Annotated[
    int, Query(ge=1, le=10, description="Levels below the root that are expanded (default 3).")
]
MaxDeps = Annotated[
    int,
    Query(ge=1, le=1000, description="Most dependencies listed besides the root (default 200)."),
]
Days = Annotated[int, Query(ge=1, le=365, description="Days of history (default 90, at most 365).")]
Target = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=200,
        description="A licence (SPDX expression) to check the whole tree against, e.g. `MIT` or `Apache-2.0`.",
    ),
]
Extras = Annotated[
    str | None,
    Query(
        max_length=200,
        pattern=r"^[A-Za-z0-9._,/-]*$",
        description="Comma-separated: PyPI extras of the root (`socks,security`); CocoaPods "
        "subspecs of the root (`Core,UI`, nested `Core/Base`).",
    ),
]


@router.get(
    "/tree/{ecosystem}/{package:path}",
    response_model=TreeOut,
    summary="Transitive dependency tree with a health score per dependency",
)
async def dependency_tree(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
    max_depth: MaxDepth = 3,
    max_deps: MaxDeps = 200,
    extras: Extras = None,
) -> Response:
    """The flattened transitive tree, resolved with the ecosystem's own range semantics against
    published versions only; each node with its version, depth, health score, vulnerability count
    and licence; cycles, conflicts, unresolved edges and truncation named. Cached 24 hours."""
    answer = await tree_answer(
        runtime,
        ecosystem,
        package,
        version,
        max_depth=max_depth,
        max_deps=max_deps,
        extras=extras,
    )
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/licenses/{ecosystem}/{package:path}",
    response_model=TreeLicensesOut,
    summary="Licences across the transitive tree; GPL/AGPL/LGPL flagged",
)
async def tree_licenses(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
    target: Target = None,
    max_depth: MaxDepth = 3,
    max_deps: MaxDeps = 200,
) -> Response:
    """Every licence in the dependency tree, copyleft families flagged, and a compatibility verdict
    against the root's licence and an optional `target` licence. A licence we cannot read is
    `unknown`, never compatible; an incomplete tree never yields `compatible`."""
    answer = await licenses_answer(
        runtime,
        ecosystem,
        package,
        version,
        target=target,
        max_depth=max_depth,
        max_deps=max_deps,
    )
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/history/{ecosystem}/{package:path}",
    response_model=HistoryOut,
    summary="Health snapshots and trend",
)
async def health_history(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    days: Days = 90,
) -> Response:
    """Daily health snapshots (score, breakdown, vulnerability counts, latest version) of the last
    `days` days, oldest first, and the trend (up, down, stable). From the database only; recorded by
    the daily `health-snapshots` job for packages that were asked about."""
    answer = await history_answer(runtime, ecosystem, package, days)
    return cached_json(request, answer.body, cache_control=answer.cache_control)
