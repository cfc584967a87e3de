"""
`pkgintel ingest osv | kev | epss | knowledge | all`: load advisory sources and curated knowledge.

Each command prints a summary line per run and exits 0 when every source loaded, 1 when a source
could not be read (the others still load), 2 on bad usage. Runs are safe to repeat and to kill:
see `services/advisories/ingest.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import httpx
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError

if TYPE_CHECKING:
    from pkgintel.services.advisories.ingest import AdvisoryIngestor

ingest_app = typer.Typer(help="Load data into the database.", no_args_is_help=True)
err = Console(stderr=True)


def default_feed(location: str) -> str:
    """
    The feed name of an export location: the folder that holds `<ecosystem>/all.zip`
    (`../shared/data/osv-malicious` → `osv-malicious`); `osv` for URLs.
    """
    from pkgintel.sources.fetch import is_url, local_path

    if is_url(location):
        return "osv"
    path = local_path(location)
    if path.suffix.lower() == ".zip":
        path = path.parent.parent
    return path.resolve().name or "osv"


@dataclass(slots=True)
class _Tools:
    ingestor: AdvisoryIngestor
    client: httpx.AsyncClient
    progress: Progress


@asynccontextmanager
async def _tools(settings: Settings) -> AsyncIterator[_Tools]:
    from pkgintel.runtime.adapters import build_http_client
    from pkgintel.runtime.bootstrap import build_bus, prepare_database
    from pkgintel.runtime.reachability import check_redis
    from pkgintel.services.advisories.ingest import AdvisoryIngestor
    from pkgintel.storage.advisories import SqlAdvisoryStore

    await check_redis(settings.redis_url)
    engine, _ = await prepare_database(settings)
    bus = build_bus(settings)
    client = build_http_client(settings)
    client.timeout = httpx.Timeout(max(60.0, settings.upstream_timeout_s), connect=10.0)
    progress = Progress(
        TextColumn("[bold]{task.description}[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    )
    try:
        with progress:
            ingestor = AdvisoryIngestor(
                SqlAdvisoryStore(engine), clock=lambda: datetime.now(UTC), bus=bus
            )
            yield _Tools(ingestor, client, progress)
    finally:
        await client.aclose()
        await bus.close()
        await engine.dispose()


async def _osv(tools: _Tools, osv_ecosystem: str, location: str, feed: str) -> str:
    from pkgintel.sources.fetch import SourceFetchError, locate
    from pkgintel.sources.osv_export import (
        count_records,
        export_location,
        is_missing_locally,
        iter_records,
    )

    where = export_location(location, osv_ecosystem)
    if is_missing_locally(where):
        raise SourceFetchError(where, f"no {osv_ecosystem} export here")
    async with locate(where, tools.client) as path:
        total = count_records(path)
        task = tools.progress.add_task(f"{feed}:{osv_ecosystem}", total=total)
        advance: Callable[[int], None] = lambda n: tools.progress.advance(task, n)  # noqa: E731
        summary = await tools.ingestor.ingest_osv(
            feed=feed,
            osv_ecosystem=osv_ecosystem,
            location=where,
            entries=iter_records(path),
            progress=advance,
        )
    skipped = ", ".join(f"{n} {why}" for why, n in summary.skipped.items()) or "none"
    return (
        f"{feed}:{osv_ecosystem}: {summary.total:,} records — added {summary.added:,}, "
        f"updated {summary.updated:,}, unchanged {summary.unchanged:,}, withdrawn "
        f"{summary.withdrawn:,}, removed {summary.removed:,}, events {summary.events:,}; "
        f"skipped: {skipped} ({summary.seconds:.1f} s)"
    )


async def _kev(tools: _Tools, location: str) -> str:
    from pkgintel.sources.fetch import locate

    async with locate(location, tools.client) as path:
        summary = await tools.ingestor.ingest_kev(location=location, data=path.read_bytes())
    return f"kev: {summary}"


async def _epss(tools: _Tools, location: str) -> str:
    from pkgintel.sources.fetch import is_url, locate

    if is_url(location) and not location.lower().endswith((".gz", ".csv")):
        location = f"{location.rstrip('/')}/epss_scores-current.csv.gz"
    async with locate(location, tools.client) as path:
        with path.open("rb") as fh:
            summary = await tools.ingestor.ingest_epss(location=location, stream=fh)
    return f"epss: {summary}"


def _report(lines: list[str], failures: list[str]) -> None:
    for line in lines:
        typer.echo(line)
    for failure in failures:
        err.print(f"[red]failed:[/red] {failure}")
    if failures:
        raise typer.Exit(1)


async def _guard(step: str, coro: object, lines: list[str], failures: list[str]) -> None:
    try:
        lines.append(await coro)  # type: ignore[misc]
    except PkgIntelError as exc:
        failures.append(f"{step}: {exc.message}")
    except Exception as exc:  # the database went away mid-run: a rerun resumes (one line, no trace)
        from pkgintel.storage.outage import is_outage

        if not is_outage(exc):
            raise
        failures.append(
            f"{step}: the database cannot be reached ({exc}); run it again once it is back"
        )


@ingest_app.command("osv")
def ingest_osv(
    ecosystem: Annotated[
        list[str],
        typer.Option(
            "--ecosystem", help="OSV ecosystem name (repeatable): PyPI, npm, crates.io, ..."
        ),
    ],
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="A zip, a folder holding <ecosystem>/all.zip, or a URL (default: the OSV export setting).",
        ),
    ] = None,
    feed: Annotated[
        str | None,
        typer.Option(help="Feed name the records are filed under (default: from --from)."),
    ] = None,
) -> None:
    """Load OSV advisories (incremental; safe to rerun or kill)."""
    settings = Settings()
    location = source or settings.upstream_osv_export_url
    feed_name = feed or default_feed(location)

    async def _run() -> tuple[list[str], list[str]]:
        lines: list[str] = []
        failures: list[str] = []
        async with _tools(settings) as tools:
            for eco in ecosystem:
                await _guard(eco, _osv(tools, eco, location, feed_name), lines, failures)
        return lines, failures

    _report(*asyncio.run(_run()))


@ingest_app.command("kev")
def ingest_kev(
    source: Annotated[
        str | None, typer.Option("--from", help="Path or URL of the KEV JSON.")
    ] = None,
) -> None:
    """Load the CISA Known Exploited Vulnerabilities catalog (replaces the previous one)."""
    settings = Settings()

    async def _run() -> tuple[list[str], list[str]]:
        lines: list[str] = []
        failures: list[str] = []
        async with _tools(settings) as tools:
            await _guard("kev", _kev(tools, source or settings.upstream_kev_url), lines, failures)
        return lines, failures

    _report(*asyncio.run(_run()))


@ingest_app.command("epss")
def ingest_epss(
    source: Annotated[
        str | None,
        typer.Option("--from", help="Path or URL of an EPSS csv(.gz), or the EPSS base URL."),
    ] = None,
) -> None:
    """Load FIRST EPSS scores (replaces the previous day's)."""
    settings = Settings()

    async def _run() -> tuple[list[str], list[str]]:
        lines: list[str] = []
        failures: list[str] = []
        async with _tools(settings) as tools:
            await _guard(
                "epss", _epss(tools, source or settings.upstream_epss_url), lines, failures
            )
        return lines, failures

    _report(*asyncio.run(_run()))


@ingest_app.command("knowledge")
def ingest_knowledge() -> None:
    """Load the curated knowledge shipped in the package into the database: error-to-fix entries
    (votes, hits and misses are kept) and alternatives, migration paths and breaking changes; the
    past compromises are validated (they are read from the package). Safe to repeat."""
    settings = Settings()

    async def _run() -> tuple[list[str], list[str]]:
        from pkgintel.knowledge.compromises import load_incidents
        from pkgintel.runtime.bootstrap import build_runtime

        async with build_runtime(settings) as runtime:
            assert runtime.shipped is not None
            load = await runtime.shipped.ensure(popularity=False, force=True)
        if load.curated != "loaded" or load.errors is None:
            return [], [f"knowledge: {runtime.shipped.state.detail or load.curated}"]
        summary, counts = load.errors, dict(load.counts)
        counts.pop("errors", None)
        tools = ", ".join(f"{tool} {n}" for tool, n in sorted(summary.by_tool.items()))
        # Past compromises are read from the package at query time; loading them here validates them.
        incidents = load_incidents()
        return [
            f"errors: {summary.total} entries — added {summary.added}, updated {summary.updated}, "
            f"removed {summary.removed} ({tools})",
            "packages: " + ", ".join(f"{n} {kind}" for kind, n in counts.items()),
            f"compromises: {len(incidents)} incidents over "
            f"{sum(len(i.packages) for i in incidents)} packages (validated; read from the package)",
        ], []

    _report(*asyncio.run(_run()))


@ingest_app.command("all")
def ingest_all(
    osv_from: Annotated[
        list[str] | None,
        typer.Option(
            "--osv-from", help="OSV export locations (repeatable; default: the OSV export setting)."
        ),
    ] = None,
    kev_from: Annotated[str | None, typer.Option(help="KEV location (default: setting).")] = None,
    epss_from: Annotated[str | None, typer.Option(help="EPSS location (default: setting).")] = None,
) -> None:
    """Run every source in turn: OSV for each configured ecosystem (from each location), KEV, EPSS.
    A local folder without an ecosystem's export is skipped, not an error."""
    settings = Settings()
    locations = osv_from or [settings.upstream_osv_export_url]

    async def _run() -> tuple[list[str], list[str]]:
        from pkgintel.sources.osv_export import export_location, is_missing_locally

        lines: list[str] = []
        failures: list[str] = []
        async with _tools(settings) as tools:
            for location in locations:
                feed = default_feed(location)
                for eco in settings.osv_ecosystems:
                    where = export_location(location, eco)
                    if is_missing_locally(where):
                        continue
                    await _guard(f"{feed}:{eco}", _osv(tools, eco, location, feed), lines, failures)
            await _guard("kev", _kev(tools, kev_from or settings.upstream_kev_url), lines, failures)
            await _guard(
                "epss", _epss(tools, epss_from or settings.upstream_epss_url), lines, failures
            )
        return lines, failures

    _report(*asyncio.run(_run()))
