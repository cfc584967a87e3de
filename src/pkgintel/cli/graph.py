"""
`pkgintel tree`: the dependency tree of one package as JSON, the answer of `/api/tree` (the same
`application.trees.tree_answer`); an ecosystem without a tree (Swift) is a usage error (exit 2) whose
message says why, as the API's 422 does; a package that cannot be had exits 1.

`pkgintel snapshot`: record today's health snapshot of the packages asked about recently and those
already tracked (what the `health-snapshots` cron job does), or of the packages named with
`--package ecosystem/name`. One bad package never stops the run: what could not be recorded is listed
(a tracked package gone upstream is marked gone, its history kept). Exit codes: 0 something was
done, 1 nothing at all could be done (or the run could not start), 2 bad usage.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated

import orjson
import typer

from pkgintel.cli.args import PackageArgument, TargetArgument, parse_package_target
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


def tree(
    target: TargetArgument,
    package: PackageArgument = None,
    version: Annotated[
        str | None, typer.Option("--version", help="Resolve the tree of this version.")
    ] = None,
    max_depth: Annotated[
        int, typer.Option("--max-depth", min=1, max=10, help="Levels below the root expanded.")
    ] = 3,
    max_deps: Annotated[
        int, typer.Option("--max-deps", min=1, max=1000, help="Most dependencies listed.")
    ] = 200,
    extras: Annotated[
        str | None,
        typer.Option("--extras", help="Comma-separated extras (PyPI) or subspecs (CocoaPods)."),
    ] = None,
) -> None:
    """Print the transitive dependency tree of one package as JSON (the /api/tree answer)."""
    from pkgintel.application.trees import tree_answer
    from pkgintel.runtime.bootstrap import build_runtime

    ref = parse_package_target(target, package, version)

    async def _run() -> bytes:
        async with build_runtime(Settings()) as runtime:
            answer = await tree_answer(
                runtime,
                ref.ecosystem,
                ref.name,
                ref.version,
                max_depth=max_depth,
                max_deps=max_deps,
                extras=extras,
            )
            return orjson.dumps(answer.wire(), option=orjson.OPT_INDENT_2)

    try:
        typer.echo(asyncio.run(_run()).decode())
    except PkgIntelError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2 if exc.reason == "invalid_input" else 1) from exc
