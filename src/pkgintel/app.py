"""FastAPI application factory. `app_from_env` is the uvicorn `--factory` entry point."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import cast

from brotli_asgi import BrotliMiddleware
from fastapi import FastAPI

from pkgintel import __version__
from pkgintel.api.admin_audit import AdminAuditMiddleware
from pkgintel.api.containment import ContainErrors
from pkgintel.api.docs import install_docs
from pkgintel.api.edge import AccessLog, FanOutBudget, RejectControlPaths
from pkgintel.api.errors import install_error_handlers
from pkgintel.api.fast_paths import FastExists
from pkgintel.api.hot_lane import HotLane, HotLaneApp
from pkgintel.api.http import ClientIdentity
from pkgintel.api.openapi import install_openapi
from pkgintel.api.purl_routes import purl_twin_router
from pkgintel.api.rate_limits import RateLimitLayer, RequestCounter
from pkgintel.api.routes import (
    admin,
    advisories,
    artifacts,
    audit,
    badges,
    benchmark,
    community,
    discovery,
    figures,
    knowledge,
    packages,
    privacy,
    probes,
    service,
)
from pkgintel.api.routes import auth as auth_routes
from pkgintel.api.routes import compat as compat_routes
from pkgintel.api.routes import contact as contact_routes
from pkgintel.api.routes import errors as error_routes
from pkgintel.api.routes import graph as graph_routes
from pkgintel.api.routes import people as people_routes
from pkgintel.api.routes import trust as trust_routes
from pkgintel.api.routes import typosquat as typosquat_routes
from pkgintel.api.usage import UsageMiddleware
from pkgintel.config import Settings
from pkgintel.logs import configure_logging
from pkgintel.mcp.http import mount_mcp
from pkgintel.runtime.bootstrap import build_runtime
from pkgintel.runtime.container import Runtime
from pkgintel.runtime.reachability import preflight_blocking
from pkgintel.runtime.worker_host import embedded_worker, load_shipped
from pkgintel.services.advisories import compromises
from pkgintel.services.operations.readiness import WarmState
from pkgintel.settings_errors import BadSetting, BadSettings, load_settings
from pkgintel.web import install_web

log = logging.getLogger(__name__)

DESCRIPTION = (
    "Package intelligence for AI coding agents: before installing, ask whether a package exists, is safe, "
    "is maintained and which version to use. Every answer carries its sources and their age."
)


def create_app(settings: Settings, runtime: Runtime | None = None) -> FastAPI:
    """
    Build the app. With `runtime` given (tests), it is used as is and no lifespan runs; otherwise the
    lifespan builds one from `settings` (migrating the database when configured).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with build_runtime(settings) as built, mcp_http.running():
            app.state.runtime = built
            # The curated knowledge and popularity snapshot shipped in the package, on a first
            # start or after an upgrade: seconds of work on a first start, so in the background
            # (answers meanwhile say the knowledge is being loaded); one query when current.
            # Then the name pools, which take up to a second per ecosystem to load and index:
            # warmed so the first check_bulk or typosquat hint does not wait for it.
            shipping = asyncio.create_task(_load_shipped(built))
            warming = asyncio.create_task(_warm_after(shipping, built, app.state.warm))
            # Names ingested by the CLI (another process) are seen within a second.
            following = asyncio.create_task(built.names.follow_ingestions())
            try:
                async with embedded_worker(settings, built):
                    yield
            finally:
                # The load ends at its next step or batch, never inside a transaction (a
                # cancelled write could hold its connection past the engine's close).
                if built.shipped is not None:
                    built.shipped.stop()
                await asyncio.gather(shipping, return_exceptions=True)
                warming.cancel()
                following.cancel()
                # Awaited, so whatever they ended with is seen here, not logged at collection.
                await asyncio.gather(warming, following, return_exceptions=True)

    @asynccontextmanager
    async def mcp_lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with mcp_http.running():
            yield

    app = HotLaneApp(
        title="pkgintel",
        version=__version__,
        description=DESCRIPTION,
        lifespan=mcp_lifespan if runtime is not None else lifespan,
        # FastAPI's pages load their assets from CDNs; `install_docs` serves them from the app.
        docs_url=None,
        redoc_url=None,
    )
    if runtime is not None:
        app.state.runtime = runtime
    # `/readyz` says "warming up" until the lifespan's warm-up ends (a given runtime is warm).
    app.state.warm = WarmState(warm=runtime is not None)
    mcp_http = mount_mcp(
        app,
        lambda: cast(Runtime, app.state.runtime),
        public_url=settings.public_url,
        mcp_url=settings.mcp_url,
        allowed_hosts=settings.mcp_allowed_hosts,
        max_body_bytes=settings.max_lockfile_bytes,
    )
    identity = ClientIdentity(settings.trusted_proxies, settings.ip_hash_secret)
    app.state.identity = identity
    counter = RequestCounter()
    app.hot_lane = HotLane(identity, counter)
    routers = (
        service.router,
        packages.router,
        advisories.router,
        audit.router,
        error_routes.router,
        contact_routes.router,
        auth_routes.router,
        compat_routes.router,
        badges.router,
        discovery.router,
        admin.router,
        knowledge.router,
        graph_routes.router,
        people_routes.router,
        trust_routes.router,
        typosquat_routes.router,
        artifacts.router,
        privacy.router,
        figures.router,
        community.router,
        benchmark.router,
    )
    for router in routers:
        app.include_router(router)
    app.include_router(probes.router)
    # `GET /api/<thing>?purl=` beside every `GET /api/<thing>/{ecosystem}/{package}`.
    app.include_router(purl_twin_router(routers))
    install_docs(app)
    install_web(app)
    install_error_handlers(app)
    app.add_middleware(UsageMiddleware)
    install_openapi(app)
    # Event streams must not pass through a compressor: it would buffer them. Nor the docs' assets:
    # compressing the 1.5 MB Swagger UI bundle takes the event loop for most of a second per
    # request; they are sent as files with an ETag and cached by the browser instead.
    app.add_middleware(
        BrotliMiddleware,
        minimum_size=500,
        gzip_fallback=True,
        excluded_handlers=[r"^/api/live/", r"^/docs/static/"],
    )
    app.add_middleware(AdminAuditMiddleware)
    app.add_middleware(FastExists)
    app.add_middleware(FanOutBudget, limit=settings.upstream_fanout_per_request)
    app.add_middleware(RejectControlPaths)
    app.add_middleware(RateLimitLayer, identity=identity, counter=counter)
    app.add_middleware(ContainErrors)  # no exception reaches uvicorn (which would reset the socket)
    app.add_middleware(AccessLog, identity=identity)
    return app


async def _load_shipped(runtime: Runtime) -> None:
    try:
        await load_shipped(runtime)
    except Exception:  # the answers say what is missing; the next start tries again
        log.warning("loading the knowledge shipped with pkgintel failed", exc_info=True)


async def _warm_after(shipping: asyncio.Task[None], runtime: Runtime, warm: WarmState) -> None:
    try:
        await asyncio.shield(shipping)
        await _warm(runtime)
    finally:
        warm.done()


async def _warm(runtime: Runtime) -> None:
    try:
        warmed = await runtime.names.warm()
    except Exception:  # a failed warm-up only means the first request loads the pool itself
        log.warning("warming the name pools failed", exc_info=True)
    else:
        log.info("name pools warmed: %s", ", ".join(e.value for e in warmed) or "none loaded")
    # The compromise knowledge base is read on first use (`check_bulk`, reports): read it now.
    await asyncio.to_thread(compromises.warm)
    # What is alive now (imports, engine, pools) lives as long as the process: move it out of the
    # cyclic collector's reach so later full collections only walk what requests create. Cached
    # data is acyclic, so a frozen object that is dropped later is still freed by its refcount.
    gc.collect()
    gc.freeze()


GIL_SWITCH_INTERVAL_S = 0.001
"""How long a thread holding the GIL keeps it while another waits, in the served process (Python's
default: 5 ms). Pure-Python work moved off the event loop (a big lockfile's parse, an SBOM) still
holds the GIL; at 5 ms the loop waited up to 5 ms at each of the several GIL handoffs one request
needs, and `/api/exists` p99 during a 4.4 MB scan was 69 ms. At 1 ms it is 24 ms (bench/README,
"No stall"); the cost to throughput of single-threaded work is nil (the handoff only happens when
a second thread wants the GIL)."""


def app_from_env() -> FastAPI:
    """
    `uvicorn pkgintel.app:app_from_env --factory`. A bad setting, or a database or Redis that
    cannot be reached, prints one line per setting on stderr and exits 2 (not a traceback from the
    lifespan, per worker).
    """
    try:
        settings = load_settings()
        configure_logging(settings.log_level, settings.log_format)
        preflight_blocking(settings)
    except (BadSettings, BadSetting) as exc:
        lines = exc.lines if isinstance(exc, BadSettings) else [exc.line]
        sys.stderr.write("".join(line + "\n" for line in lines))
        sys.exit(2)
    # uvicorn's access log writes raw client addresses; `AccessLog` writes keyed hashes instead.
    logging.getLogger("uvicorn.access").disabled = True
    sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
    return create_app(settings)
