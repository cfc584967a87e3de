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

The mapping itself is `pkgintel/upstream.py`, shared with the OSV API client. The shared
`httpx.AsyncClient` (built in `bootstrap.py`) owns timeouts and the User-Agent; this
module adds only `Accept: application/json` and follows redirects. httpx already decodes
`Content-Encoding: gzip`/`br`.
"""

from __future__ import annotations

import logging
from typing import Final, Literal, overload

import httpx

from pkgintel.domain.errors import PackageNotFound
from pkgintel.domain.packages import Ecosystem
from pkgintel.upstream import (
    MAX_ATTEMPTS,
    RETRY_STATUSES,
    json_object,
    parse_retry_after,
    raise_if_unavailable,
    send,
)

logger = logging.getLogger(__name__)

JSONObject = dict[str, object]
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


__all__ = [
    "MAX_ATTEMPTS",
    "RETRY_STATUSES",
    "JSONObject",
    "get_json",
    "parse_retry_after",
]
