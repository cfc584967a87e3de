"""
The HTTP rendering of errors: a domain error's problem (the one table, `application/problems.py`)
as RFC 9457 problem details (`application/problem+json`); `InvalidInput` and request validation as
FastAPI's standard 422 body; HTTP errors and anything unexpected as problems too (never a bare 500).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from pkgintel.application.problems import PROBLEM_BASE, problem_for, scrub
from pkgintel.domain.errors import InvalidInput, PkgIntelError
from pkgintel.domain.operations.ops import AdminAccessDenied

logger = logging.getLogger(__name__)

_HTTP_TITLES = {
    400: "Bad request",
    404: "Not found",
    405: "Method not allowed",
    413: "Body too large",
    415: "Unsupported media type",
}


def dump_json(body: Any) -> bytes:
    """JSON bytes of `body`; input echoed back (bytes, lone surrogates) never breaks the encoder."""
    try:
        return orjson.dumps(body)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(scrub(body), ensure_ascii=False).encode("utf-8")


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


def error_response(exc: PkgIntelError, request: Request | None = None) -> Response:
    """A domain error as an HTTP answer: FastAPI's 422 body for `InvalidInput`, else problem+json."""
    if isinstance(exc, InvalidInput):
        where, value = _locate(exc.field, request)
        return validation_error(exc.field, exc.message, value, where=where)
    if isinstance(exc, AdminAccessDenied) and exc.status == 404:
        # a closed admin surface answers exactly as a path that does not exist
        return Response(b'{"detail":"Not Found"}', status_code=404, media_type="application/json")
    p = problem_for(exc)
    return problem(p.status, p.title, p.detail, kind=p.kind, headers=p.headers, **p.extra)


def install_error_handlers(app: FastAPI) -> None:
    """Register the mapping, plus a last-resort handler so nothing answers a bare 500 page."""

    async def _domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, PkgIntelError)
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
