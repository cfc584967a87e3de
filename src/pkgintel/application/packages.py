"""Package answers: check, health, prompt, exists, latest, install (shared by every door)."""

from __future__ import annotations

import time
from typing import Any

from pkgintel.application.answer import PACKAGE_CACHE, STALE_CACHE, Answer
from pkgintel.application.schemas.wire import (
    _iso,
    health_wire,
    meta_wire,
    path_name,
    recommendation_wire,
    report_wire,
    sources_wire,
)
from pkgintel.cache.memory_lru import MemoryLRU
from pkgintel.domain.errors import PackageNotFound, VersionNotFound
from pkgintel.domain.install.commands import install_commands
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.releases import resolve_version
from pkgintel.domain.versions import is_prerelease, newest_first, validate_version
from pkgintel.runtime.container import Runtime
from pkgintel.services.names.index import ExistsAnswer
from pkgintel.services.packages.service import Snapshot
from pkgintel.services.reports.briefs import render_prompt
from pkgintel.services.reports.service import PackageReport

BULK_WINDOW_S = 60


def cache_control_for(cache_status: str) -> str:
    return STALE_CACHE if cache_status == "stale" else PACKAGE_CACHE


_WIRES: MemoryLRU[tuple[int, str], tuple[PackageReport, dict[str, Any]]] = MemoryLRU(1_024)


def _report_body(report: PackageReport, public_url: str) -> dict[str, Any]:
    """`report_wire` of `report` (a fresh top-level dict the caller may add keys to). A report
    served again from the report service's memo is the same object, and its wire form is reused;
    the entry holds the report, so its `id` is not reused while the entry lives."""
    key = (id(report), public_url)
    held = _WIRES.get(key)
    if held is not None and held[0] is report:
        return dict(held[1])
    body = report_wire(report, public_url=public_url)
    _WIRES.set(key, (report, body))
    return dict(body)


async def package_report(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    version: str | None,
    *,
    artifacts: bool = False,
) -> PackageReport:
    name = validate_name(ecosystem, package)
    try:
        return await runtime.reports.get_report(ecosystem, name, version, artifacts=artifacts)
    except PackageNotFound as exc:
        if not exc.did_you_mean:
            exc.did_you_mean = await runtime.names.suggest(ecosystem, name)
        raise


async def check_answer(
    runtime: Runtime,
    ecosystem: Ecosystem,
    package: str,
    version: str | None,
    *,
    client_key: str | None,
) -> tuple[PackageReport, Answer]:
    """
    The `/api/check` answer (shared with the MCP tool `check_package`). `client_key` (a hashed
    caller identity) feeds the bulk hint; None counts nothing.
    """
    started = time.perf_counter()
    report = await package_report(runtime, ecosystem, package, version, artifacts=True)
    body = _report_body(report, runtime.public_url)
    meta = meta_wire(
        endpoint="/api/check/{ecosystem}/{package}",
        tier="full",
        ecosystem=ecosystem,
        name=report.info.name,
        public_url=runtime.public_url,
        sources=report.sources,
    )
    body["_meta"] = meta
    hits = (
        await runtime.status.hit_window(f"checks:{client_key}", BULK_WINDOW_S)
        if client_key is not None
        else 0
    )
    volatile: dict[str, Any] = {"_cache": report.snapshot.cache_status}
    if hits >= runtime.bulk_hint_threshold:
        body["_meta"] = {
            **meta,
            "hint_bulk": (
                f"You made {hits} full checks in {BULK_WINDOW_S} s. POST /api/check_bulk answers up to 100 "
                "packages in one call from the database; use /api/check only for the ones it marks unknown."
            ),
        }
    volatile["_response_ms"] = round((time.perf_counter() - started) * 1000)
    return report, Answer(body, cache_control_for(report.snapshot.cache_status), volatile)


async def health_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None
) -> tuple[PackageReport, Answer]:
    """The `/api/health` answer (shared with the MCP tool `get_health_score` and the badges)."""
    report = await package_report(runtime, ecosystem, package, version)
    body = {
        "package": report.package,
        "ecosystem": ecosystem.value,
        "purl": purl_of(ecosystem, report.package, report.evaluated_version),
        "version": report.evaluated_version,
        "requested_version": report.requested_version,
        "health": health_wire(report.health),
        "recommendation": recommendation_wire(report.recommendation),
        "_meta": meta_wire(
            endpoint="/api/health/{ecosystem}/{package}",
            tier="standard",
            ecosystem=ecosystem,
            name=report.info.name,
            public_url=runtime.public_url,
            sources=report.sources,
        ),
    }
    return report, Answer(
        body,
        cache_control_for(report.snapshot.cache_status),
        {"_cache": report.snapshot.cache_status},
    )


async def prompt_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None
) -> tuple[PackageReport, str]:
    """The `/api/prompt` text (shared with the MCP tool `get_package_prompt`)."""
    report = await package_report(runtime, ecosystem, package, version)
    return report, render_prompt(report)


EXISTS_CACHE = "public, max-age=3600"


async def exists_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/exists` answer (shared with the MCP tool `package_exists`); database only."""
    return Answer(await exists_body(runtime, ecosystem, package), EXISTS_CACHE)


async def exists_body(runtime: Runtime, ecosystem: Ecosystem, package: str) -> dict[str, Any]:
    """The `/api/exists` answer (shared with the MCP tool and `application/exists.py`). Raises
    `InvalidInput` for a name the ecosystem cannot have."""
    name = validate_name(ecosystem, package)
    ans = await runtime.names.exists(ecosystem, name)
    runtime.status.stats.count("exists")
    return exists_wire(ecosystem, name, ans)


def exists_wire(ecosystem: Ecosystem, name: str, ans: ExistsAnswer) -> dict[str, Any]:
    """The `/api/exists` body of the name index's answer `ans` for the validated `name`."""
    return {
        "ecosystem": ecosystem.value,
        "package": name,
        "purl": purl_of(ecosystem, name),
        "normalized": ans.normalized,
        "exists": ans.exists,
        "reason": ans.reason,
        "display_name": ans.entry.display_name if ans.entry else None,
        "latest_version": ans.entry.latest_version if ans.entry else None,
        "source": ans.entry.source if ans.entry else None,
        "index_loaded_at": _iso(ans.index.loaded_at) if ans.index else None,
        "did_you_mean": list(ans.did_you_mean),
    }


async def latest_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/latest` answer (shared with the MCP tool `get_latest_version`)."""
    name = validate_name(ecosystem, package)
    snap = await package_snapshot(runtime, ecosystem, name)
    info = snap.info
    rel = info.release(info.latest_version)
    known = await runtime.reports.known_deprecation(info)
    body = {
        "ecosystem": ecosystem.value,
        "package": info.name,
        "purl": purl_of(ecosystem, info.name, info.latest_version),
        "latest_version": info.latest_version,
        "published_at": _iso(rel.published_at) if rel else None,
        "deprecated": info.deprecated or known is not None,
        "_meta": {
            "endpoint": "/api/latest/{ecosystem}/{package}",
            "sources": sources_wire(
                (*snap.sources, known.source) if known is not None else snap.sources
            ),
        },
    }
    return Answer(body, cache_control_for(snap.cache_status), {"_cache": snap.cache_status})


async def package_snapshot(
    runtime: Runtime, ecosystem: Ecosystem, name: str, version: str | None = None
) -> Snapshot:
    runtime.status.stats.count("snapshot")
    try:
        return await runtime.packages.get_snapshot(ecosystem, name, version)
    except PackageNotFound as exc:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, name)
        raise


async def install_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None
) -> Answer:
    """The `/api/install` answer (shared with the MCP tool `install_command`)."""
    name = validate_name(ecosystem, package)
    if version is not None:
        version = validate_version(ecosystem, version)
    snap = await package_snapshot(runtime, ecosystem, name)
    info = snap.info
    chosen = resolve_version(info, version) if version else info.latest_version
    rel = info.release(chosen)
    if rel is None:
        raise VersionNotFound(
            ecosystem.value,
            name,
            chosen,
            available=newest_first(ecosystem, [r.version for r in info.releases])[:10],
        )
    notes = []
    if rel.yanked:
        notes.append(
            f"{chosen} is yanked" + (f": {rel.yanked_reason}" if rel.yanked_reason else "")
        )
    if rel.deprecated:
        notes.append(f"{chosen} is deprecated: {rel.deprecated}")
    if is_prerelease(ecosystem, chosen):
        notes.append(f"{chosen} is a pre-release")
    body = {
        "ecosystem": ecosystem.value,
        "package": info.name,
        "purl": purl_of(ecosystem, info.name, chosen),
        "version": chosen,
        "commands": install_commands(
            # an adapter may name what the tools install when it differs from the package
            # (CPAN: the distribution's main module)
            ecosystem,
            info.extra.get("install_name", info.name),
            chosen,
            exact=version is not None,
        ),
        "notes": notes,
        "check": f"/api/check/{ecosystem.value}/{path_name(info.name)}?version={chosen}",
        "_meta": {
            "endpoint": "/api/install/{ecosystem}/{package}",
            "sources": sources_wire(snap.sources),
        },
    }
    return Answer(body, cache_control_for(snap.cache_status), {"_cache": snap.cache_status})


async def versions_answer(runtime: Runtime, ecosystem: Ecosystem, package: str) -> Answer:
    """The `/api/versions` answer (shared with the web package page)."""
    name = validate_name(ecosystem, package)
    snap = await package_snapshot(runtime, ecosystem, name)
    info = snap.info
    known = await runtime.reports.known_deprecation(info)
    ordered = newest_first(ecosystem, [r.version for r in info.releases])
    by_version = {r.version: r for r in info.releases}
    body = {
        "ecosystem": ecosystem.value,
        "package": info.name,
        "purl": purl_of(ecosystem, info.name),
        "latest": info.latest_version,
        "total_count": len(ordered),
        "recent": ordered[:10],
        "deprecated": info.deprecated or known is not None,
        "versions": [
            {
                "version": v,
                "published_at": _iso(by_version[v].published_at),
                "prerelease": by_version[v].prerelease,
                "yanked": by_version[v].yanked,
                "deprecated": by_version[v].deprecated,
            }
            for v in ordered
        ],
    }
    return Answer(body, cache_control_for(snap.cache_status), {"_cache": snap.cache_status})
