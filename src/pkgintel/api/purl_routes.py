"""
`GET /api/<thing>?purl=<Package URL>`: the twin of every `GET /api/<thing>/{ecosystem}/{package}`
route, generated here from the route itself, so a new package route gets its twin without code.

Contract of a twin:

- same answer, response model, responses, tags and query parameters as its route; the package is
  named by the required `purl` query parameter (`pkg:npm/lodash@4.17.15`, parsed by
  `domain.purl.parse_purl`: npm scopes, Maven groups, Go module paths, Composer vendors, the Conda
  channel qualifier) instead of the two path parameters;
- the purl's version is the route's `version` query parameter (`domain.purl.purl_target`). A
  `version` given as well must be the same (else a 422 naming `version`). A route without a
  `version` parameter answers for the package as a whole or for its latest release, so a versioned
  purl there is a 422 naming `purl` rather than an answer about another version than the one asked;
- a malformed purl, or one of a type no ecosystem here has, is a 422 naming `purl`;
- no twin where the path is already taken (`/api/health` is the liveness probe, `/api/breaking` the
  sample of recent breaking changes); those answers are reached with their path form only;
- the call is recorded in the usage log with the purl's ecosystem and package, like the path form.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any, Final

from fastapi import APIRouter, Query, Request
from fastapi.dependencies.utils import get_typed_signature
from fastapi.routing import APIRoute

from pkgintel.domain.purl import MAX_PURL_CHARS, purl_target

PACKAGE_SUFFIX: Final = "/{ecosystem}/{package:path}"
"""The path tail of the routes that get a twin."""

PurlQuery = Annotated[
    str,
    Query(
        min_length=5,
        max_length=MAX_PURL_CHARS,
        description="The package as a Package URL (https://github.com/package-url/purl-spec), e.g. "
        "`pkg:npm/lodash@4.17.15`, `pkg:npm/%40types/node`, `pkg:maven/org.slf4j/slf4j-api`, "
        "`pkg:golang/github.com/gorilla/mux`. Its version, when it has one, is the version answered for.",
        examples=["pkg:npm/lodash@4.17.15"],
    ),
]

_KEYWORD: Final = inspect.Parameter.KEYWORD_ONLY
_REQUEST: Final = "request"


def purl_twin_router(routers: Iterable[APIRouter]) -> APIRouter:
    """A router holding the purl twin of every eligible GET route of `routers` (module docstring)."""
    routes = [r for router in routers for r in router.routes if isinstance(r, APIRoute)]
    taken = {r.path for r in routes if "GET" in (r.methods or ())}
    twins = APIRouter()
    for route in routes:
        path = route.path.removesuffix(PACKAGE_SUFFIX)
        if (
            "GET" not in (route.methods or ())
            or not route.path.startswith("/api/")
            or path == route.path
            or path in taken
        ):
            continue
        taken.add(path)
        twins.add_api_route(
            path,
            twin_endpoint(route.endpoint, path_form=route.path.replace(":path", "")),
            methods=["GET"],
            response_model=route.response_model,
            response_class=route.response_class,
            status_code=route.status_code,
            tags=list(route.tags),
            summary=f"{route.summary or route.name} (by Package URL)",
            description=(route.description or "")
            + f"\n\nThe package is named by its Package URL; same answer as `GET {route.path.replace(':path', '')}`.",
            responses=dict(route.responses),
            name=f"{route.name}_by_purl",
            include_in_schema=route.include_in_schema,
        )
    return twins


def twin_endpoint(
    endpoint: Callable[..., Awaitable[Any]], *, path_form: str
) -> Callable[..., Awaitable[Any]]:
    """
    `endpoint` with its `ecosystem` and `package` parameters replaced by a `purl` query parameter
    (every other parameter, dependency and default kept, so FastAPI documents and fills them alike).
    """
    signature = get_typed_signature(endpoint)
    params = signature.parameters
    takes_version = "version" in params
    takes_request = _REQUEST in params
    kept = [
        p.replace(kind=_KEYWORD)
        for name, p in params.items()
        if name not in ("ecosystem", "package")
    ]
    if not takes_request:
        kept.append(inspect.Parameter(_REQUEST, _KEYWORD, annotation=Request))
    kept.append(inspect.Parameter("purl", _KEYWORD, annotation=PurlQuery))

    async def twin(**kwargs: Any) -> Any:
        request: Request = kwargs[_REQUEST] if takes_request else kwargs.pop(_REQUEST)
        ref = purl_target(
            kwargs.pop("purl"),
            kwargs.get("version"),
            takes_version=takes_version,
            answer=f"GET {path_form}",
        )
        if takes_version:
            kwargs["version"] = ref.version
        # The usage log (`api/usage.py`) reads the package from the path parameters.
        request.scope.setdefault("path_params", {}).update(
            ecosystem=ref.ecosystem.value, package=ref.name
        )
        return await endpoint(ecosystem=ref.ecosystem, package=ref.name, **kwargs)

    twin.__signature__ = signature.replace(parameters=kept)  # type: ignore[attr-defined]
    twin.__name__ = f"{endpoint.__name__}_by_purl"
    twin.__qualname__ = twin.__name__
    twin.__doc__ = endpoint.__doc__
    return twin
