"""
One table from domain error to problem (RFC 9457), for every door: `PROBLEMS` maps an error class
to its status, type slug, title and how to build `detail`, the extension fields and the headers;
`problem_for` looks an error up along its class's MRO (so a subclass gets its own line or else its
parent's). The HTTP door renders a `Problem` as problem+json (`api/errors.py`); the MCP door as a
tool error whose text is `detail` and whose structured content is the body.

Adding a mapping is one line in `PROBLEMS`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pkgintel.domain.accounts import AccountProblem
from pkgintel.domain.errors import (
    AccountNotFound,
    DatabaseUnavailable,
    EcosystemNotSupported,
    ErrorEntryNotFound,
    InvalidInput,
    LockfileError,
    NotConfigured,
    PackageNotFound,
    PkgIntelError,
    RateLimited,
    RegistryResponseInvalid,
    RegistryUnavailable,
    StorageError,
    VersionNotFound,
)
from pkgintel.domain.operations.ops import (
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
DEFAULT_RETRY_AFTER = 30
"""Seconds a caller is asked to wait when an upstream outage names no time of its own."""


def scrub(value: Any) -> Any:
    """`value` with bytes and strings that are not valid UTF-8 (lone surrogates) made printable."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", "backslashreplace")
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {str(scrub(k)): scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [scrub(v) for v in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return scrub(str(value))


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


Build = Callable[[Any], Any]
"""A function of the error (typed `Any`: each line of the table knows its own class)."""


@dataclass(frozen=True, slots=True)
class ProblemSpec:
    """
    One line of the table. `status` and `title` are values or functions of the error; `detail`
    defaults to the error's message; `extra` builds the extension fields, `headers` the response
    headers; `log` writes the error to the log at ERROR (failures of ours, not of the caller).
    """

    status: int | Callable[[Any], int]
    kind: str | Callable[[Any], str]
    title: str | Callable[[Any], str]
    extra: Build | None = None
    detail: Build | None = None
    headers: Build | None = None
    log: bool = False

    def problem(self, exc: PkgIntelError) -> Problem:
        """The problem `exc` means under this line."""
        title = self.title(exc) if callable(self.title) else self.title
        if self.log:
            logger.error("%s: %s", title.lower(), exc.message)
        return Problem(
            self.status(exc) if callable(self.status) else self.status,
            title,
            self.detail(exc) if self.detail is not None else exc.message,
            self.kind(exc) if callable(self.kind) else self.kind,
            self.extra(exc) if self.extra is not None else {},  # noqa: S610 (not Django)
            self.headers(exc) if self.headers is not None else None,
        )


def _retry_after(exc: Any) -> int:
    return getattr(exc, "retry_after", None) or DEFAULT_RETRY_AFTER


def _upstream(exc: Any) -> dict[str, Any]:
    return {
        "ecosystem": exc.ecosystem,
        "source": exc.source,
        "reason": exc.reason,
        "retry_after": _retry_after(exc),
    }


_UPSTREAM = ProblemSpec(
    503,
    "upstream-unavailable",
    "Upstream registry unavailable",
    extra=_upstream,
    detail=lambda e: f"{e.message}; no cached copy exists. Try again later.",
    headers=lambda e: {"Retry-After": str(_retry_after(e))},
)

PROBLEMS: dict[type[PkgIntelError], ProblemSpec] = {
    InvalidInput: ProblemSpec(422, "invalid-input", "Invalid input", lambda e: {"field": e.field}),
    PackageNotFound: ProblemSpec(
        404,
        "package-not-found",
        "Package not found",
        lambda e: {"ecosystem": e.ecosystem, "package": e.name, "did_you_mean": e.did_you_mean},
    ),
    VersionNotFound: ProblemSpec(
        404,
        "version-not-found",
        "Version not found",
        lambda e: {
            "ecosystem": e.ecosystem,
            "package": e.name,
            "version": e.version,
            "available_versions": e.available,
        },
    ),
    AccountNotFound: ProblemSpec(
        404,
        "account-not-found",
        "Account not found",
        lambda e: {"platform": e.platform, "username": e.login},
    ),
    ErrorEntryNotFound: ProblemSpec(
        404,
        "error-entry-not-found",
        "Error entry not found",
        lambda e: {"error_hash": e.error_hash},
    ),
    RateLimited: ProblemSpec(
        429,
        "rate-limited",
        "Too many requests",
        lambda e: {"retry_after": e.retry_after, "limit": e.limit},
        headers=lambda e: {"Retry-After": str(e.retry_after)},
    ),
    EcosystemNotSupported: ProblemSpec(
        501,
        "ecosystem-not-supported",
        "Ecosystem not supported yet",
        lambda e: {"ecosystem": e.ecosystem},
    ),
    RegistryUnavailable: _UPSTREAM,
    RegistryResponseInvalid: _UPSTREAM,
    LockfileError: ProblemSpec(
        422,
        "lockfile-invalid",
        "Lockfile cannot be parsed",
        lambda e: {"lockfile_kind": e.kind, "line": e.line, "column": e.column},
    ),
    AdvisoryNotFound: ProblemSpec(
        404,
        "advisory-not-found",
        "Advisory not found",
        lambda e: {"source": e.source, "advisory_id": e.advisory_id},
    ),
    InvalidSourceData: ProblemSpec(
        502,
        "source-data-invalid",
        "Data source answered unreadable data",
        lambda e: {"source": e.source},
    ),
    StorageError: ProblemSpec(
        500,
        "storage-error",
        "Storage error",
        detail=lambda e: "the database failed; the request was not completed",
        log=True,
    ),
    # -- the job system (admin API, contact requests)
    AdminAccessDenied: ProblemSpec(
        lambda e: e.status,
        "admin-auth",
        lambda e: "Authentication required" if e.status == 401 else "Forbidden",
        headers=lambda e: (
            {"WWW-Authenticate": 'Bearer realm="pkgintel-admin"'} if e.status == 401 else None
        ),
    ),
    IllegalTransition: ProblemSpec(
        409,
        "illegal-transition",
        "Illegal status change",
        lambda e: {"current": e.current, "wanted": e.wanted},
    ),
    OpsNotFound: ProblemSpec(
        404, "not-found", lambda e: f"Unknown {e.what}", lambda e: {"id": e.ident}
    ),
    JobAlreadyRunning: ProblemSpec(
        409,
        "already-running",
        "Already running",
        lambda e: {"job_id": e.job_id, "job_status": e.status},
    ),
    OpsUnavailable: ProblemSpec(409, "unavailable", "Cannot run now"),
    NotConfigured: ProblemSpec(503, "not-configured", "Not configured"),
    DatabaseUnavailable: ProblemSpec(
        503,
        "database-unavailable",
        "Database unavailable",
        lambda e: {"retry_after": e.retry_after},
        headers=lambda e: {"Retry-After": str(e.retry_after)},
    ),
    # account refusals carry their own status, kind, title and headers (`domain/accounts.py`)
    AccountProblem: ProblemSpec(
        lambda e: e.status, lambda e: e.kind, lambda e: e.title, headers=lambda e: e.headers
    ),
}
"""Domain error class → its problem. Looked up along the error's MRO: the most specific line wins."""


def spec_for(exc: PkgIntelError) -> ProblemSpec | None:
    """The line of `PROBLEMS` for `exc`: its own class's, else its nearest ancestor's; None when
    no class of its MRO is mapped."""
    for cls in type(exc).__mro__:
        spec = PROBLEMS.get(cls)
        if spec is not None:
            return spec
    return None


def problem_for(exc: PkgIntelError) -> Problem:
    """
    Translate a domain error, for every door. An error no line maps is a 500 whose `detail` is its
    message (and is logged). `InvalidInput` maps to a 422 whose `detail` is the message (the JSON API
    answers it in FastAPI's validation shape instead, see `api/errors.error_response`).
    """
    if isinstance(exc, StorageError) and not isinstance(exc, DatabaseUnavailable):
        exc = database.classify(exc) or exc  # a store's wrapped connection failure
    spec = spec_for(exc)
    if spec is None:
        logger.error("unmapped domain error %s: %s", exc.__class__.__name__, exc.message)
        return Problem(500, "Internal error", exc.message, "internal")
    return spec.problem(exc)


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
        422, "Invalid input", detail, "invalid-input", {"field": first, "errors": scrub(items)}
    )
