"""
`pkgintel doctor`: check this installation and say what to do about each problem.

A composition root like `cli/main.py`. Checks and statuses: `services/operations/doctor.py` and `domain/operations/doctor.py`.
Exit codes: 0 healthy (no check fails; warnings allowed), 1 a check fails (a bad setting included:
the doctor reports it rather than stopping), 2 bad usage.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated

import orjson
import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pkgintel import __version__
from pkgintel.cli.args import table_console
from pkgintel.config import Settings
from pkgintel.domain.operations.doctor import DoctorReport, Finding, Status

STYLES = {Status.OK: "green", Status.INFO: "blue", Status.WARN: "yellow", Status.FAIL: "bold red"}


def run_doctor(timeout_s: float | None = None) -> DoctorReport:
    """Load the settings and run every check; a bad setting is a finding, not an exit."""
    from pkgintel.runtime.bootstrap import open_doctor
    from pkgintel.runtime.doctor_wiring import settings_error_findings

    try:
        settings = Settings()
    except (ValidationError, SettingsError) as exc:
        findings = [
            *settings_error_findings(exc),
            Finding(
                "configuration",
                "other checks",
                Status.INFO,
                "skipped: nothing else can be checked until the settings load",
            ),
        ]
        return DoctorReport(tuple(findings), datetime.now(UTC), __version__)

    async def _run() -> DoctorReport:
        async with open_doctor(settings, timeout_s=timeout_s) as doctor:
            return await doctor.run()

    return asyncio.run(_run())


def render_table(report: DoctorReport) -> Table:
    """The report as a table: status, area, check, detail (with the time taken), what to do."""
    table = Table("status", "area", "check", "detail", "what to do", show_lines=False)
    for f in report.findings:
        took = "" if f.elapsed_ms is None else f" ({f.elapsed_ms:.0f} ms)"
        # Text, not markup: `PKGINTEL_NAME_LISTS[pypi]` and paths must print as they are.
        table.add_row(
            Text(f.status.value, style=STYLES[f.status]),
            Text(f.area),
            Text(f.check),
            Text(f.detail + took),
            Text(f.fix or ""),
        )
    return table


def summary_line(report: DoctorReport) -> str:
    counts = report.wire()["counts"]
    tally = ", ".join(f"{counts[s.value]} {s.value}" for s in Status)
    if report.healthy:
        return f"healthy: {tally}"
    return f"unhealthy: {tally}; each failing check says what to do"


def doctor(
    fmt: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
    timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            max=60.0,
            help="Seconds each upstream may take (default: PKGINTEL_UPSTREAM_TIMEOUT_S, at most 5).",
        ),
    ] = None,
) -> None:
    """
    Check the configuration, the database and its migrations, Redis, every upstream (one request
    each), the age of every advisory feed and name index, and the job queue; print what to do for
    each problem. Exit codes: 0 healthy, 1 a check fails, 2 bad usage.
    """
    if fmt not in ("table", "json"):
        Console(stderr=True).print("[red]error:[/red] --format is table|json")
        raise typer.Exit(2)
    report = run_doctor(timeout)
    if fmt == "json":
        typer.echo(orjson.dumps(report.wire(), option=orjson.OPT_INDENT_2).decode())
    else:
        out = table_console()  # made here, so it measures the terminal (or COLUMNS) of this run
        out.print(render_table(report))
        out.print(
            Text(summary_line(report), style="green" if report.healthy else "bold red"),
            soft_wrap=True,
        )
    raise typer.Exit(report.exit_code)
