"""Package-knowledge answers: alternatives, migration, breaking changes, bugs, compare, trending (shared by every door)."""

from __future__ import annotations

from pkgintel.application.answer import Answer
from pkgintel.application.schemas.knowledge import (
    alternatives_wire,
    breaking_wire,
    compare_wire,
    migration_wire,
    package_bugs_wire,
    search_wire,
    trend_wire,
)
from pkgintel.application.schemas.wire import _iso
from pkgintel.domain.errors import InvalidInput, PackageNotFound
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.knowledge import Knowledge

KNOWLEDGE_CACHE = "public, max-age=3600, stale-while-revalidate=86400"


LIVE_CACHE = "public, max-age=300, stale-while-revalidate=600"


DB_CACHE = "public, max-age=600, stale-while-revalidate=3600"


def knowledge_of(runtime: Runtime) -> Knowledge:
    if runtime.knowledge is None:  # pragma: no cover - bootstrap always wires it
        raise RuntimeError("knowledge services are not wired into this runtime")
    return runtime.knowledge


async def with_suggestions(runtime: Runtime, ecosystem: Ecosystem, exc: PackageNotFound) -> None:
    if not exc.did_you_mean:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, exc.name)


async def alternatives_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/alternatives` answer (shared with the MCP tool `find_alternatives`). An unknown
    package raises `PackageNotFound` with did-you-mean suggestions."""
    try:
        ans = await knowledge_of(runtime).alternatives.alternatives(ecosystem, package)
    except PackageNotFound as exc:
        await with_suggestions(runtime, ecosystem, exc)
        raise
    return Answer(alternatives_wire(ans), LIVE_CACHE)


async def migration_answer(
    runtime: Runtime, ecosystem: Ecosystem, from_pkg: str, to_pkg: str
) -> Answer:
    """The `/api/migration` answer (shared with the MCP tool `get_migration_path`)."""
    try:
        ans = await knowledge_of(runtime).alternatives.migration(ecosystem, from_pkg, to_pkg)
    except PackageNotFound as exc:
        await with_suggestions(runtime, ecosystem, exc)
        raise
    return Answer(migration_wire(ans), LIVE_CACHE)


async def breaking_answer(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    from_version: str | None = None,
    to_version: str | None = None,
) -> Answer:
    """The `/api/breaking/{ecosystem}/{package}` answer (shared with the MCP tool
    `get_breaking_changes`)."""
    name = validate_name(ecosystem, package)
    ans = await knowledge_of(runtime).breaking.breaking(ecosystem, name, from_version, to_version)
    return Answer(breaking_wire(ans), DB_CACHE)


async def bugs_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None = None
) -> Answer:
    """The `/api/bugs/{ecosystem}/{package}` answer (shared with the MCP tool `get_known_bugs`)."""
    name = validate_name(ecosystem, package)
    ans = await knowledge_of(runtime).bugs.for_package(ecosystem, name, version)
    return Answer(package_bugs_wire(ans), DB_CACHE)


async def compare_answer(runtime: Runtime, ecosystem: Ecosystem, packages_csv: str) -> Answer:
    """The `/api/compare` answer (shared with the MCP tool `compare_packages`, which joins its list
    with commas). Raises `InvalidInput` unless 2 to 10 distinct valid names are given."""
    if len(packages_csv) > 3000:
        raise InvalidInput("packages_csv", "the package list is too long")
    result = await knowledge_of(runtime).compare.compare(ecosystem, packages_csv)
    return Answer(compare_wire(result), LIVE_CACHE)


async def trending_answer(
    runtime: Runtime, ecosystem: Ecosystem | None = None, limit: int = 20
) -> Answer:
    """The `/api/trending` answer (shared with the MCP tool `get_trending`); database only."""
    trends, start, end = await knowledge_of(runtime).discovery.trending(ecosystem, limit)
    body = {
        "window": {"start": _iso(start), "end": _iso(end)},
        "packages": [trend_wire(t) for t in trends],
        "excludes": "crawlers, uptime probes, our own health checks",
    }
    return Answer(body, "public, max-age=300")


async def search_answer(runtime: Runtime, ecosystem: Ecosystem, q: str, limit: int = 10) -> Answer:
    """The `/api/search` answer (shared with the web search page). Raises `InvalidInput` for an
    overlong query."""
    ans = await knowledge_of(runtime).discovery.search(ecosystem, q, limit)
    return Answer(search_wire(ans), LIVE_CACHE)
