"""
One table from domain error to HTTP answer. Validation problems answer 422 with FastAPI's standard
body; everything else is RFC 9457 problem details (`application/problem+json`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from pkgintel.domain.errors import (
    AccountNotFound,
    DatabaseUnavailable,
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
from pkgintel.domain.ops import (
    AdminAccessDenied,
    IllegalTransition,
    JobAlreadyRunning,
    OpsNotFound,
    OpsUnavailable,
)
from pkgintel.sources.errors import AdvisoryNotFound, InvalidSourceData
from pkgintel.storage.outage import database

logger = logging.getLogger(__name__)

PROBLEM_BASE = "https://pkgintel.dev/problems/"
_HTTP_TITLES = {
    400: "Bad request",
    404: "Not found",
    405: "Method not allowed",
    413: "Body too large",
    415: "Unsupported media type",
}
DEFAULT_RETRY_AFTER = 30


def _scrub(value: Any) -> Any:
    """`value` with bytes and strings that are not valid UTF-8 (lone surrogates) made printable."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {str(_scrub(k)): _scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_scrub(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return _scrub(str(value))


def dump_json(body: Any) -> bytes:
    """JSON bytes of `body`; input echoed back (bytes, lone surrogates) never breaks the encoder."""
    try:
        return orjson.dumps(body)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(_scrub(body), ensure_ascii=False).encode("utf-8")


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
        dump_json(body),
        status_code=status,
        media_type="application/problem+json",
        headers=headers,
    )


def validation_error(field: str, message: str, value: Any, *, where: str = "path") -> Response:
    """A 422 shaped exactly like FastAPI's own request-validation body."""
    body = {
        "detail": [{"type": "value_error", "loc": [where, field], "msg": message, "input": value}]
    }
    return Response(dump_json(body), status_code=422, media_type="application/json")


def _locate(field: str, request: Request | None) -> tuple[str, Any]:
    """Where a request carried `field` (query, path, header or body) and the value it had."""
    if request is None:
        return "body", None
    if field in request.query_params:
        return "query", request.query_params.get(field)
    if field in request.path_params:
        return "path", request.path_params.get(field)
    if field in request.headers:
        return "header", request.headers.get(field)
    return "body", None


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


def arguments_problem(
    errors: Sequence[Mapping[str, Any]], *, strip: tuple[str, ...] = ()
) -> Problem:
    """
    A 422 problem for arguments that failed validation (pydantic's `errors()`): `detail` names each
    field and its rule in one sentence, `field` is the first field, and `errors` lists every one as
    `{field, loc, msg, type}` like the JSON API's 422 body (without the rejected values: they are
    the caller's data, and may be a whole lockfile). Leading `loc` parts in `strip` (`body`,
    `query`) are left out of `field`. Used for MCP tool arguments.
    """
    items: list[dict[str, Any]] = []
    for error in errors:
        loc = [part for part in error.get("loc", ()) if not isinstance(part, str) or part]
        while loc and loc[0] in strip:
            loc = loc[1:]
        name = ".".join(str(part) for part in loc) or "arguments"
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        items.append({"field": name, "loc": loc, "msg": message, "type": error.get("type")})
    detail = "; ".join(f"{item['field']}: {item['msg']}" for item in items) or "invalid arguments"
    first = items[0]["field"] if items else "arguments"
    return Problem(
        422, "Invalid input", detail, "invalid-input", {"field": first, "errors": _scrub(items)}
    )


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
    if isinstance(exc, AccountNotFound):
        return Problem(
            404,
            "Account not found",
            exc.message,
            "account-not-found",
            {"platform": exc.platform, "username": exc.login},
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
    if isinstance(exc, DatabaseUnavailable):
        return Problem(
            503,
            "Database unavailable",
            exc.message,
            "database-unavailable",
            {"retry_after": exc.retry_after},
            headers={"Retry-After": str(exc.retry_after)},
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
        where, value = _locate(exc.field, request)
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
    if isinstance(exc, JobAlreadyRunning):
        return problem(
            409,
            "Already running",
            exc.message,
            kind="already-running",
            job_id=exc.job_id,
            job_status=exc.status,
        )
    return problem(409, "Cannot run now", exc.message, kind="unavailable")


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping, plus a last-resort handler so nothing answers a bare 500 page."""

    async def _domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PkgIntelError)
        if isinstance(exc, StorageError) and not isinstance(exc, DatabaseUnavailable):
            exc = database.classify(exc) or exc  # a store's wrapped connection failure
        return error_response(exc, request)

    async def _invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        errors = [{k: v for k, v in error.items() if k != "url"} for error in exc.errors()]
        return Response(
            dump_json({"detail": errors}), status_code=422, media_type="application/json"
        )

    async def _http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = exc.detail if isinstance(exc.detail, str) else "the request cannot be answered"
        if exc.status_code == 400 and "parsing the body" in detail:
            detail = "the body cannot be read as JSON text (it must be UTF-8)"
        return problem(
            exc.status_code,
            _HTTP_TITLES.get(exc.status_code, "Request failed"),
            detail,
            kind=f"http-{exc.status_code}",
            headers=dict(exc.headers) if exc.headers else None,
        )

    async def _unexpected(request: Request, exc: Exception) -> Response:
        logger.exception("unhandled error on %s", request.url.path)
        return problem(500, "Internal error", "an unexpected error occurred", kind="internal")

    app.add_exception_handler(PkgIntelError, _domain)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http)
    app.add_exception_handler(Exception, _unexpected)
