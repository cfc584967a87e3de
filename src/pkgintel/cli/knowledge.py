"""
`pkgintel ingest knowledge` (curated files → database) and `pkgintel harvest releases|bugs|all|asked`
(release notes, changelogs and bug issues from GitHub for one package, or for the packages agents
asked about most). Exit codes: 0 done, 1 an upstream failed (recorded in the harvest state), 2 bad usage.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from pkgintel.cli.args import ECOSYSTEM_HELP, parse_ecosystem
from pkgintel.config import Settings
from pkgintel.domain.errors import PkgIntelError
from pkgintel.domain.packages import Ecosystem

harvest_app = typer.Typer(
    help="Grow the knowledge base from upstream data (GitHub releases, changelogs, bug issues).",
    no_args_is_help=True,
)


def _harvest(
    ecosystem: Ecosystem, package: str, repository: str | None, kinds: tuple[str, ...]
) -> None:
    from pkgintel.runtime.bootstrap import build_runtime

    async def _run() -> list[str]:
        async with build_runtime(Settings()) as runtime:
            assert runtime.knowledge is not None
            result = await runtime.knowledge.harvest.harvest(
                ecosystem, package, repository=repository, kinds=kinds
            )
            return [
                f"{ecosystem.value}/{result.package} {kind}: {state.status}"
                + (f" — {state.detail}" if state.detail else "")
                for kind, state in result.outcomes.items()
            ]

    try:
        lines = asyncio.run(_run())
    except PkgIntelError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from exc
    for line in lines:
        typer.echo(line)
    if any(": failed" in line for line in lines):
        raise typer.Exit(1)


EcoArg = Annotated[
    Ecosystem, typer.Argument(parser=parse_ecosystem, metavar="ECOSYSTEM", help=ECOSYSTEM_HELP)
]
PkgArg = Annotated[str, typer.Argument(help="Package name.")]
RepoOpt = Annotated[
    str | None,
    typer.Option(
        "--repository", help="owner/repo or GitHub URL (default: from the registry data)."
    ),
]


@harvest_app.command("releases")
def harvest_releases(ecosystem: EcoArg, package: PkgArg, repository: RepoOpt = None) -> None:
    """GitHub releases and the changelog file → per-version breaking changes."""
    _harvest(ecosystem, package, repository, ("releases",))


@harvest_app.command("bugs")
def harvest_bugs(ecosystem: EcoArg, package: PkgArg, repository: RepoOpt = None) -> None:
    """Issues labelled as bugs → known bugs (fixed-in linked from stored release notes)."""
    _harvest(ecosystem, package, repository, ("bugs",))


@harvest_app.command("all")
def harvest_all(ecosystem: EcoArg, package: PkgArg, repository: RepoOpt = None) -> None:
    """Releases, changelog and bugs of one package."""
    _harvest(ecosystem, package, repository, ("releases", "bugs"))


@harvest_app.command("asked")
def harvest_asked(
    limit: Annotated[int, typer.Option(min=1, max=500, help="How many packages.")] = 20,
    days: Annotated[
        int, typer.Option(min=1, max=90, help="Look-back window of the query log.")
    ] = 7,
) -> None:
    """Releases and bugs of the packages agents asked about most (from the usage log)."""
    from pkgintel.runtime.bootstrap import build_runtime

    async def _run() -> list[str]:
        async with build_runtime(Settings()) as runtime:
            assert runtime.knowledge is not None
            results = await runtime.knowledge.harvest.harvest_asked(limit=limit, days=days)
            return [
                f"{r.ecosystem.value}/{r.package}: "
                + ", ".join(f"{k} {s.status}" for k, s in r.outcomes.items())
                for r in results
            ]

    lines = asyncio.run(_run())
    for line in lines or ["no packages were asked about in that window"]:
        typer.echo(line)
