"""Tool argument types shared by the tools, with the same limits as the HTTP endpoints' parameters."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, WithJsonSchema

from pkgintel.domain.packages import Ecosystem

ECOSYSTEM_IDS = [e.value for e in Ecosystem]

EcosystemArg = Annotated[
    Ecosystem,
    WithJsonSchema(
        {
            "type": "string",
            "enum": ECOSYSTEM_IDS,
            "description": "Ecosystem identifier (npm, pypi, cargo, go, maven, ...).",
        }
    ),
]
"""An ecosystem, its 19 identifiers inlined as an enum (no `$ref`: some clients do not follow them)."""

OptionalEcosystemArg = Annotated[
    Ecosystem | None,
    WithJsonSchema(
        {
            "anyOf": [{"type": "string", "enum": ECOSYSTEM_IDS}, {"type": "null"}],
            "description": "Ecosystem identifier; detected from the lockfile when one is sent.",
        }
    ),
]

PackageArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=214,
        description="Package name as the registry spells it; scoped npm names as `@scope/name`.",
    ),
]

VersionArg = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=128,
        description="Answer for this version (default: the latest).",
    ),
]

EcosystemFilterArg = Annotated[
    Ecosystem | None,
    WithJsonSchema(
        {
            "anyOf": [{"type": "string", "enum": ECOSYSTEM_IDS}, {"type": "null"}],
            "description": "Only this ecosystem (default: every ecosystem).",
        }
    ),
]
"""An optional ecosystem filter (trending), the identifiers inlined as an enum."""
