"""Typer parameter parsers shared by the CLI commands (the same rules as the JSON API's)."""

from __future__ import annotations

from typing import Final

import typer

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem, resolve_ecosystem

ECOSYSTEM_HELP: Final = (
    "Ecosystem id (npm, pypi, cargo, go, maven, ...), in any case, or an alias "
    "(PyPI, crates.io, golang, gem, packagist, ...; docs/api.md, Ecosystem names)."
)


def parse_ecosystem(text: str | Ecosystem) -> Ecosystem:
    """The ecosystem a command-line value names (`domain.packages.resolve_ecosystem`); a bad one
    is a usage error (exit 2) listing the accepted names."""
    if isinstance(text, Ecosystem):
        return text
    try:
        return resolve_ecosystem(text)
    except InvalidInput as exc:
        raise typer.BadParameter(exc.message) from None
