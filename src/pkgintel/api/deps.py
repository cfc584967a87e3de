"""`Annotated` dependencies (async, so FastAPI does not send them to a thread pool): the runtime and its services, read from `app.state` (no module singletons)."""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import Depends, Path, Query, Request

from pkgintel.api.http import ClientIdentity
from pkgintel.domain.limits import MAX_NAME_CHARS, MAX_VERSION_CHARS
from pkgintel.runtime.container import Runtime


async def get_runtime(request: Request) -> Runtime:
    return cast(Runtime, request.app.state.runtime)


async def get_identity(request: Request) -> ClientIdentity:
    return cast(ClientIdentity, request.app.state.identity)


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
IdentityDep = Annotated[ClientIdentity, Depends(get_identity)]

PackagePath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="Package name; scoped npm names as `@scope/name` or percent-encoded `%40scope%2Fname`.",
        examples=["lodash", "@types/jquery", "requests"],
    ),
]
VersionQuery = Annotated[
    str | None,
    Query(
        min_length=1,
        max_length=MAX_VERSION_CHARS,
        description="Render the answer for this version (default: latest).",
    ),
]
