"""
Command line: `pkgintel serve | mcp | check | migrate | ingest names|osv|kev|epss|all|knowledge | worker |
jobs list|run|kill | cron list | harvest releases|bugs|all|asked | snapshot | doctor`.

A composition root like `app.py`: it reads `Settings` and builds what each command needs.
Exit codes: 0 success, 1 the answer is a finding (unknown package, upstream down), 2 bad usage or input.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import httpx
import orjson
import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from pkgintel.cli_args import (
    ECOSYSTEM_HELP,
    PACKAGE_TARGET_HELP,
    parse_ecosystem,
    parse_package_target,
)
from pkgintel.cli_doctor import doctor
from pkgintel.cli_graph import snapshot
from pkgintel.cli_ingest import ingest_app
from pkgintel.cli_knowledge import harvest_app
from pkgintel.cli_ops import cron_app, jobs_app, worker
from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem

app = typer.Typer(help="pkgintel: package intelligence for AI coding agents.", no_args_is_help=True)
app.add_typer(ingest_app, name="ingest")
app.add_typer(jobs_app, name="jobs")
app.add_typer(cron_app, name="cron")
app.command()(worker)
app.add_typer(harvest_app, name="harvest")
app.command()(snapshot)
app.command()(doctor)
err = Console(stderr=True)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[
        int, typer.Option(help="Worker processes (use Redis when more than 1).")
    ] = 1,
) -> None:
    """Start the HTTP service (migrates the database first)."""
    import uvicorn

    settings = Settings()
    if settings.migrate_on_start:
        asyncio.run(_migrate(settings))
        # Migrated once here: the workers need not check again (faster first answer).
        os.environ["PKGINTEL_MIGRATE_ON_START"] = "false"
    uvicorn.run(
        "pkgintel.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        proxy_headers=False,
        access_log=False,  # pkgintel.access logs each request with a keyed hash, not the address
    )


@app.command("mcp")
def mcp_stdio() -> None:
    """
    Run the MCP server over stdio (for desktop clients: Claude Code, Cursor, VS Code). Same tools as
    `/mcp` of `pkgintel serve`; stdout carries the protocol, logs go to stderr.
    """
    import logging

    from pkgintel.bootstrap import build_runtime
    from pkgintel.mcp.server import build_server
    from pkgintel.worker_host import load_shipped

    settings = Settings()
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr)

    async def _run() -> None:
        async with build_runtime(settings) as runtime:
            # The shipped knowledge on a first start (one query when current): `resolve_error`
            # and the typosquat checks answer from it.
            await load_shipped(runtime)
            server = build_server(lambda: runtime, public_url=settings.public_url.rstrip("/"))
            await server.run_stdio_async()

    asyncio.run(_run())


async def _migrate(settings: Settings) -> str | None:
    from pkgintel.storage.migrate import upgrade
    from pkgintel.storage.sql import create_engine

    engine = create_engine(settings.database_url)
    try:
        return await upgrade(engine)
    finally:
        await engine.dispose()


@app.command()
def migrate() -> None:
    """Apply database migrations (idempotent)."""
    revision = asyncio.run(_migrate(Settings()))
    typer.echo(f"database at revision {revision}")


@app.command()
def check(
    target: Annotated[
        str, typer.Argument(metavar="ECOSYSTEM|PURL", help=PACKAGE_TARGET_HELP, show_default=False)
    ],
    package: Annotated[
        str | None,
        typer.Argument(
            metavar="PACKAGE",
            help="Package name (omit it when the first argument is a package URL).",
            show_default=False,
        ),
    ] = None,
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
    from pkgintel.api.schemas.wire import report_wire
    from pkgintel.bootstrap import build_runtime
    from pkgintel.domain.names import validate_name
    from pkgintel.services.briefs import render_prompt
    from pkgintel.worker_host import load_shipped

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
    from pkgintel.bootstrap import prepare_database
    from pkgintel.services.names import NameService
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


FAIL_ON = ("low", "medium", "high", "critical", "malicious")


@app.command()
def scan(
    path: Annotated[Path, typer.Argument(help="Lockfile or manifest to audit.")],
    fmt: Annotated[str, typer.Option("--format", help="native, cyclonedx or spdx.")] = "native",
    fail_on: Annotated[
        str,
        typer.Option(
            help="Exit 1 on a finding at or above: low, medium, high, critical, malicious."
        ),
    ] = "high",
    kind: Annotated[str | None, typer.Option(help="Lockfile kind (default: detected).")] = None,
    server: Annotated[
        str | None, typer.Option(help="Send the file to a running service instead (base URL).")
    ] = None,
    fail_on_stale: Annotated[
        bool,
        typer.Option(
            "--fail-on-stale",
            help="Exit 2 when the vulnerability data is not complete: stale (older than "
            "PKGINTEL_ADVISORY_STALE_AFTER_S / PKGINTEL_ADVISORY_DATA_STALE_AFTER_S) or partial. "
            "Without it such data is only a warning on stderr.",
        ),
    ] = False,
) -> None:
    """
    Audit a lockfile against the local database (offline) or a service (--server).

    Exit codes: 0 nothing at or above --fail-on; 1 findings; 2 the tool failed (bad file or
    arguments, no vulnerability data for the ecosystem, service unreachable) or, with
    --fail-on-stale, the vulnerability data is stale or partial. Stale or partial data is always
    a warning on stderr naming the feeds and the date of their data. Advisories without a
    severity count as high (not known to be lower).
    """
    from pkgintel.services.audit import SEVERITY_RANK, worst_rank

    if fmt not in ("native", "cyclonedx", "spdx") or fail_on not in FAIL_ON:
        err.print(
            "[red]error:[/red] --format is native|cyclonedx|spdx; --fail-on is " + "|".join(FAIL_ON)
        )
        raise typer.Exit(2)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        err.print(f"[red]error:[/red] cannot read {path}: {exc}")
        raise typer.Exit(2) from exc
    body = {"lockfile": text, "lockfile_kind": kind, "filename": path.name, "format": "native"}
    document: dict[str, Any] | None = None
    if server:
        native = _scan_remote(server, body)
        if fmt != "native":
            document = _scan_remote(server, {**body, "format": fmt})
    else:
        native, document = asyncio.run(_scan_local(text, kind, path.name, fmt))
    summary = native["summary"]
    typer.echo(
        orjson.dumps(document if fmt != "native" else native, option=orjson.OPT_INDENT_2).decode()
    )
    counts = summary["vulnerabilities"]
    err.print(
        f"{native['kind']}: {summary['packages']} packages, {summary['unresolved']} unresolved; "
        f"advisories: {counts}; malicious: {summary['malicious']}; data: {summary['vulnerability_data']}"
    )
    if summary["vulnerability_data"] == "unavailable" and summary["resolved"]:
        err.print(
            f"[red]error:[/red] no vulnerability data for {native['ecosystem']}: load it with pkgintel ingest"
        )
        raise typer.Exit(2)
    warning = data_warning(summary)
    if warning is not None:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}", highlight=False, soft_wrap=True)
        if fail_on_stale:
            err.print("[red]error:[/red] --fail-on-stale: the vulnerability data is not complete")
            raise typer.Exit(2)
    raise typer.Exit(1 if worst_rank(native["packages"]) >= SEVERITY_RANK[fail_on] else 0)


def data_warning(summary: Mapping[str, Any]) -> str | None:
    """The stderr warning for a scan summary whose `vulnerability_data` is `stale` or `partial`:
    the feeds and the date of their data; None when it is `complete` (or `unavailable`, which is
    an error of its own)."""
    status = summary.get("vulnerability_data")
    if status not in ("stale", "partial"):
        return None
    feeds = [
        f"{s.get('name')} as of {str(s.get('as_of') or 'an unknown date')[:10]}"
        + (f" (loaded {str(s['fetched_at'])[:10]})" if s.get("fetched_at") else "")
        for s in summary.get("vulnerability_data_sources") or []
        if isinstance(s, Mapping)
    ]
    what = (
        "the vulnerability data is partial (an ingestion did not finish; advisories may be missing)"
        if status == "partial"
        else "the vulnerability data is stale: recent advisories may be missing"
    )
    return (
        what
        + (f"; {', '.join(feeds)}" if feeds else "")
        + ". Refresh it with pkgintel ingest; --fail-on-stale makes this an error."
    )


def _scan_remote(server: str, body: Mapping[str, object]) -> dict[str, Any]:
    try:
        resp = httpx.post(f"{server.rstrip('/')}/api/scan", json=body, timeout=60)
    except httpx.HTTPError as exc:
        err.print(f"[red]error:[/red] {server} unreachable: {exc}")
        raise typer.Exit(2) from exc
    if resp.status_code != 200:
        err.print(f"[red]error:[/red] {resp.status_code}: {resp.text[:500]}")
        raise typer.Exit(2)
    answer: dict[str, Any] = resp.json()
    return answer


async def _scan_local(
    text: str, kind: str | None, filename: str, fmt: str
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    from datetime import UTC, datetime

    from pkgintel import __version__
    from pkgintel.bootstrap import build_runtime
    from pkgintel.lockfiles import parse_lockfile
    from pkgintel.services.audit import to_sbom

    settings = Settings(osv_api_fallback=False)
    try:
        parsed = parse_lockfile(text, kind=kind, filename=filename)
    except PkgIntelError as exc:
        line = getattr(exc, "line", None)
        err.print(f"[red]error:[/red] {exc.message}" + (f" (line {line})" if line else ""))
        raise typer.Exit(2) from exc
    async with build_runtime(settings) as runtime:
        result = await runtime.audit.audit(parsed)
    native = {
        "kind": parsed.kind,
        "ecosystem": parsed.ecosystem.value,
        "summary": result.summary,
        "packages": list(result.packages),
        "warnings": list(result.warnings),
    }
    document = None
    if fmt != "native":
        document = to_sbom(
            parsed,
            result,
            fmt,
            name=filename,
            created=datetime.now(UTC).replace(microsecond=0),
            tool_version=__version__,
        )
    return native, document


def _version(value: bool) -> None:
    if value:
        from pkgintel import __version__

        typer.echo(f"pkgintel {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """pkgintel: package intelligence for AI coding agents."""


def settings_error_lines(exc: ValidationError) -> list[str]:
    """One line per bad setting: the variable, the value given and what is allowed."""
    lines = []
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "settings"
        variable = f"PKGINTEL_{field.split('.')[0].upper()}"
        given = os.environ.get(variable, error.get("input"))
        message = str(error["msg"]).removeprefix("Value error, ")
        lines.append(f"error: bad setting {variable}={given!s}: {message}")
    return lines


def main() -> None:
    """Console-script entry point. A bad setting prints one line per setting and exits 2."""
    try:
        app()
    except ValidationError as exc:
        if exc.title != "Settings":
            raise
        for line in settings_error_lines(exc):
            sys.stderr.write(line + "\n")
        sys.exit(2)
    except SettingsError as exc:
        found = re.search(r'field "(\w+)"', str(exc))
        variable = f"PKGINTEL_{found.group(1).upper()}" if found else "a PKGINTEL_ variable"
        given = os.environ.get(variable, "")
        sys.stderr.write(
            f"error: bad setting {variable}={given}: not valid JSON (this setting is a JSON list or object)\n"
        )
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
