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

The mapping itself is `pkgintel/transport/upstream.py`, shared with the OSV API client. The shared
`httpx.AsyncClient` (built in `runtime/adapters.py`) owns timeouts and the User-Agent; this
module adds only `Accept: application/json` and follows redirects. httpx already decodes
`Content-Encoding: gzip`/`br`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, Final, Literal, TypeVar, overload

import httpx

from pkgintel.domain.errors import PackageNotFound, RegistryError, RegistryResponseInvalid
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.transport.gc_pause import collector_paused
from pkgintel.transport.side_tasks import abandon
from pkgintel.transport.upstream import (
    MAX_ATTEMPTS,
    RETRY_STATUSES,
    json_object,
    parse_retry_after,
    raise_if_unavailable,
    send,
)

logger = logging.getLogger(__name__)

JSONObject = dict[str, object]
T = TypeVar("T")
"""A decoded JSON object as handed to an adapter's `parse_*` function."""

DEFAULT_HEADERS: Final[dict[str, str]] = {"Accept": "application/json"}
NOT_FOUND_STATUSES: Final[frozenset[int]] = frozenset({404, 410})
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
    response = await send(
        client,
        "GET",
        url,
        ecosystem=ecosystem,
        source=source,
        headers=DEFAULT_HEADERS,
        wait_s=(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
        log=logger,
    )
    if response.status_code in NOT_FOUND_STATUSES:
        if not_found == "none":
            return None
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:
            raise PackageNotFound(ecosystem, name) from exc
    raise_if_unavailable(response, ecosystem=ecosystem, source=source)
    return json_object(response, ecosystem=ecosystem, source=source)


async def get_json_parsed(
    client: httpx.AsyncClient,
    url: str,
    parse: Callable[[JSONObject], T],
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
) -> T:
    """
    `parse(get_json(...))` with the JSON decoding and `parse` run in a worker thread, for bodies
    large enough (npm packuments run to tens of MB) that decoding them on the event loop would
    stall every other request; the cyclic collector is paused meanwhile (`pkgintel.transport.gc_pause`).
    Raises like `get_json` (not-found always raises) and whatever `parse` raises.
    """
    response = await send(
        client,
        "GET",
        url,
        ecosystem=ecosystem,
        source=source,
        headers=DEFAULT_HEADERS,
        wait_s=(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
        log=logger,
    )
    if response.status_code in NOT_FOUND_STATUSES:
        raise PackageNotFound(ecosystem, name)
    raise_if_unavailable(response, ecosystem=ecosystem, source=source)

    def decode_and_parse() -> T:
        with collector_paused():
            return parse(json_object(response, ecosystem=ecosystem, source=source))

    return await asyncio.to_thread(decode_and_parse)


TEXT_HEADERS: Final[dict[str, str]] = {"Accept": "text/plain, application/xml, text/xml, */*"}
MAX_TEXT_BYTES: Final = 32 * 1024 * 1024
"""Largest text/XML body an adapter accepts (Maven metadata, POMs, nuspecs and go.mod are far smaller)."""


@overload
async def get_text(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["raise"] = ...,
) -> str: ...


@overload
async def get_text(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["none"],
) -> str | None: ...


async def get_text(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: NotFound = "raise",
) -> str | None:
    """
    GET `url` and return its body as text (UTF-8), for registries that answer in plain text or XML
    (the Go module proxy, Maven repositories, NuGet nuspecs).

    Same status mapping as `get_json`; a 2xx body that is not UTF-8 or larger than
    `MAX_TEXT_BYTES` raises `RegistryResponseInvalid(reason="invalid_text")`.
    """
    response = await send(
        client,
        "GET",
        url,
        ecosystem=ecosystem,
        source=source,
        headers=TEXT_HEADERS,
        wait_s=(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
        log=logger,
    )
    if response.status_code in NOT_FOUND_STATUSES:
        if not_found == "none":
            return None
        raise PackageNotFound(ecosystem, name)
    raise_if_unavailable(response, ecosystem=ecosystem, source=source)
    if not 200 <= response.status_code < 300:
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} answered HTTP {response.status_code}",
            reason=f"status.{response.status_code}",
            source=source,
        )
    if len(response.content) > MAX_TEXT_BYTES:
        raise RegistryResponseInvalid(
            ecosystem, f"{source} sent an oversized body", reason="invalid_text", source=source
        )
    try:
        return response.content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent a body that is not UTF-8",
            reason="invalid_text",
            source=source,
        ) from exc


async def optional_source(
    call: Callable[[], Awaitable[T | None]], *, source: str, kind: str
) -> tuple[T | None, SourceStatus]:
    """
    Call and await a secondary source's fetch (publish dates, owners, yanked flags...) without letting it
    fail the report: its value and its `_meta.sources` entry.

    A `RegistryError` (timeout, 5xx, bad body) or a `PackageNotFound` from the secondary source
    gives `(None, unavailable)` with the reason as detail; None from `call` (a 404 read with
    `not_found="none"`) gives `(None, unavailable, "no entry")`. `fetched_at` is left None: the
    package service stamps it when it builds the snapshot.

    `call` is a zero-argument function returning the awaitable, so nothing is created (and left
    un-awaited) when the surrounding task is cancelled before it runs.
    """
    try:
        value = await call()
    except PackageNotFound:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, "no entry")
    except RegistryError as exc:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, exc.reason)
    if value is None:
        return None, SourceStatus(source, kind, SourceState.UNAVAILABLE, None, "no entry")
    return value, SourceStatus(source, kind, SourceState.OK)


class SingleFlight:
    """
    One upstream request per key shared by its concurrent callers: a cold report asks for the
    package and its publisher history at the same moment, and both read the same body (npm's
    packument, a crate). Later callers, once it has finished, make their own request. Each waiter
    gets the same result, or the same exception.
    """

    __slots__ = ("_inflight",)

    def __init__(self) -> None:
        self._inflight: dict[str, asyncio.Future[Any]] = {}

    async def run(self, key: str, fetch: Callable[[], Awaitable[T]]) -> T:
        pending = self._inflight.get(key)
        if pending is not None:
            result: T = await asyncio.shield(pending)
            return result
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            value = await fetch()
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it
            raise
        else:
            future.set_result(value)
            return value
        finally:
            self._inflight.pop(key, None)


def parse_timestamp(value: object) -> datetime | None:
    """An ISO 8601 timestamp as an aware UTC datetime, or None when absent or unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


__all__ = [
    "MAX_ATTEMPTS",
    "RETRY_STATUSES",
    "JSONObject",
    "abandon",
    "get_json",
    "get_text",
    "optional_source",
    "parse_retry_after",
    "parse_timestamp",
]
