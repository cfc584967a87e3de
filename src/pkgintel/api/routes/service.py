"""Service endpoints: root, ecosystems, status, health, now."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.api.deps import RuntimeDep
from pkgintel.api.http import cached_json, plain_json
from pkgintel.api.routes.probes import warm_state
from pkgintel.application.answer import NO_STORE
from pkgintel.application.registries import REGISTRIES
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime

router = APIRouter(tags=["service"])


@router.get("/", summary="Root")
async def root(runtime: RuntimeDep) -> Response:
    """What this service is and where to start."""
    base = runtime.public_url
    return plain_json(
        {
            "service": "pkgintel",
            "version": runtime.status.version,
            "description": "Is this package safe, maintained and current? Ask before you install.",
            "docs": f"{base}/docs",
            "openapi": f"{base}/openapi.json",
            "start_here": {
                "check": f"{base}/api/check/pypi/requests",
                "brief": f"{base}/api/ai/brief/npm/lodash",
                "exists": f"{base}/api/exists/npm/lodash",
                "ecosystems": f"{base}/api/ecosystems",
                "status": f"{base}/api/status",
            },
        },
        cache_control="public, max-age=3600",
    )


@router.get("/api/ecosystems", summary="Ecosystems")
async def ecosystems(request: Request, runtime: RuntimeDep) -> Response:
    """All 19 ecosystems: registry, whether live reports are supported yet, and name-index counts."""
    indexes = {s["ecosystem"]: s for s in await runtime.status.name_indexes()}
    advisory = (await runtime.advisories.summary())["ecosystems"]
    supported = set(runtime.status.supported)
    items: list[dict[str, Any]] = []
    for eco in Ecosystem:
        label, url = REGISTRIES[eco]
        idx = indexes.get(eco.value)
        adv = advisory.get(eco.value)
        items.append(
            {
                "id": eco.value,
                "name": label,
                "registry_url": url,
                "supported": eco.value in supported,
                "features": {
                    "report": eco.value in supported,
                    "exists": idx is not None,
                    "vulnerabilities": bool(adv and adv["advisory_records"]),
                    "malicious": bool(adv and adv["malicious_records"]),
                },
                "package_count": idx["names"] if idx else None,
                "vulnerability_count": adv["advisory_records"] if adv else None,
                "malicious_count": adv["malicious_records"] if adv else None,
                "advisory_data_as_of": adv["data_as_of"] if adv else None,
                "advisory_data_stale": adv["stale"] if adv else None,
                "name_index_loaded_at": idx["loaded_at"] if idx else None,
            }
        )
    body = {
        "count": len(items),
        "supported_count": sum(1 for i in items if i["supported"]),
        "ecosystems": items,
    }
    return cached_json(request, body, cache_control="public, max-age=300")


@router.get("/api/status", summary="Fast status probe")
async def status(request: Request, runtime: RuntimeDep) -> Response:
    """`ok`, uptime, component states, counters, this worker's warm-up and version; cheap enough
    to poll."""
    st = runtime.status
    warm = warm_state(request)
    components = await st.components(timeout=0.5)
    ok = all(v == "ok" for v in components.values())
    return plain_json(
        {
            "ok": ok,
            "uptime_s": st.uptime_s,
            "version": st.version,
            "components": {**components, "backends": st.backends()},
            "stats": {
                "requests": dict(st.stats.requests),
                "cache": dict(st.stats.cache),
                "name_indexes": await st.name_indexes(),
                "supported_ecosystems": list(st.supported),
                "scope": "this worker process since start",
            },
            "jobs": await _jobs_status(runtime),
            "warm_up": {
                "done": warm.warm,
                "took_s": warm.took_s,
                "scope": "this worker process: the name pools and the compromise knowledge are "
                "loaded at start in the background; until done, a first typosquat, check_bulk or "
                "did-you-mean answer may wait for them (/readyz answers 503 meanwhile)",
            },
        }
    )


async def _jobs_status(runtime: Runtime) -> dict[str, Any] | None:
    """Queue counts, the first-start ingestion's progress and outcome, and every feed's latest
    ingestion outcome (None when jobs are not wired)."""
    if runtime.ops is None:
        return None
    try:
        out: dict[str, Any] = {
            "queue": await runtime.ops.queue.counts(),
            "initial_ingestion": await runtime.ops.initial_ingestion(),
        }
        if runtime.ops.ingestion is not None:
            out["ingestion"] = await runtime.ops.ingestion.status()
        return out
    except Exception as exc:  # the probe reports, it never fails
        return {"error": f"{exc.__class__.__name__}"}


async def _ingestion_health(runtime: Runtime, timeout: float) -> tuple[str, dict[str, Any] | None]:
    """The `ingestion` subsystem: `ok`, or an error string naming the failing feeds; and the
    summary (status, failed feeds with why, next retry). Never raises."""
    if runtime.ops is None or runtime.ops.ingestion is None:
        return "ok", None
    try:
        state = await asyncio.wait_for(runtime.ops.ingestion.status(), timeout)
    except TimeoutError:
        return f"error: no answer within {timeout:g} s", None
    except Exception as exc:
        return f"error: {exc.__class__.__name__}: {exc}"[:200], None
    summary = {k: state[k] for k in ("status", "failed_feeds", "next_retry")}
    failing = state["failed_feeds"]
    if not failing:
        return "ok", summary
    named = ", ".join(f["feed"] for f in failing)
    return f"error: {len(failing)} feeds failed to load: {named}"[:500], summary


@router.get("/api/health", summary="Liveness and readiness")
async def service_health(runtime: RuntimeDep) -> Response:
    """Always 200; each subsystem (database, cache and, where jobs run, ingestion) says `ok` or an
    error string, and `status` sums them up: `degraded` while a feed fails to load."""
    st = runtime.status
    components = await st.components(timeout=2.0)
    subsystems = dict(components)
    ingestion = None
    if runtime.ops is not None and runtime.ops.ingestion is not None:
        subsystems["ingestion"], ingestion = await _ingestion_health(runtime, 2.0)
    failing = [k for k, v in subsystems.items() if v != "ok"]
    overall = "ok" if not failing else ("down" if "database" in failing else "degraded")
    body: dict[str, Any] = {
        "status": overall,
        "live": True,
        "ready": "database" not in failing,
        "subsystems": subsystems,
        "version": st.version,
        "uptime_s": st.uptime_s,
    }
    if ingestion is not None:
        body["ingestion"] = ingestion
    return plain_json(body, cache_control=NO_STORE)


@router.get("/api/now", summary="Current time and service snapshot")
async def now(runtime: RuntimeDep) -> Response:
    """Current UTC time (for agents without a clock) and a snapshot of service state."""
    current = datetime.now(UTC)
    st = runtime.status
    return plain_json(
        {
            "utc": current.isoformat().replace("+00:00", "Z"),
            "unix": round(time.time(), 3),
            "date": current.date().isoformat(),
            "service": {
                "version": st.version,
                "uptime_s": st.uptime_s,
                "supported_ecosystems": list(st.supported),
                "name_indexes": await st.name_indexes(),
                "vulnerability_data": await runtime.advisories.summary(),
            },
        }
    )
