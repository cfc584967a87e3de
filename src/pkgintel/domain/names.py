"""Package-name rules per ecosystem: validation and normalisation (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.packages import Ecosystem

MAX_NAME_LENGTH = 214
"""npm's limit, the tightest of the big registries; longer names exist nowhere we serve."""

_PEP503 = re.compile(r"[-_.]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NPM_NAME = re.compile(r"^(?:@[a-z0-9~][a-z0-9._~-]*/)?[a-zA-Z0-9~][a-zA-Z0-9._~-]*$")
_PYPI_NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)


def normalise_name(ecosystem: Ecosystem, name: str) -> str:
    """
    The key under which a name is stored and compared.

    PyPI: PEP 503 (`Django_Rest.Framework` → `django-rest-framework`). npm: unchanged (names are
    case-sensitive; scopes kept). Others: unchanged until their adapters define a rule.
    """
    if ecosystem is Ecosystem.PYPI:
        return _PEP503.sub("-", name).lower()
    return name


def validate_name(ecosystem: Ecosystem, name: str) -> str:
    """
    Return `name` stripped, or raise `InvalidInput` when it cannot be a package name of `ecosystem`.

    Empty, overlong or control-character names are refused for every ecosystem; npm and PyPI names
    must also match their registry's grammar (npm legacy names with capitals are accepted).
    """
    cleaned = name.strip()
    if not cleaned:
        raise InvalidInput("package", "package name is empty")
    if len(cleaned) > MAX_NAME_LENGTH:
        raise InvalidInput("package", f"package name is longer than {MAX_NAME_LENGTH} characters")
    if _CONTROL.search(cleaned):
        raise InvalidInput("package", "package name contains control characters")
    if ecosystem is Ecosystem.NPM and not _NPM_NAME.match(cleaned):
        raise InvalidInput("package", f"{cleaned!r} is not a valid npm package name")
    if ecosystem is Ecosystem.PYPI and not _PYPI_NAME.match(cleaned):
        raise InvalidInput("package", f"{cleaned!r} is not a valid PyPI project name (PEP 508)")
    return cleaned


@dataclass(frozen=True, slots=True)
class NameEntry:
    """One row of an ecosystem's name index."""

    ecosystem: Ecosystem
    name: str
    """Normalised key (see `normalise_name`)."""
    display_name: str
    latest_version: str | None = None
    monthly_downloads: int | None = None
    popularity_rank: int | None = None
    """1 = most downloaded, when the source ranks packages."""
    summary: str | None = None
    source: str = "ingest"
    """`ingest` (a loaded name list) or `live` (seen by a live report)."""


@dataclass(frozen=True, slots=True)
class NameIndexState:
    """Whether (and from where) an ecosystem's name index has been loaded."""

    ecosystem: Ecosystem
    source: str
    loaded_at: datetime
    names_count: int
