"""
Fetch and decode one upstream document: the GET helpers every registry adapter and on-demand source
uses, so timeouts, rate limits and bad bodies mean the same thing for all of them.

- `get_json`: the body must be a JSON object; `get_json_parsed`: the same, decoded and parsed in a
  worker thread (bodies of tens of MB); `get_json_array`: the body must be a JSON array;
  `get_text`: a UTF-8 text or XML body.

All four share one status table:

| upstream outcome                                   | raised                                          |
|----------------------------------------------------|-------------------------------------------------|
| 404 / 410                                          | `PackageNotFound` (or None with `not_found="none"`) |
| 429, 5xx                                           | `RegistryUnavailable(reason="status.<code>")`, `retry_after` from `Retry-After` |
| timeout / connection or other transport failure    | `RegistryUnavailable(reason="timeout" / "connect")` |
| other non-2xx                                      | `RegistryResponseInvalid(reason="status.<code>")` |
| body not JSON, or JSON of another kind             | `RegistryResponseInvalid(reason="invalid_json")` |

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
from collections.abc import Callable
from typing import Final, Literal, TypeVar, overload

import httpx

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid
from pkgintel.domain.packages import Ecosystem
from pkgintel.transport.gc_pause import collector_paused
from pkgintel.transport.upstream import (
    json_array,
    json_object,
    raise_if_unavailable,
    require_success,
    send,
)

logger = logging.getLogger(__name__)

JSONObject = dict[str, object]
"""A decoded JSON object as handed to an adapter's `parse_*` function."""
JSONArray = list[object]
T = TypeVar("T")

DEFAULT_HEADERS: Final[dict[str, str]] = {"Accept": "application/json"}
TEXT_HEADERS: Final[dict[str, str]] = {"Accept": "text/plain, application/xml, text/xml, */*"}
NOT_FOUND_STATUSES: Final[frozenset[int]] = frozenset({404, 410})
RETRY_WAIT_MIN_S: Final = 0.1
RETRY_WAIT_MAX_S: Final = 0.2
MAX_TEXT_BYTES: Final = 32 * 1024 * 1024
"""Largest text/XML body an adapter accepts (Maven metadata, POMs, nuspecs and go.mod are far smaller)."""

NotFound = Literal["raise", "none"]


async def _fetch(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: dict[str, str],
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: NotFound,
) -> httpx.Response | None:
    """The GET every helper shares: the response of a found document (any status but 404/410, 429
    and 5xx), None for 404/410 with `not_found="none"`; raises the rest of the module table."""
    response = await send(
        client,
        "GET",
        url,
        ecosystem=ecosystem,
        source=source,
        headers=headers,
        wait_s=(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
        log=logger,
    )
    if response.status_code in NOT_FOUND_STATUSES:
        if not_found == "none":
            return None
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as exc:  # kept as the cause: the status and URL
            raise PackageNotFound(ecosystem, name) from exc
    raise_if_unavailable(response, ecosystem=ecosystem, source=source)
    return response


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
    response = await _fetch(
        client,
        url,
        headers=DEFAULT_HEADERS,
        ecosystem=ecosystem,
        name=name,
        source=source,
        not_found=not_found,
    )
    if response is None:
        return None
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
    response = await _fetch(
        client,
        url,
        headers=DEFAULT_HEADERS,
        ecosystem=ecosystem,
        name=name,
        source=source,
        not_found="raise",
    )
    assert response is not None  # not_found="raise"

    def decode_and_parse() -> T:
        with collector_paused():
            return parse(json_object(response, ecosystem=ecosystem, source=source))

    return await asyncio.to_thread(decode_and_parse)


@overload
async def get_json_array(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["raise"] = ...,
) -> JSONArray: ...


@overload
async def get_json_array(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: Literal["none"],
) -> JSONArray | None: ...


async def get_json_array(
    client: httpx.AsyncClient,
    url: str,
    *,
    ecosystem: Ecosystem,
    name: str,
    source: str,
    not_found: NotFound = "raise",
) -> JSONArray | None:
    """
    GET `url`; its body must be a JSON array (RubyGems `api/v1/versions/{gem}.json`, cranlogs).

    Raises like `get_json`, with `RegistryResponseInvalid(reason="invalid_json")` for a body that
    is not a JSON array.
    """
    response = await _fetch(
        client,
        url,
        headers=DEFAULT_HEADERS,
        ecosystem=ecosystem,
        name=name,
        source=source,
        not_found=not_found,
    )
    if response is None:
        return None
    array: JSONArray = json_array(response, ecosystem=ecosystem, source=source)
    return array


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
    response = await _fetch(
        client,
        url,
        headers=TEXT_HEADERS,
        ecosystem=ecosystem,
        name=name,
        source=source,
        not_found=not_found,
    )
    if response is None:
        return None
    require_success(response, ecosystem=ecosystem, source=source)
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


__all__ = [
    "DEFAULT_HEADERS",
    "NOT_FOUND_STATUSES",
    "JSONArray",
    "JSONObject",
    "get_json",
    "get_json_array",
    "get_json_parsed",
    "get_text",
]
