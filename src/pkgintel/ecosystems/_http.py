"""
Shared HTTP plumbing for registry adapters: one JSON GET, failures mapped to domain errors once.

Every adapter fetches through `get_json`, so timeouts, rate limits and bad bodies mean the same thing
for all registries:

| upstream outcome                                   | raised                                          |
|----------------------------------------------------|-------------------------------------------------|
| 404 / 410                                          | `PackageNotFound` (or None with `not_found="none"`) |
| 429, 5xx                                           | `RegistryUnavailable(reason="status.<code>")`, `retry_after` from `Retry-After` |
| timeout / connection or other transport failure    | `RegistryUnavailable(reason="timeout" / "connect")` |
| other non-2xx                                      | `RegistryResponseInvalid(reason="status.<code>")` |
| body not JSON, or JSON but not an object           | `RegistryResponseInvalid(reason="invalid_json")` |

One retry, after a short jittered pause, for connection failures (the request never reached the
server, so repeating it is safe) and 502/503/504 (typical of a CDN hiccup). A 429 or 500 is not
retried: repeating it right away would not help and doubles the latency of a cold report.

The shared `httpx.AsyncClient` (built in `bootstrap.py`) owns timeouts and the User-Agent; this
module adds only `Accept: application/json` and follows redirects. httpx already decodes
`Content-Encoding: gzip`/`br`.
"""

from __future__ import annotations

import logging
import math
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final, Literal, overload

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

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid, RegistryUnavailable
from pkgintel.domain.packages import Ecosystem

logger = logging.getLogger(__name__)

JSONObject = dict[str, object]
"""A decoded JSON object as handed to an adapter's `parse_*` function."""

DEFAULT_HEADERS: Final[dict[str, str]] = {"Accept": "application/json"}
RETRY_STATUSES: Final[frozenset[int]] = frozenset({502, 503, 504})
NOT_FOUND_STATUSES: Final[frozenset[int]] = frozenset({404, 410})
MAX_ATTEMPTS: Final = 2
"""The first try plus one retry."""
RETRY_WAIT_MIN_S: Final = 0.1
RETRY_WAIT_MAX_S: Final = 0.2

NotFound = Literal["raise", "none"]


@overload
async def get_json(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["raise"] = ...,
) -> JSONObject: ...


@overload
async def get_json(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["none"],
) -> JSONObject | None: ...


async def get_json(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: NotFound = "raise",
) -> JSONObject | None:
    """
    GET `url` and return its body, which must be a JSON object.

    `name` is the package the request is about (it goes into `PackageNotFound`); `source` names the
    upstream in errors (e.g. `registry.npmjs.org`). With `not_found="none"` a 404/410 returns None
    instead of raising, for sources where "unknown" is an answer (download counts).

    Raises `PackageNotFound` on 404/410, `RegistryUnavailable` on timeouts, transport errors, 429
    and 5xx (after one retry for connection errors and 502/503/504), and `RegistryResponseInvalid`
    on any other non-2xx status or a body that is not a JSON object.
    """
    try:
        response = await _get_with_retry(client, url)
    except httpx.TimeoutException as exc:
        raise RegistryUnavailable(
            ecosystem, f"{source} timed out", reason="timeout", source=source
        ) from exc
    except httpx.TransportError as exc:
        raise RegistryUnavailable(
            ecosystem, f"{source} could not be reached", reason="connect", source=source
        ) from exc
    except httpx.DecodingError as exc:
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent an undecodable body",
            reason="invalid_encoding",
            source=source,
        ) from exc
    except httpx.TooManyRedirects as exc:
        raise RegistryResponseInvalid(
            ecosystem, f"{source} redirected too often", reason="redirects", source=source
        ) from exc

    status = response.status_code
    try:
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        reason = f"status.{status}"
        if status in NOT_FOUND_STATUSES:
            if not_found == "none":
                return None
            raise PackageNotFound(ecosystem, name) from exc
        if status == 429 or status >= 500:
            raise RegistryUnavailable(
                ecosystem,
                f"{source} answered HTTP {status}",
                reason=reason,
                source=source,
                retry_after=parse_retry_after(response.headers.get("retry-after")),
            ) from exc
        raise RegistryResponseInvalid(
            ecosystem, f"{source} answered HTTP {status}", reason=reason, source=source
        ) from exc
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent a body that is not JSON",
            reason="invalid_json",
            source=source,
        ) from exc
    if not isinstance(data, dict):
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent JSON {type(data).__name__}, expected an object",
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
    delta = (when - (now or datetime.now(UTC))).total_seconds()
    return max(0, math.ceil(delta))


async def _get_with_retry(client: httpx.AsyncClient, url: str) -> httpx.Response:
    """One GET plus at most one retry; returns the last response or raises the last httpx error."""
    retrying = AsyncRetrying(
        stop=stop_after_attempt(MAX_ATTEMPTS),
        wait=wait_random(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
        retry=(
            retry_if_exception_type((httpx.ConnectError, httpx.ConnectTimeout))
            | retry_if_result(_is_retryable_response)
        ),
        retry_error_callback=_last_outcome,
        reraise=True,
    )
    response: httpx.Response = await retrying(_get_once, client, url)
    return response


def _is_retryable_response(response: httpx.Response) -> bool:
    return response.status_code in RETRY_STATUSES


def _last_outcome(state: RetryCallState) -> httpx.Response:
    """When retries are exhausted, hand back the last response (or re-raise the last error)."""
    assert state.outcome is not None  # tenacity sets it before calling back
    response: httpx.Response = state.outcome.result()
    return response


async def _get_once(client: httpx.AsyncClient, url: str) -> httpx.Response:
    started = time.perf_counter()
    try:
        response = await client.get(url, headers=DEFAULT_HEADERS, follow_redirects=True)
    except httpx.HTTPError as exc:
        logger.debug(
            "GET %s failed after %.0f ms: %s",
            url,
            (time.perf_counter() - started) * 1000,
            type(exc).__name__,
        )
        raise
    logger.debug(
        "GET %s -> %d in %.0f ms",
        url,
        response.status_code,
        (time.perf_counter() - started) * 1000,
    )
    return response
