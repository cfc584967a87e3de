"""
`pkgintel worker`, `pkgintel jobs list|run|kill`, `pkgintel cron list|run`: the job system from the
shell.

A composition root like `cli/main.py`. Exit codes: 0 success, 1 a job failed, ended partial, was not
found, is already running (`cron run`) or could not start here (`jobs run --here`: another job of
its exclusivity group is running), 2 bad usage.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.table import Table

from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.ops import Ops

jobs_app = typer.Typer(help="List, run and kill background jobs.", no_args_is_help=True)
cron_app = typer.Typer(help="Scheduled jobs.", no_args_is_help=True)
out = Console()
err = Console(stderr=True)


@contextlib.asynccontextmanager
async def _ops(settings: Settings) -> AsyncIterator[tuple[Runtime, Ops]]:
    from pkgintel.runtime.bootstrap import build_runtime

    async with build_runtime(settings) as runtime:
        assert runtime.ops is not None
        yield runtime, runtime.ops


def worker(
    concurrency: Annotated[
        int | None, typer.Option(help="Jobs at once (default: PKGINTEL_WORKER_CONCURRENCY).")
    ] = None,
    worker_id: Annotated[
        str | None, typer.Option("--id", help="Worker id shown in job rows.")
    ] = None,
) -> None:
    """Run a job worker in this process until SIGINT/SIGTERM (start as many as you like)."""
    from pkgintel.runtime.worker_host import build_worker, maybe_initial_ingestion

    settings = Settings()
    if concurrency is not None:
        settings = settings.model_copy(update={"worker_concurrency": concurrency})

    async def _run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        async with _ops(settings) as (runtime, ops):
            await maybe_initial_ingestion(settings, runtime)
            w = build_worker(settings, ops, worker_id=worker_id)
            err.print(f"worker {w.worker_id} running (Ctrl-C stops)")
            await w.run(stop)

    asyncio.run(_run())


def _row(job: object) -> list[str]:
    from pkgintel.domain.operations.ops import Job

    assert isinstance(job, Job)
    return [
        job.id,
        job.kind,
        job.status.value,
        f"{job.attempts}/{job.max_attempts}",
        job.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        "" if job.duration_s is None else f"{job.duration_s:.1f}s",
        job.worker_id or "",
        (job.error or "")[:60],
    ]


@jobs_app.command("list")
def jobs_list(
    status: Annotated[
        str | None, typer.Option(help="queued, running, succeeded, partial, failed, killed.")
    ] = None,
    kind: Annotated[
        str | None, typer.Option(help="Job kind (a cron slug, mission, curator, ...).")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=1000)] = 30,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line.")] = False,
) -> None:
    """Newest jobs first."""

    async def _run() -> list[object]:
        async with _ops(Settings()) as (_, ops):
            await ops.queue.reap()
            return list(await ops.queue.list(status=status, kind=kind, limit=limit))

    jobs = asyncio.run(_run())
    if as_json:
        from pkgintel.application.jobs import job_wire

        for job in jobs:
            typer.echo(orjson.dumps(job_wire(job)).decode())  # type: ignore[arg-type]
        return
    table = Table("id", "kind", "status", "attempts", "created", "took", "worker", "error")
    for job in jobs:
        table.add_row(*_row(job))
    out.print(table)


@jobs_app.command("run")
def jobs_run(
    kind: Annotated[str, typer.Argument(help="A registered job kind, e.g. a cron slug.")],
    payload: Annotated[str, typer.Option(help="JSON payload.")] = "{}",
    here: Annotated[
        bool,
        typer.Option("--here", help="Run it in this process and print its log (else queue it)."),
    ] = False,
) -> None:
    """Queue a job (a worker picks it up), or run it here with --here."""
    from pkgintel.runtime.worker_host import build_worker

    try:
        data = orjson.loads(payload)
        if not isinstance(data, dict):
            raise ValueError("payload must be a JSON object")
    except ValueError as exc:
        err.print(f"[red]error:[/red] --payload: {exc}")
        raise typer.Exit(2) from exc
    settings = Settings()

    async def _run() -> int:
        async with _ops(settings) as (_, ops):
            job = await ops.queue.enqueue(kind, data)
            assert job is not None
            typer.echo(job.id)
            if not here:
                return 0
            w = build_worker(settings, ops)
            w.kinds = [kind]
            await ops.queue.reap()
            while True:
                done = await w.run_one()
                if done is None or done.id == job.id:
                    break
            final = await ops.queue.get(job.id)
            blocker = await ops.queue.blocker(final) if final.status.value == "queued" else None
            if blocker is not None:
                err.print(
                    f"not started here: job {blocker.id} ({blocker.kind}) of the same exclusivity "
                    f"group is running; {job.id} waits in the queue for a worker"
                )
                return 1
            for event in await ops.queue.log_tail(job.id, 1000):
                typer.echo(event.data.get("line", ""))
            return 0 if final.status.value == "succeeded" else 1

    try:
        code = asyncio.run(_run())
    except PkgIntelError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc
    raise typer.Exit(code)


@jobs_app.command("kill")
def jobs_kill(job_id: Annotated[str, typer.Argument(help="Job id.")]) -> None:
    """Kill a queued job now, or ask the worker running it to stop."""

    async def _run() -> str:
        async with _ops(Settings()) as (_, ops):
            return (await ops.queue.kill(job_id)).status.value

    try:
        status = asyncio.run(_run())
    except PkgIntelError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from exc
    typer.echo(f"{job_id}: {status}" + (" (kill requested)" if status == "running" else ""))


@cron_app.command("run")
def cron_run(slug: Annotated[str, typer.Argument(help="A registered cron slug.")]) -> None:
    """Queue a cron job now (a worker runs it); refused while it is already running."""

    async def _run() -> tuple[str, str | None]:
        async with _ops(Settings()) as (_, ops):
            await ops.queue.reap()
            job = await ops.cron.run(slug)
            blocker = await ops.queue.blocker(job)
            return job.id, f"job {blocker.id} ({blocker.kind})" if blocker else None

    try:
        job_id, behind = asyncio.run(_run())
    except PkgIntelError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(1) from exc
    typer.echo(job_id + (f" (queued behind {behind})" if behind else ""))


@cron_app.command("list")
def cron_list() -> None:
    """Registered cron jobs: expression, next run, last run and status."""

    async def _run() -> list[dict[str, object]]:
        async with _ops(Settings()) as (_, ops):
            return await ops.cron.list()

    table = Table("slug", "expression", "next run", "last run", "status", "took")
    for row in asyncio.run(_run()):
        table.add_row(
            str(row["slug"]),
            str(row["expression"]),
            str(row["next_run"] or "-"),
            str(row["last_run"] or "-"),
            str(row["last_status"] or "-"),
            "-" if row["last_duration_s"] is None else f"{row['last_duration_s']}s",
        )
    out.print(table)
