"""
`pkgintel snapshot`: record today's health snapshot of the packages asked about recently and those
already tracked (what the `health-snapshots` cron job does), or of the packages named with
`--package ecosystem/name`. Exit codes: 0 recorded, 1 nothing could be recorded, 2 bad usage.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.names.rules import validate_name
from pkgintel.domain.packages import Ecosystem, resolve_ecosystem


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

    async def _run() -> tuple[int, int, dict[str, str], float]:
        async with build_runtime(Settings()) as runtime:
            assert runtime.graph is not None
            history = runtime.graph.history
            run = await history.run(targets or None)
            return run.packages, run.recorded, run.failed, run.seconds

    try:
        total, recorded, failed, seconds = asyncio.run(_run())
    except PkgIntelError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from exc
    for key, why in failed.items():
        typer.echo(f"{key}: not recorded: {why}", err=True)
    typer.echo(f"health snapshots: {recorded} of {total} recorded in {seconds:.1f} s")
    if total and not recorded:
        raise typer.Exit(1)
