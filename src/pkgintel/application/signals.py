"""Supply-chain signal answers: maintainers, maintainer trust, quality, Scorecard, provenance and the four together (shared by every door)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from pkgintel.application.answer import PACKAGE_CACHE, STALE_CACHE, Answer
from pkgintel.application.schemas.artifacts_wire import provenance_wire, scorecard_wire
from pkgintel.application.schemas.people import (
    maintainers_answer_wire,
    quality_wire,
    trust_wire,
)
from pkgintel.application.schemas.wire import meta_wire, sources_wire
from pkgintel.domain.errors import EcosystemNotSupported, PackageNotFound, PkgIntelError
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import purl_of
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.runtime.container import Runtime
from pkgintel.services.signals.trust import TrustSignals

PARTS = ("maintainers", "scorecard", "quality", "provenance")


_MAX_AGE = re.compile(r"max-age=(\d+)")


def _shortest(cache_controls: list[str]) -> str:
    """The `Cache-Control` of the part that may be cached least long (a combined answer is only as
    fresh as its stalest part)."""

    def max_age(value: str) -> int:
        found = _MAX_AGE.search(value)
        return int(found.group(1)) if found else 0

    return min(cache_controls, key=max_age)


def _union_sources(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for body in parts:
        for source in (body.get("_meta") or {}).get("sources") or ():
            key = (source.get("name"), source.get("kind"), source.get("status"))
            seen.setdefault(key, source)
    return list(seen.values())


async def trust_signals_answer(
    runtime: Runtime, ecosystem: Ecosystem, package: str, version: str | None = None
) -> Answer:
    """
    The four answers for `package` (`version` only narrows provenance). Each part is its own
    endpoint's answer, so an upstream that is down leaves that part "unavailable" with its reason
    and the others intact; a domain error that every part shares (unknown package, registry down
    with nothing stored, bad version) is raised once, as its endpoint raises it.
    """
    results = await asyncio.gather(
        maintainers_answer(runtime, ecosystem, package),
        scorecard_answer(runtime, ecosystem, package),
        quality_answer(runtime, ecosystem, package),
        provenance_answer(runtime, ecosystem, package, version),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:  # a domain error first (they are the same for every part), else what failed
        raise next((e for e in errors if isinstance(e, PkgIntelError)), errors[0])
    answers: list[Answer] = [r for r in results if isinstance(r, Answer)]
    bodies = [a.body for a in answers]
    shown = bodies[0].get("package") or package
    body: dict[str, Any] = {
        "ecosystem": ecosystem.value,
        "package": shown,
        "purl": purl_of(ecosystem, shown, version),
        **dict(zip(PARTS, bodies, strict=True)),
        "_meta": {
            "endpoint": "/api/trust/{ecosystem}/{package}",
            "parts": {part: f"/api/{part}/{ecosystem.value}/{{package}}" for part in PARTS},
            "sources": _union_sources(bodies),
        },
    }
    return Answer(body, _shortest([a.cache_control for a in answers]))


def _signals(runtime: Runtime) -> TrustSignals:
    if runtime.trust is None:  # pragma: no cover - bootstrap always wires it
        raise RuntimeError("trust signals are not wired into this runtime")
    return runtime.trust


async def _suggest(runtime: Runtime, ecosystem: Ecosystem, exc: PackageNotFound) -> None:
    if not exc.did_you_mean:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, exc.name)


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


def _cache_control(cache_status: str, sources: tuple[SourceStatus, ...]) -> str:
    """Short edge caching while any source is stale or unavailable, so a recovery shows soon."""
    degraded = cache_status == "stale" or any(s.status is not SourceState.OK for s in sources)
    return STALE_CACHE if degraded else PACKAGE_CACHE


async def _did_you_mean(runtime: Runtime, ecosystem: Ecosystem, name: str, exc: Exception) -> None:
    if isinstance(exc, PackageNotFound) and not exc.did_you_mean:
        exc.did_you_mean = await runtime.names.suggest(ecosystem, name)


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
