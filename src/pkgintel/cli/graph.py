"""
`pkgintel snapshot`: record today's health snapshot of the packages asked about recently and those
already tracked (what the `health-snapshots` cron job does), or of the packages named with
`--package ecosystem/name`. One bad package never stops the run: what could not be recorded is listed
(a tracked package gone upstream is marked gone, its history kept). Exit codes: 0 something was
done, 1 nothing at all could be done (or the run could not start), 2 bad usage.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import typer

from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem, resolve_ecosystem

if TYPE_CHECKING:
    from pkgintel.services.reports.history import SnapshotRun


def _parse(items: list[str]) -> list[tuple[Ecosystem, str]]:
    out: list[tuple[Ecosystem, str]] = []
    for item in items:
        eco, sep, name = item.partition("/")
        try:
            ecosystem = resolve_ecosystem(eco)
        except PkgIntelError as exc:
            raise typer.BadParameter(f"{item!r}: {exc.message}") from None
        if not sep or not name:
            raise typer.BadParameter(f"{item!r}: expected ecosystem/name, e.g. npm/express")
        try:
            out.append((ecosystem, validate_name(ecosystem, name)))
        except PkgIntelError as exc:
            raise typer.BadParameter(f"{item!r}: {exc.message}") from None
    return out


def snapshot(
    package: Annotated[
        list[str] | None,
        typer.Option(
            "--package",
            "-p",
            help="ecosystem/name to snapshot (repeatable); default: packages asked about recently and those tracked.",
        ),
    ] = None,
) -> None:
    """Record today's health snapshot (score, breakdown, vulnerability counts, latest version)."""
    from pkgintel.runtime.bootstrap import build_runtime

    targets = _parse(package or [])

    async def _run() -> SnapshotRun:
        async with build_runtime(Settings()) as runtime:
            assert runtime.graph is not None
            return await runtime.graph.history.run(targets or None)

    try:
        run = asyncio.run(_run())
    except PkgIntelError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    for key, why in run.failed.items():
        typer.echo(f"{key}: not recorded: {why}", err=True)
    for key, since in run.gone.items():
        typer.echo(f"{key}: gone upstream since {since}; history kept", err=True)
    summary = f"health snapshots: {run.recorded} of {run.packages} recorded"
    if run.gone:
        summary += f", {len(run.gone)} marked gone"
    if run.failed:
        summary += f", {len(run.failed)} not recorded"
    typer.echo(f"{summary} in {run.seconds:.1f} s")
    if run.packages and not run.recorded and not run.gone:
        raise typer.Exit(1)
