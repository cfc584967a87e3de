"""
One table from domain error to HTTP answer. Validation problems answer 422 with FastAPI's standard
body; everything else is RFC 9457 problem details (`application/problem+json`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response

from pkgintel.domain.errors import (
    EcosystemNotSupported,
    ErrorEntryNotFound,
    InvalidInput,
    LockfileError,
    PackageNotFound,
    PkgIntelError,
    RateLimited,
    RegistryResponseInvalid,
    RegistryUnavailable,
    StorageError,
    VersionNotFound,
)
from pkgintel.domain.ops import AdminAccessDenied, IllegalTransition, OpsNotFound, OpsUnavailable
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


@dataclass(frozen=True, slots=True)
class Problem:
    """What a domain error means for a caller, independent of the door it leaves by."""

    status: int
    title: str
    detail: str
    kind: str
    extra: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] | None = None

    def body(self) -> dict[str, Any]:
        """The RFC 9457 body (`type`, `title`, `status`, `detail` and the extensions)."""
        return {
            "type": PROBLEM_BASE + self.kind,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            **self.extra,
        }


def problem_for(exc: PkgIntelError) -> Problem:
    """
    Translate a domain error; this is the whole mapping, shared by the JSON API (problem+json) and the
    MCP tools (tool errors whose text is `detail`). `InvalidInput` maps to a 422 whose `detail` is the
    message (the JSON API answers it in FastAPI's validation shape instead, see `error_response`).
    """
    if isinstance(exc, InvalidInput):
        return Problem(422, "Invalid input", exc.message, "invalid-input", {"field": exc.field})
    if isinstance(exc, PackageNotFound):
        return Problem(
            404,
            "Package not found",
            exc.message,
            "package-not-found",
            {"ecosystem": exc.ecosystem, "package": exc.name, "did_you_mean": exc.did_you_mean},
        )
    if isinstance(exc, VersionNotFound):
        return Problem(
            404,
            "Version not found",
            exc.message,
            "version-not-found",
            {
                "ecosystem": exc.ecosystem,
                "package": exc.name,
                "version": exc.version,
                "available_versions": exc.available,
            },
        )
    if isinstance(exc, ErrorEntryNotFound):
        return Problem(
            404,
            "Error entry not found",
            exc.message,
            "error-entry-not-found",
            {"error_hash": exc.error_hash},
        )
    if isinstance(exc, RateLimited):
        return Problem(
            429,
            "Too many requests",
            exc.message,
            "rate-limited",
            {"retry_after": exc.retry_after, "limit": exc.limit},
            headers={"Retry-After": str(exc.retry_after)},
        )
    if isinstance(exc, EcosystemNotSupported):
        return Problem(
            501,
            "Ecosystem not supported yet",
            exc.message,
            "ecosystem-not-supported",
            {"ecosystem": exc.ecosystem},
        )
    if isinstance(exc, RegistryUnavailable | RegistryResponseInvalid):
        retry = getattr(exc, "retry_after", None) or DEFAULT_RETRY_AFTER
        return Problem(
            503,
            "Upstream registry unavailable",
            f"{exc.message}; no cached copy exists. Try again later.",
            "upstream-unavailable",
            {
                "ecosystem": exc.ecosystem,
                "source": exc.source,
                "reason": exc.reason,
                "retry_after": retry,
            },
            headers={"Retry-After": str(retry)},
        )
    if isinstance(exc, LockfileError):
        return Problem(
            422,
            "Lockfile cannot be parsed",
            exc.message,
            "lockfile-invalid",
            {"lockfile_kind": exc.kind, "line": exc.line, "column": exc.column},
        )
    if isinstance(exc, AdvisoryNotFound):
        return Problem(
            404,
            "Advisory not found",
            exc.message,
            "advisory-not-found",
            {"source": exc.source, "advisory_id": exc.advisory_id},
        )
    if isinstance(exc, InvalidSourceData):
        return Problem(
            502,
            "Data source answered unreadable data",
            exc.message,
            "source-data-invalid",
            {"source": exc.source},
        )
    if isinstance(exc, StorageError):
        logger.error("storage error: %s", exc.message)
        return Problem(
            500,
            "Storage error",
            "the database failed; the request was not completed",
            "storage-error",
        )
    logger.error("unmapped domain error %s: %s", exc.__class__.__name__, exc.message)
    return Problem(500, "Internal error", exc.message, "internal")


def error_response(exc: PkgIntelError, request: Request | None = None) -> Response:
    """A domain error as an HTTP answer: FastAPI's 422 body for `InvalidInput`, else problem+json."""
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
    if isinstance(exc, AdminAccessDenied | IllegalTransition | OpsNotFound | OpsUnavailable):
        return ops_error_response(exc)
    p = problem_for(exc)
    return problem(p.status, p.title, p.detail, kind=p.kind, headers=p.headers, **p.extra)


def ops_error_response(exc: PkgIntelError) -> Response:
    """The job system's errors (admin API): closed surface, auth, unknown ids, illegal moves."""
    if isinstance(exc, AdminAccessDenied):
        if exc.status == 404:  # closed: answer exactly as for a path that does not exist
            return Response(
                b'{"detail":"Not Found"}', status_code=404, media_type="application/json"
            )
        headers = (
            {"WWW-Authenticate": 'Bearer realm="pkgintel-admin"'} if exc.status == 401 else None
        )
        title = "Authentication required" if exc.status == 401 else "Forbidden"
        return problem(exc.status, title, exc.message, kind="admin-auth", headers=headers)
    if isinstance(exc, IllegalTransition):
        return problem(
            409,
            "Illegal status change",
            exc.message,
            kind="illegal-transition",
            current=exc.current,
            wanted=exc.wanted,
        )
    if isinstance(exc, OpsNotFound):
        return problem(404, f"Unknown {exc.what}", exc.message, kind="not-found", id=exc.ident)
    return problem(409, "Cannot run now", exc.message, kind="unavailable")


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
