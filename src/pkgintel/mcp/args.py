"""Tool argument types shared by the tools, with the same limits as the HTTP endpoints' parameters."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from pydantic import Field, WithJsonSchema

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.limits import MAX_NAME_CHARS, MAX_VERSION_CHARS
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.purl import MAX_PURL_CHARS, purl_target

ECOSYSTEM_IDS = [e.value for e in Ecosystem]

EcosystemArg = Annotated[
    Ecosystem,
    WithJsonSchema(
        {
            "type": "string",
            "enum": ECOSYSTEM_IDS,
            "description": "Ecosystem identifier (npm, pypi, cargo, go, maven, ...; any case, and "
            "aliases such as PyPI, crates.io, golang, gem, packagist).",
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
        max_length=MAX_NAME_CHARS,
        description="Package name as the registry spells it; scoped npm names as `@scope/name`.",
    ),
]

VersionArg = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_VERSION_CHARS,
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


# -- a package named by its Package URL, as an alternative to `ecosystem` + `package`

PURL_DESCRIPTION = (
    "Instead of `ecosystem` and `package`: the package as a Package URL, e.g. "
    "`pkg:npm/lodash@4.17.15`, `pkg:pypi/requests`, `pkg:maven/org.slf4j/slf4j-api`; its version, "
    "when it has one, is the version answered for."
)

# The schemas below leave out `null`: an argument that is not given is left out, as with `version`.
PurlArg = Annotated[
    str | None,
    Field(min_length=5, max_length=MAX_PURL_CHARS),
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 5,
            "maxLength": MAX_PURL_CHARS,
            "description": PURL_DESCRIPTION,
        }
    ),
]

EcosystemOrPurlArg = Annotated[
    Ecosystem | None,
    WithJsonSchema(
        {
            "type": "string",
            "enum": ECOSYSTEM_IDS,
            "description": "Ecosystem identifier (npm, pypi, cargo, go, maven, ...; any case, and "
            "aliases such as PyPI, crates.io, golang, gem, packagist); required unless `purl` is given.",
        }
    ),
]

PackageOrPurlArg = Annotated[
    str | None,
    Field(min_length=1, max_length=MAX_NAME_CHARS),
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_NAME_CHARS,
            "description": "Package name as the registry spells it; scoped npm names as "
            "`@scope/name`. Required unless `purl` is given.",
        }
    ),
]

PURL_PARAM = "purl"
_NAMED_BY = ("ecosystem", "package")


def named_by_purl(parameters: list[inspect.Parameter]) -> list[inspect.Parameter] | None:
    """
    The published parameters of a tool whose package may be named by a purl: those of a tool with
    required `ecosystem` and `package` parameters, with both made optional and `purl` added (every
    parameter keyword-only, as the SDK passes them). None for any other tool.
    """
    by_name = {p.name: p for p in parameters}
    if any(
        n not in by_name or by_name[n].default is not inspect.Parameter.empty for n in _NAMED_BY
    ):
        return None
    if PURL_PARAM in by_name:
        return None
    replaced = {"ecosystem": EcosystemOrPurlArg, "package": PackageOrPurlArg}
    out = [
        p.replace(
            kind=inspect.Parameter.KEYWORD_ONLY,
            annotation=replaced.get(p.name, p.annotation),
            default=None if p.name in replaced else p.default,
        )
        for p in parameters
    ]
    out.append(
        inspect.Parameter(
            PURL_PARAM, inspect.Parameter.KEYWORD_ONLY, annotation=PurlArg, default=None
        )
    )
    return out


def resolve_purl_arguments(
    arguments: dict[str, Any], *, takes_version: bool, tool: str
) -> dict[str, Any]:
    """
    The arguments of a `named_by_purl` tool as the tool function takes them: `purl` turned into
    `ecosystem`, `package` (and `version`, see `domain.purl.purl_target`). Raises `InvalidInput`
    when the package is named both ways, by neither, or by an unusable purl.
    """
    args = dict(arguments)
    purl = args.pop(PURL_PARAM, None)
    if purl is None:
        missing = [n for n in _NAMED_BY if args.get(n) is None]
        if missing:
            raise InvalidInput(
                missing[0], "name the package with `ecosystem` and `package`, or with `purl`"
            )
        return args
    if any(args.get(n) is not None for n in _NAMED_BY):
        raise InvalidInput("purl", "give either `purl` or `ecosystem` and `package`, not both")
    ref = purl_target(
        purl, args.get("version"), takes_version=takes_version, answer=f"the tool {tool}"
    )
    args["ecosystem"], args["package"] = ref.ecosystem, ref.name
    if takes_version:
        args["version"] = ref.version
    return args
