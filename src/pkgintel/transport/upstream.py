"""
Upstream HTTP plumbing shared by the fetch-and-decode helpers (`transport/fetch.py`) and the
on-demand sources (`sources/osv_api.py`), so a timeout, a rate limit or a bad body means the same thing
everywhere. It sits below both layers and imports neither.

- `send`: one request plus at most one retry (connection failures and 502/503/504, after a short
  jittered pause); transport failures become `RegistryUnavailable` (`timeout`, `connect`) or
  `RegistryResponseInvalid` (`invalid_encoding`, `redirects`); a host whose circuit is open
  (`transport/guard.py`) → `RegistryUnavailable(reason="circuit_open")` with `retry_after`, no call
  made. Statuses are left to the caller. Inside a composite answer (`upstream_memo.one_answer`) a
  GET is sent once per URL and headers: later ones get the first one's response or error.
- `raise_if_unavailable`: 429 and 5xx → `RegistryUnavailable(reason="status.<code>")` with
  `retry_after` from `Retry-After`.
- `require_success`: any other non-2xx → `RegistryResponseInvalid(reason="status.<code>")`.
- `json_object` / `json_array`: `require_success`, then a body that is not a JSON object (array)
  → `RegistryResponseInvalid(reason="invalid_json")`.
"""

from __future__ import annotations

import logging
import math
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Final

import httpx
import orjson
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    wait_random,
)

from pkgintel.domain.errors import RegistryResponseInvalid, RegistryUnavailable
from pkgintel.transport.guard import CircuitOpen
from pkgintel.transport.memo import AnswerFetches, answer_fetches

logger = logging.getLogger(__name__)

RETRY_STATUSES: Final[frozenset[int]] = frozenset({502, 503, 504})
MAX_ATTEMPTS: Final = 2
"""The first try plus one retry."""


async def send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    ecosystem: str,
    source: str,
    headers: dict[str, str],
    content: bytes | None = None,
    wait_s: tuple[float, float] = (0.1, 0.2),
    log: logging.Logger = logger,
) -> httpx.Response:
    """One request (plus one retry, `wait_s` apart); transport failures mapped to domain errors.
    Each attempt is logged at debug level on `log` (the caller's logger). A GET inside an open
    answer's scope is shared with the same GET before it (module docstring)."""
    memo = answer_fetches.get()
    if memo is not None and memo.open and method == "GET" and content is None:
        return await memo.get(
            AnswerFetches.key(client, method, url, headers),
            lambda: _send(client, method, url, ecosystem, source, headers, content, wait_s, log),
        )
    return await _send(client, method, url, ecosystem, source, headers, content, wait_s, log)


async def _send(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    ecosystem: str,
    source: str,
    headers: dict[str, str],
    content: bytes | None,
    wait_s: tuple[float, float],
    log: logging.Logger,
) -> httpx.Response:
    retrying = AsyncRetrying(
        stop=stop_after_attempt(MAX_ATTEMPTS),
        wait=wait_random(*wait_s),
        retry=(
            retry_if_exception_type((httpx.ConnectError, httpx.ConnectTimeout))
            | retry_if_result(lambda response: response.status_code in RETRY_STATUSES)
        ),
        retry_error_callback=_last_outcome,
        reraise=True,
    )
    try:
        response: httpx.Response = await retrying(_once, client, method, url, headers, content, log)
    except CircuitOpen as exc:
        # Not a new failure: the breaker refuses to ask a host that just failed (and said so).
        raise RegistryUnavailable(
            ecosystem,
            f"{source} is failing; not asked again for {exc.retry_after} s",
            reason="circuit_open",
            source=source,
            retry_after=exc.retry_after,
        ) from exc
    except httpx.TimeoutException as exc:
        _failed(method, url, f"{source} timed out")
        raise RegistryUnavailable(
            ecosystem, f"{source} timed out", reason="timeout", source=source
        ) from exc
    except httpx.TransportError as exc:
        _failed(method, url, f"{source} could not be reached ({type(exc).__name__})")
        raise RegistryUnavailable(
            ecosystem, f"{source} could not be reached", reason="connect", source=source
        ) from exc
    except httpx.DecodingError as exc:
        _failed(method, url, f"{source} sent an undecodable body")
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent an undecodable body",
            reason="invalid_encoding",
            source=source,
        ) from exc
    except httpx.TooManyRedirects as exc:
        _failed(method, url, f"{source} redirected too often")
        raise RegistryResponseInvalid(
            ecosystem, f"{source} redirected too often", reason="redirects", source=source
        ) from exc
    return response


def _failed(method: str, url: str, what: str) -> None:
    """The one WARNING line of an upstream failure (the query string left out: it may carry
    what a caller sent). What the answer does about it is the caller's business, logged lower."""
    logger.warning("upstream failed: %s %s: %s", method, url.split("?", 1)[0], what)


def raise_if_unavailable(response: httpx.Response, *, ecosystem: str, source: str) -> None:
    """429 or 5xx → `RegistryUnavailable` carrying `Retry-After`."""
    status = response.status_code
    if status == 429 or status >= 500:
        _failed(response.request.method, str(response.request.url), f"{source} answered {status}")
        raise RegistryUnavailable(
            ecosystem,
            f"{source} answered HTTP {status}",
            reason=f"status.{status}",
            source=source,
            retry_after=parse_retry_after(response.headers.get("retry-after")),
        )


def require_success(response: httpx.Response, *, ecosystem: str, source: str) -> None:
    """Any non-2xx status the caller did not handle → `RegistryResponseInvalid(reason="status.<code>")`."""
    status = response.status_code
    if not 200 <= status < 300:
        _failed(response.request.method, str(response.request.url), f"{source} answered {status}")
        raise RegistryResponseInvalid(
            ecosystem, f"{source} answered HTTP {status}", reason=f"status.{status}", source=source
        )


def json_object(response: httpx.Response, *, ecosystem: str, source: str) -> dict[str, Any]:
    """The body of a 2xx response, which must be a JSON object (see the module table)."""
    data: dict[str, Any] = _json(response, ecosystem, source, dict, "an object")
    return data


def json_array(response: httpx.Response, *, ecosystem: str, source: str) -> list[Any]:
    """The body of a 2xx response, which must be a JSON array (as `json_object` otherwise)."""
    data: list[Any] = _json(response, ecosystem, source, list, "an array")
    return data


def _json(response: httpx.Response, ecosystem: str, source: str, kind: type[Any], what: str) -> Any:
    require_success(response, ecosystem=ecosystem, source=source)
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        _failed(response.request.method, str(response.request.url), f"{source} sent non-JSON")
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent a body that is not JSON",
            reason="invalid_json",
            source=source,
        ) from exc
    if not isinstance(data, kind):
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent JSON {type(data).__name__}, expected {what}",
            reason="invalid_json",
            source=source,
        )
    return data


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> int | None:
    """
    Seconds to wait from a `Retry-After` header (RFC 9110 §10.2.3), or None when absent or unusable.

    Accepts delta-seconds (`"120"`) and an HTTP-date (seconds from `now`, at least 0).
    """
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return int(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0, math.ceil((when - (now or datetime.now(UTC))).total_seconds()))


def _last_outcome(state: RetryCallState) -> httpx.Response:
    """When retries are exhausted, hand back the last response (or re-raise the last error)."""
    assert state.outcome is not None  # tenacity sets it before calling back
    response: httpx.Response = state.outcome.result()
    return response


async def _once(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    headers: dict[str, str],
    content: bytes | None,
    log: logging.Logger,
) -> httpx.Response:
    started = time.perf_counter()
    try:
        response = await client.request(
            method, url, headers=headers, content=content, follow_redirects=True
        )
    except httpx.HTTPError as exc:
        log.debug(
            "%s %s failed after %.0f ms: %s",
            method,
            url,
            (time.perf_counter() - started) * 1000,
            type(exc).__name__,
        )
        raise
    log.debug(
        "%s %s -> %d in %.0f ms",
        method,
        url,
        response.status_code,
        (time.perf_counter() - started) * 1000,
    )
    return response
