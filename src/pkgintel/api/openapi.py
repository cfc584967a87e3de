"""
The OpenAPI document: every status a route can answer is declared, every error body is described,
and every `$ref` resolves.

- `problem_responses(404, 503, ...)`: the `responses=` mapping for a route's problem answers
  (`application/problem+json`, schema `Problem`; 422 also offers FastAPI's validation body).
- `install_openapi(app)`: replaces `app.openapi` with a builder that, for every operation,
  (1) declares 500 (the last-resort handler can answer it anywhere) and 503 (so can a database
  that cannot be reached, `api/containment.py`), 501 where the path or query
  names an `ecosystem`, 404/503 where the path names a package (`PACKAGE_PARAMS`) or the query a
  `purl` (and 501 for the latter too), 404 where it
  names any other identifier (what the shared error table answers for those parameters) and 400 where there is a request body (one that is not UTF-8 JSON text), (2) gives every declared 4xx/5xx answer without a body description the
  problem body, and (3) moves `$defs` that hand-written request schemas carry into
  `components/schemas`, so no reference points into nothing. Routes added later get all three
  without doing anything.
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from pkgintel.domain.rate_limits import exempt

PROBLEM_MEDIA: Final = "application/problem+json"
PROBLEM_SCHEMA: Final[dict[str, Any]] = {
    "title": "Problem",
    "description": "RFC 9457 problem details; extensions (ecosystem, package, did_you_mean, retry_after, ...) vary by `type`.",
    "type": "object",
    "properties": {
        "type": {"type": "string", "description": "URI naming the kind of problem."},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
    },
    "required": ["type", "title", "status", "detail"],
    "additionalProperties": True,
}
PROBLEM_REF: Final = {"$ref": "#/components/schemas/Problem"}
VALIDATION_REF: Final = {"$ref": "#/components/schemas/HTTPValidationError"}

STATUS_TEXT: Final[dict[int, str]] = {
    400: "Bad request (problem+json)",
    401: "Not authenticated (problem+json)",
    403: "Not allowed (problem+json)",
    404: "Unknown package, version or advisory (problem+json, with did_you_mean where it helps)",
    409: "Conflict (problem+json)",
    413: "Body larger than the configured limit (problem+json)",
    422: "Invalid input: FastAPI's validation body naming the field, or problem+json",
    429: "Rate limited (problem+json, Retry-After)",
    500: "Internal error (problem+json)",
    501: "Ecosystem not supported yet (problem+json)",
    502: "A data source answered unreadable data (problem+json)",
    503: "Upstream registry unavailable and nothing stored to answer from, or the database "
    "unreachable (problem+json, Retry-After)",
}
RETRY_AFTER_HEADER: Final[dict[str, Any]] = {
    "Retry-After": {
        "description": "Seconds to wait before asking again.",
        "schema": {"type": "integer"},
    }
}


def problem_response(status: int, description: str | None = None) -> dict[str, Any]:
    """One OpenAPI response object for a problem answer."""
    content: dict[str, Any] = {PROBLEM_MEDIA: {"schema": PROBLEM_REF}}
    if status == 422:
        content["application/json"] = {"schema": VALIDATION_REF}
    response: dict[str, Any] = {
        "description": description or STATUS_TEXT.get(status, "Problem"),
        "content": content,
    }
    if status in (429, 503):
        response["headers"] = RETRY_AFTER_HEADER
    return response


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: each status answered as problem+json."""
    return {status: problem_response(status) for status in statuses}


def _hoist_defs(node: Any, components: dict[str, Any]) -> Any:
    """Move nested `$defs` into `components` and point `#/$defs/X` references there."""
    if isinstance(node, dict):
        defs = node.pop("$defs", None)
        if isinstance(defs, dict):
            for name, schema in defs.items():
                components.setdefault(name, _hoist_defs(schema, components))
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                out[key] = "#/components/schemas/" + value.removeprefix("#/$defs/")
            else:
                out[key] = _hoist_defs(value, components)
        return out
    if isinstance(node, list):
        return [_hoist_defs(item, components) for item in node]
    return node


PACKAGE_PARAMS: Final = frozenset({"package", "from_pkg", "to_pkg", "packages_csv"})
"""Path parameters naming registry packages: unknown ones are 404, an unreachable registry 503."""


def _implied_statuses(operation: dict[str, Any], path: str) -> list[int]:
    statuses = [500, 503]  # 503: the database cannot be reached (any route may need it)
    if not exempt(path):
        # rate limited (`api/rate_limits.py`), and a presented API key that is not an active one
        statuses += [429, 401]
    params = operation.get("parameters", [])
    names = {p.get("name") for p in params if p.get("in") == "path"}
    query = {p.get("name") for p in params if p.get("in") == "query"}
    if "ecosystem" in names or "{ecosystem}" in path or query & {"ecosystem", "purl"}:
        statuses.append(501)
    if names & PACKAGE_PARAMS or "{package}" in path or "purl" in query:
        statuses.append(404)
    elif names - {"ecosystem"}:
        statuses.append(
            404
        )  # any other identifier in the path (a hash, an id, a slug) may be unknown
    if "requestBody" in operation:
        statuses.append(400)
    return statuses


def complete_document(document: dict[str, Any]) -> dict[str, Any]:
    """Apply the three rules of the module docstring to a generated document (in place)."""
    components = document.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Problem", PROBLEM_SCHEMA)
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if method not in ("get", "put", "post", "delete", "patch", "head", "options"):
                continue
            responses: dict[str, Any] = operation.setdefault("responses", {})
            for implied in _implied_statuses(operation, path):
                responses.setdefault(str(implied), problem_response(implied))
            for code, response in list(responses.items()):
                if code.isdigit() and int(code) >= 400 and not response.get("content"):
                    responses[code] = {
                        **problem_response(int(code)),
                        **{k: v for k, v in response.items() if k != "content"},
                        "content": problem_response(int(code))["content"],
                    }
            item[method] = _hoist_defs(operation, components)
    if "HTTPValidationError" not in components:
        components["HTTPValidationError"] = {
            "title": "HTTPValidationError",
            "type": "object",
            "properties": {"detail": {"type": "array", "items": {"type": "object"}}},
        }
    return document


def install_openapi(app: FastAPI) -> None:
    """Make `app.openapi()` return the completed document (built once, then cached)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                openapi_version=app.openapi_version,
                description=app.description,
                routes=app.routes,
            )
            app.openapi_schema = complete_document(document)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
