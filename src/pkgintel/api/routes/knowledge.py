"""
Package-knowledge endpoints: alternatives, migration, breaking changes, known bugs, compare, search,
popular, trending, same-as. Thin: validate, call one service, shape the answer (`schemas/knowledge.py`).
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import unquote

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from pkgintel.api.deps import PackagePath, RuntimeDep, VersionQuery
from pkgintel.api.http import cached_json
from pkgintel.application.answer import Answer
from pkgintel.application.knowledge import (
    DB_CACHE,
    alternatives_answer,
    breaking_answer,
    bugs_answer,
    compare_answer,
    knowledge_of,
    migration_answer,
    search_answer,
    trending_answer,
    with_suggestions,
)
from pkgintel.application.schemas.knowledge import (
    bug_wire,
    sameas_wire,
    version_wire,
)
from pkgintel.application.schemas.knowledge_out import (
    AlternativesOut,
    BreakingOut,
    BugsOut,
    SameAsOut,
)
from pkgintel.application.schemas.wire import _iso
from pkgintel.domain.errors import InvalidInput, PackageNotFound
from pkgintel.domain.limits import MAX_VERSION_CHARS
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of

router = APIRouter(prefix="/api", tags=["knowledge"])


def _send(request: Request, answer: Answer) -> Response:
    return cached_json(
        request, answer.body, cache_control=answer.cache_control, volatile=answer.volatile
    )


@router.get(
    "/alternatives/{ecosystem}/{package:path}",
    response_model=AlternativesOut,
    summary="Replacements for a package",
)
async def alternatives(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Maintained replacements for a deprecated or unhealthy package, each with its current health
    score, why it is suggested and a source; an empty list for a healthy package."""
    return _send(request, await alternatives_answer(runtime, ecosystem, package))


def split_pair(raw_path: str, ecosystem: Ecosystem) -> tuple[str, str]:
    """`from/to` from the raw (still percent-encoded) path tail: `%2F` stays inside a name; a literal
    `@scope/name` is one name on npm and JSR. Raises `InvalidInput` unless exactly two names result."""
    segments = [unquote(s) for s in raw_path.split("/") if s]
    if ecosystem in (Ecosystem.NPM, Ecosystem.JSR):
        merged: list[str] = []
        i = 0
        while i < len(segments):
            if segments[i].startswith("@") and "/" not in segments[i] and i + 1 < len(segments):
                merged.append(f"{segments[i]}/{segments[i + 1]}")
                i += 2
            else:
                merged.append(segments[i])
                i += 1
        segments = merged
    if len(segments) != 2:
        raise InvalidInput(
            "to_pkg", "give two package names: /api/migration/{ecosystem}/{from_pkg}/{to_pkg}"
        )
    return segments[0], segments[1]


@router.get("/migration/{ecosystem}/{from_pkg}", include_in_schema=False)
async def migration_one_name(ecosystem: Ecosystem, from_pkg: str) -> Response:
    """A migration needs two names (answered 422 rather than a redirect or a bare 404)."""
    raise InvalidInput(
        "to_pkg", "give two package names: /api/migration/{ecosystem}/{from_pkg}/{to_pkg}"
    )


@router.get(
    "/migration/{ecosystem}/{from_pkg}/{to_pkg:path}", summary="Migration path between two packages"
)
async def migration(
    request: Request, ecosystem: Ecosystem, from_pkg: str, to_pkg: str, runtime: RuntimeDep
) -> Response:
    """Curated path (rationale, steps, before/after code, breaking differences, estimated minutes,
    sources), or a scaffold generated from live data of both packages (`kind: generated`)."""
    raw = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
    prefix = f"/api/migration/{ecosystem.value}/"
    tail = raw[len(prefix) :] if raw.startswith(prefix) else f"{from_pkg}/{to_pkg}"
    src, dst = split_pair(tail, ecosystem)
    return _send(request, await migration_answer(runtime, ecosystem, src, dst))


VersionParam = Annotated[str | None, Query(min_length=1, max_length=MAX_VERSION_CHARS)]


@router.get("/breaking", summary="Recent breaking changes")
async def breaking_recent(
    request: Request, runtime: RuntimeDep, limit: Annotated[int, Query(ge=1, le=100)] = 12
) -> Response:
    """A sample of recent breaking changes: curated entries first, then harvested ones."""
    items = await knowledge_of(runtime).breaking.recent(limit)
    body = {
        "items": [
            {
                "ecosystem": eco.value,
                "package": pkg,
                "purl": purl_of(eco, pkg, v.version),
                **version_wire(v),
            }
            for eco, pkg, v in items
        ],
        "count": len(items),
    }
    return cached_json(request, body, cache_control=DB_CACHE)


@router.get(
    "/breaking/{ecosystem}/{package:path}",
    response_model=BreakingOut,
    summary="Breaking changes of a package",
)
async def breaking(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    from_version: VersionParam = None,
    to_version: VersionParam = None,
) -> Response:
    """Breaking changes per version (from GitHub releases and changelog files, curated on top); with
    `from_version`/`to_version`, every breaking change of that transition in order."""
    return _send(
        request, await breaking_answer(runtime, ecosystem, package, from_version, to_version)
    )


@router.get("/bugs/search", summary="Full-text search of known bugs")
async def bugs_search(
    request: Request,
    runtime: RuntimeDep,
    q: Annotated[str, Query(min_length=1, max_length=200)],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> Response:
    """Known bugs whose title or text match every word of `q` (prefix match), best first."""
    found = await knowledge_of(runtime).bugs.search(q, limit)
    body = {
        "query": q,
        "results": [
            {
                "ecosystem": s.ecosystem.value,
                "package": s.package,
                "purl": purl_of(s.ecosystem, s.package),
                **bug_wire(s.bug),
            }
            for s in found
        ],
        "count": len(found),
    }
    return cached_json(request, body, cache_control=DB_CACHE)


@router.get("/bugs/popular", summary="Packages with the most recorded bugs")
async def bugs_popular(
    request: Request, runtime: RuntimeDep, limit: Annotated[int, Query(ge=1, le=500)] = 100
) -> Response:
    """Packages by number of recorded bugs (open count beside it)."""
    rows = await knowledge_of(runtime).bugs.popular(limit)
    body = {
        "packages": [
            {
                "ecosystem": eco.value,
                "package": pkg,
                "purl": purl_of(eco, pkg),
                "bugs_count": n,
                "open": o,
                "bugs": f"/api/bugs/{eco.value}/{pkg}",
            }
            for eco, pkg, n, o in rows
        ]
    }
    return cached_json(request, body, cache_control=DB_CACHE)


@router.get(
    "/bugs/{ecosystem}/{package:path}",
    response_model=BugsOut,
    summary="Known non-CVE bugs of a package",
)
async def bugs(
    request: Request,
    ecosystem: Ecosystem,
    package: PackagePath,
    runtime: RuntimeDep,
    version: VersionQuery = None,
) -> Response:
    """Bugs from the package's issue tracker; with `version`, bugs fixed before it are left out."""
    return _send(request, await bugs_answer(runtime, ecosystem, package, version))


@router.get("/compare/{ecosystem}/{packages_csv:path}", summary="Compare 2 to 10 packages")
async def compare(
    request: Request, ecosystem: Ecosystem, packages_csv: str, runtime: RuntimeDep
) -> Response:
    """Side by side: health and breakdown, vulnerabilities of the latest version, downloads, last
    release, licence, deprecation, maintainers, caveats, and a verdict naming the best fit."""
    return _send(request, await compare_answer(runtime, ecosystem, packages_csv))


@router.get("/search/{ecosystem}", summary="Search packages")
async def search(
    request: Request,
    ecosystem: Ecosystem,
    runtime: RuntimeDep,
    q: Annotated[str, Query(max_length=200)] = "",
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Response:
    """The registry's own search (where it has one) merged with our name index, by relevance and
    popularity; index-only where the registry has no search API."""
    answer = await search_answer(runtime, ecosystem, q, limit)
    return cached_json(request, answer.body, cache_control=answer.cache_control)


@router.get("/popular", summary="Most downloaded packages")
async def popular(
    request: Request,
    runtime: RuntimeDep,
    ecosystem: Ecosystem | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 20,
) -> Response:
    """Top packages by downloads (or download rank) from the loaded name indexes."""
    groups = await knowledge_of(runtime).discovery.popular(ecosystem, limit)
    body = {
        "ecosystems": [
            {
                "ecosystem": eco.value,
                "index_loaded_at": _iso(loaded),
                "packages": [
                    {
                        "name": e.display_name,
                        "latest_version": e.latest_version,
                        "monthly_downloads": e.monthly_downloads,
                        "popularity_rank": e.popularity_rank,
                        "summary": e.summary,
                    }
                    for e in entries
                ],
            }
            for eco, entries, loaded in groups
        ],
        "note": None if groups else "no name index is loaded (pkgintel ingest names)",
    }
    return cached_json(request, body, cache_control=DB_CACHE)


@router.get("/trending", summary="Packages agents asked about most this week")
async def trending(
    request: Request,
    runtime: RuntimeDep,
    ecosystem: Ecosystem | None = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> Response:
    """From our own query log: the last 7 days against the 7 before; crawlers and health checks excluded."""
    return _send(request, await trending_answer(runtime, ecosystem, limit))


@router.get(
    "/sameas/{ecosystem}/{package:path}",
    response_model=SameAsOut,
    summary="The same project elsewhere",
)
async def sameas(
    request: Request, ecosystem: Ecosystem, package: PackagePath, runtime: RuntimeDep
) -> Response:
    """Packages published from the same source repository (any ecosystem), registry-stated
    relocations, and same-name entries of the paired ecosystem (PyPI/conda, npm/JSR)."""
    try:
        ans = await knowledge_of(runtime).discovery.sameas(ecosystem, package)
    except PackageNotFound as exc:
        await with_suggestions(runtime, ecosystem, exc)
        raise
    return cached_json(request, sameas_wire(ans), cache_control=DB_CACHE)
