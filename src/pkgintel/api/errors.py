"""
One table from domain error to HTTP answer. Validation problems answer 422 with FastAPI's standard
body; everything else is RFC 9457 problem details (`application/problem+json`).
"""

from __future__ import annotations

import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

from pkgintel.domain.errors import (
    EcosystemNotSupported,
    InvalidInput,
    LockfileError,
    PackageNotFound,
    PkgIntelError,
    RegistryResponseInvalid,
    RegistryUnavailable,
    StorageError,
    VersionNotFound,
)
from pkgintel.sources.errors import AdvisoryNotFound, InvalidSourceData

logger = logging.getLogger(__name__)

PROBLEM_BASE = "https://pkgintel.dev/problems/"
DEFAULT_RETRY_AFTER = 30


def problem(
    status: int,
    title: str,
    detail: str,
    *,
    kind: str,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Response:
    """A problem+json response."""
    body = {
        "type": PROBLEM_BASE + kind,
        "title": title,
        "status": status,
        "detail": detail,
        **extra,
    }
    return Response(
        orjson.dumps(body),
        status_code=status,
        media_type="application/problem+json",
        headers=headers,
    )


def validation_error(field: str, message: str, value: Any, *, where: str = "path") -> Response:
    """A 422 shaped exactly like FastAPI's own request-validation body."""
    body = {
        "detail": [{"type": "value_error", "loc": [where, field], "msg": message, "input": value}]
    }
    return Response(orjson.dumps(body), status_code=422, media_type="application/json")


def error_response(exc: PkgIntelError, request: Request | None = None) -> Response:
    """Translate a domain error; this is the whole mapping."""
    if isinstance(exc, InvalidInput):
        in_query = request is not None and exc.field in request.query_params
        where = "query" if exc.field == "version" or in_query else "path"
        value = (
            request.query_params.get(exc.field)
            if request is not None and where == "query"
            else None
        )
        if value is None and request is not None:
            value = request.path_params.get(exc.field)
        return validation_error(exc.field, exc.message, value, where=where)
    if isinstance(exc, PackageNotFound):
        return problem(
            404,
            "Package not found",
            exc.message,
            kind="package-not-found",
            ecosystem=exc.ecosystem,
            package=exc.name,
            did_you_mean=exc.did_you_mean,
        )
    if isinstance(exc, VersionNotFound):
        return problem(
            404,
            "Version not found",
            exc.message,
            kind="version-not-found",
            ecosystem=exc.ecosystem,
            package=exc.name,
            version=exc.version,
            available_versions=exc.available,
        )
    if isinstance(exc, EcosystemNotSupported):
        return problem(
            501,
            "Ecosystem not supported yet",
            exc.message,
            kind="ecosystem-not-supported",
            ecosystem=exc.ecosystem,
        )
    if isinstance(exc, RegistryUnavailable | RegistryResponseInvalid):
        retry = getattr(exc, "retry_after", None) or DEFAULT_RETRY_AFTER
        return problem(
            503,
            "Upstream registry unavailable",
            f"{exc.message}; no cached copy exists. Try again later.",
            kind="upstream-unavailable",
            headers={"Retry-After": str(retry)},
            ecosystem=exc.ecosystem,
            source=exc.source,
            reason=exc.reason,
            retry_after=retry,
        )
    if isinstance(exc, LockfileError):
        return problem(
            422,
            "Lockfile cannot be parsed",
            exc.message,
            kind="lockfile-invalid",
            lockfile_kind=exc.kind,
            line=exc.line,
            column=exc.column,
        )
    if isinstance(exc, AdvisoryNotFound):
        return problem(
            404,
            "Advisory not found",
            exc.message,
            kind="advisory-not-found",
            source=exc.source,
            advisory_id=exc.advisory_id,
        )
    if isinstance(exc, InvalidSourceData):
        return problem(
            502,
            "Data source answered unreadable data",
            exc.message,
            kind="source-data-invalid",
            source=exc.source,
        )
    if isinstance(exc, StorageError):
        logger.error("storage error: %s", exc.message)
        return problem(
            500,
            "Storage error",
            "the database failed; the request was not completed",
            kind="storage-error",
        )
    logger.error("unmapped domain error %s: %s", exc.__class__.__name__, exc.message)
    return problem(500, "Internal error", exc.message, kind="internal")


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping, plus a last-resort handler so nothing answers a bare 500 page."""

    async def _domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PkgIntelError)
        return error_response(exc, request)

    async def _unexpected(request: Request, exc: Exception) -> Response:
        logger.exception("unhandled error on %s", request.url.path)
        return problem(500, "Internal error", "an unexpected error occurred", kind="internal")

    app.add_exception_handler(PkgIntelError, _domain)
    app.add_exception_handler(Exception, _unexpected)
