"""Typer parameter parsers shared by the CLI commands (the same rules as the JSON API's)."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Final

import typer
from rich.console import Console

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem, PackageRef, resolve_ecosystem
from pkgintel.domain.purl import purl_target

ECOSYSTEM_HELP: Final = (
    "Ecosystem id (npm, pypi, cargo, go, maven, ...), in any case, or an alias "
    "(PyPI, crates.io, golang, gem, packagist, ...; docs/api.md, Ecosystem names)."
)


PIPE_WIDTH: Final = 160
"""Columns of a table written to a file or a pipe (rich's own default, 80, folds every cell)."""


def table_console(*, highlight: bool = True) -> Console:
    """A console for stdout tables: the terminal's width (or `COLUMNS`) when there is one, else
    `PIPE_WIDTH`, so a report saved to a file or a CI log stays one line per row."""
    piped = not sys.stdout.isatty() and not os.environ.get("COLUMNS")
    return Console(highlight=highlight, width=PIPE_WIDTH if piped else None)


def parse_ecosystem(text: str | Ecosystem) -> Ecosystem:
    """The ecosystem a command-line value names (`domain.packages.resolve_ecosystem`); a bad one
    is a usage error (exit 2) listing the accepted names."""
    if isinstance(text, Ecosystem):
        return text
    try:
        return resolve_ecosystem(text)
    except InvalidInput as exc:
        raise typer.BadParameter(exc.message) from None


PACKAGE_TARGET_HELP: Final = (
    "Ecosystem id (npm, pypi, cargo, go, maven, ...), in any case, or an alias (PyPI, crates.io, "
    "golang, gem, packagist, ...; docs/api.md, Ecosystem names); or a Package URL naming the "
    "package, e.g. pkg:npm/lodash@4.17.15 or pkg:maven/org.slf4j/slf4j-api (then no PACKAGE)."
)

TargetArgument = Annotated[
    str, typer.Argument(metavar="ECOSYSTEM|PURL", help=PACKAGE_TARGET_HELP, show_default=False)
]
"""The first argument of a command about one package: an ecosystem, or a package URL."""
PackageArgument = Annotated[
    str | None,
    typer.Argument(
        metavar="PACKAGE",
        help="Package name (omit it when the first argument is a package URL).",
        show_default=False,
    ),
]
"""The package name after an ecosystem (absent after a package URL)."""


def parse_package_target(target: str, package: str | None, version: str | None) -> PackageRef:
    """
    The package (and version) named on a command line either as `ECOSYSTEM PACKAGE [--version V]`
    or as one Package URL `pkg:...` with no PACKAGE (`domain.purl.purl_target`: the purl's version
    is the version asked for; a `--version` beside it must be the same). Anything else is a usage
    error (exit 2) naming the argument: a purl and a PACKAGE both, no PACKAGE after an ecosystem,
    an unreadable purl or one of a type served by no ecosystem here, or a conflicting `--version`.
    """
    if target.strip().lower().startswith("pkg:"):
        if package is not None:
            raise typer.BadParameter(
                f"give either a package URL or ECOSYSTEM PACKAGE, not both (got {package!r} after "
                "the package URL)",
                param_hint="'PACKAGE'",
            )
        try:
            return purl_target(target, version, takes_version=True, answer="pkgintel check")
        except InvalidInput as exc:
            hint = "'--version'" if exc.field == "version" else "'ECOSYSTEM|PURL'"
            raise typer.BadParameter(exc.message, param_hint=hint) from None
    try:
        ecosystem = resolve_ecosystem(target)
    except InvalidInput as exc:
        raise typer.BadParameter(exc.message, param_hint="'ECOSYSTEM|PURL'") from None
    if package is None:
        raise typer.BadParameter(
            "missing: give ECOSYSTEM PACKAGE (e.g. npm lodash) or one package URL "
            "(e.g. pkg:npm/lodash@4.17.15)",
            param_hint="'PACKAGE'",
        )
    return PackageRef(ecosystem, package, version)
