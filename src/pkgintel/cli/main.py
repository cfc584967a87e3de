"""
The command-line door: `pkgintel check | migrate | ingest names|osv|kev|epss|all|knowledge | worker |
jobs list|run|kill | cron list | harvest releases|bugs|all|asked | snapshot | tree | doctor | scan`
(`cli/scan.py`; `snapshot` and `tree` in `cli/graph.py`).

It reads `Settings` and builds what each command needs. The commands that start another door
(`serve`, `mcp`) and the console-script entry point are added by `pkgintel/entry.py`.
Exit codes: 0 success, 1 the answer is a finding (unknown package, upstream down), 2 bad usage or input
(`pkgintel scan` adds 3 for an unreadable lockfile and 4 for no answer to trust: see `cli/scan.py`).
"""

from __future__ import annotations

import asyncio
import gzip
import sys
from pathlib import Path
from typing import Annotated

import httpx
import orjson
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pkgintel.cli.args import (
    ECOSYSTEM_HELP,
    PackageArgument,
    TargetArgument,
    parse_ecosystem,
    parse_package_target,
)
from pkgintel.cli.benchmark import benchmark_app
from pkgintel.cli.doctor import doctor
from pkgintel.cli.graph import snapshot, tree
from pkgintel.cli.ingest import ingest_app
from pkgintel.cli.knowledge import harvest_app
from pkgintel.cli.ops import cron_app, jobs_app, worker
from pkgintel.cli.outbox import outbox
from pkgintel.cli.scan import scan
from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem

app = typer.Typer(help="pkgintel: package intelligence for AI coding agents.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")
app.add_typer(jobs_app, name="jobs")
app.add_typer(cron_app, name="cron")
app.command()(worker)
app.add_typer(harvest_app, name="harvest")
app.add_typer(benchmark_app, name="benchmark")
app.command()(snapshot)
app.command()(tree)
app.command()(scan)
app.command()(doctor)
app.command()(outbox)
err = Console(stderr=True)


async def migrate_database(settings: Settings) -> str | None:
    """Reach the database (`BadSetting` when it cannot be), then apply the migrations."""
    from pkgintel.runtime.reachability import check_database
    from pkgintel.storage.migrate import upgrade
    from pkgintel.storage.sql import create_engine

    engine = create_engine(settings.database_url)
    try:
        await check_database(engine, settings.database_url)
        return await upgrade(engine)
    finally:
        await engine.dispose()


@app.command()
def migrate() -> None:
    """Apply database migrations (idempotent)."""
    revision = asyncio.run(migrate_database(Settings()))
    typer.echo(f"database at revision {revision}")


@app.command()
def check(
    target: TargetArgument,
    package: PackageArgument = None,
    version: Annotated[
        str | None,
        typer.Option(
            "--version",
            help="Render for this version (with a package URL: its version, or the same one).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report.")] = False,
) -> None:
    """
    Print the report of one package (the plain-text brief, or JSON with --json).

    Name it as ECOSYSTEM PACKAGE or by its Package URL; these two are the same:

    pkgintel check npm lodash --version 4.17.15

    pkgintel check pkg:npm/lodash@4.17.15

    A scoped npm package is pkg:npm/%40types/node, a Maven artifact pkg:maven/org.slf4j/slf4j-api.
    """
    from pkgintel.application.schemas.wire import report_wire
    from pkgintel.domain.names.rules import validate_name
    from pkgintel.runtime.bootstrap import build_runtime
    from pkgintel.runtime.worker_host import load_shipped
    from pkgintel.services.reports.briefs import render_prompt

    ref = parse_package_target(target, package, version)
    settings = Settings()

    async def _run() -> str:
        async with build_runtime(settings) as runtime:
            name = validate_name(ref.ecosystem, ref.name)
            # The report's typosquat hint and curated facts read the shipped knowledge.
            await load_shipped(runtime, ecosystems=(ref.ecosystem,))
            report = await runtime.reports.get_report(
                ref.ecosystem, name, ref.version, artifacts=as_json
            )
            if as_json:
                body = report_wire(report, public_url=runtime.public_url)
                body["_cache"] = report.snapshot.cache_status
                return orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
            return render_prompt(report)

    try:
        typer.echo(asyncio.run(_run()))
    except PkgIntelError as exc:
        err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2 if exc.reason == "invalid_input" else 1) from exc


NAME_LIST_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/json;q=0.9, text/plain;q=0.8, */*;q=0.1"
)
"""PEP 691: a simple index answers its JSON form to this; other name lists are JSON or text."""


def _read_source(source: str, timeout: float) -> bytes:
    """Bytes of a local path or an http(s) URL, gunzipped when gzip-compressed."""
    if source.startswith(("http://", "https://")):
        with httpx.Client(timeout=timeout, follow_redirects=True) as client:
            resp = client.get(source, headers={"Accept": NAME_LIST_ACCEPT})
            resp.raise_for_status()
            raw = resp.content
        if "html" in resp.headers.get("content-type", "").lower():
            raise ValueError(
                f"{source} answered HTML, which is not a name list; for a PyPI simple index ask "
                "for its JSON form (PEP 691), e.g. https://pypi.org/simple/ with "
                "Accept: application/vnd.pypi.simple.v1+json, or give a TSV or JSON file"
            )
    else:
        raw = Path(source.removeprefix("file://")).read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


@ingest_app.command("names")
def ingest_names(
    ecosystem: Annotated[
        Ecosystem,
        typer.Option(
            parser=parse_ecosystem,
            metavar="ECOSYSTEM",
            help="Ecosystem the names belong to: " + ECOSYSTEM_HELP,
        ),
    ],
    source: Annotated[
        str, typer.Option("--from", help="Path or URL: TSV(.gz), PyPI simple JSON, npm name list.")
    ],
) -> None:
    """Load a registry name list into the name index (backs /api/exists and did-you-mean)."""
    from pkgintel.runtime.bootstrap import prepare_database
    from pkgintel.services.names.service import NameService
    from pkgintel.sources.name_lists import parse_name_list

    settings = Settings()
    try:
        raw = _read_source(source, settings.upstream_timeout_s * 6)
    except (OSError, httpx.HTTPError, ValueError) as exc:
        err.print(f"[red]error:[/red] cannot read {source}: {exc}")
        raise typer.Exit(2) from exc
    total_lines = max(raw.count(b"\n"), 1)

    async def _run() -> int:
        engine, store = await prepare_database(settings)
        try:
            names = NameService(store)
            with Progress(
                TextColumn(f"[bold]{ecosystem.value}[/bold] names"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                transient=False,
            ) as progress:
                task = progress.add_task("ingest", total=total_lines)
                count = await names.ingest(
                    ecosystem,
                    parse_name_list(ecosystem, raw),
                    source=source,
                    # Lines only estimate the total (JSON lists are one line, Go's index has a
                    # line per version): the total grows with the count and ends equal to it.
                    progress=lambda n: progress.update(
                        task, completed=n, total=max(total_lines, n)
                    ),
                )
                progress.update(task, completed=count, total=count)
                return count
        finally:
            await engine.dispose()

    try:
        count = asyncio.run(_run())
    except ValueError as exc:
        err.print(f"[red]error:[/red] {source}: {exc}")
        raise typer.Exit(2) from exc
    typer.echo(f"loaded {count:,} {ecosystem.value} names from {source}")


def _version(value: bool) -> None:
    if value:
        from pkgintel import __version__

        typer.echo(f"pkgintel {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """pkgintel: package intelligence for AI coding agents."""
    if ctx.resilient_parsing or any(arg in ("--help", "-h") for arg in sys.argv[1:]):
        return  # help needs no settings: it is shown even while one is wrong
    from pkgintel.logs import configure_logging
    from pkgintel.settings_errors import load_settings

    if ctx.invoked_subcommand == "doctor":
        # The doctor reports a bad setting as one of its findings (with the fix) instead.
        configure_logging()
        return
    # Every command reads its settings; they are checked here first (a bad one: one line per
    # setting and exit 2, from `main`) and the log lines of every command get one format.
    settings = load_settings()
    configure_logging(settings.log_level, settings.log_format)
