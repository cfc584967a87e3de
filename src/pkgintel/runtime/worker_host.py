"""
The worker that `pkgintel serve` embeds and that `pkgintel worker` runs on its own; the first-start
ingestion; and the load of the knowledge shipped in the package (`load_shipped`), which the server
runs at start and the CLI commands that answer run before answering. A composition-level module
(reads `Settings`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from pkgintel.config import Settings
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.jobs import Worker
from pkgintel.services.operations.ops import INITIAL_INGESTION, Ops

logger = logging.getLogger(__name__)


def build_worker(settings: Settings, ops: Ops, *, worker_id: str | None = None) -> Worker:
    return Worker(
        ops.queue,
        worker_id=worker_id,
        concurrency=settings.worker_concurrency,
        poll_s=settings.job_poll_s,
        heartbeat_s=settings.job_heartbeat_s,
        lease_s=settings.job_lease_s,
        ticks=(ops.cron.tick, ops.curator.tick),
    )


async def database_is_empty(runtime: Runtime) -> bool:
    """No name index and no advisory run: nothing was ever loaded. The popularity snapshot shipped
    in the package (a partial index, loaded at start) does not count: the registries' own lists
    are still to be fetched."""
    if any(not s.partial for s in await runtime.names.index_states()):
        return False
    return not (await runtime.advisories.summary())["ecosystems"]


async def maybe_initial_ingestion(settings: Settings, runtime: Runtime) -> str | None:
    """Queue the first-start ingestion once (dedupe key) when enabled and the database is empty."""
    ops = runtime.ops
    if ops is None or not settings.initial_ingest:
        return None
    if not await database_is_empty(runtime):
        return None
    job = await ops.queue.enqueue(INITIAL_INGESTION, {}, dedupe_key=INITIAL_INGESTION)
    if job is not None:
        logger.info("empty database: initial ingestion queued as job %s", job.id)
        return job.id
    return None


async def load_shipped(
    runtime: Runtime, *, popularity: bool = True, ecosystems: tuple[Ecosystem, ...] | None = None
) -> None:
    """`ShippedKnowledge.ensure` with its outcome logged (it never raises for a failed load)."""
    if runtime.shipped is None:
        return
    load = await runtime.shipped.ensure(popularity=popularity, ecosystems=ecosystems)
    logger.info(
        "shipped knowledge: curated %s%s; popularity %s (%.2f s)",
        load.curated,
        f" {load.counts}" if load.counts else "",
        ", ".join(f"{eco} {what}" for eco, what in load.popularity.items()) or "not checked",
        load.seconds,
    )


@contextlib.asynccontextmanager
async def embedded_worker(settings: Settings, runtime: Runtime) -> AsyncIterator[Worker | None]:
    """Run a worker beside the server while the context is open (when `worker_embedded`)."""
    if runtime.ops is None or not settings.worker_embedded:
        yield None
        return
    worker = build_worker(settings, runtime.ops)
    stop = asyncio.Event()

    async def _run() -> None:
        try:
            await maybe_initial_ingestion(settings, runtime)
        except Exception:
            logger.exception("could not queue the initial ingestion")
        await worker.run(stop)

    task = asyncio.create_task(_run(), name="embedded-worker")
    try:
        yield worker
    finally:
        stop.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
