"""
Two more fetch helpers for adapters whose registries answer JSON arrays or whose downloads figure
arrives in a body the metadata fetch also needs.

- `get_json_array`: like `_http.get_json`, same failure table, but the body must be a JSON array
  (RubyGems `api/v1/versions/{gem}.json`, `.../owners.json`).
- `SharedFetches` (defined in `pkgintel/transport/memo.py`, re-exported here for the adapters): one
  in-flight request per key, awaited by every caller that asks for it while it runs.
  `PackageService` calls `fetch_package` and `fetch_weekly_downloads` concurrently; when both need
  one body (Hex's package document carries both), the registry is asked once.
"""

from __future__ import annotations

import logging
from typing import Final, Literal, TypeVar, overload

import httpx
import orjson

from pkgintel.domain.errors import PackageNotFound, RegistryResponseInvalid
from pkgintel.domain.packages import Ecosystem
from pkgintel.ecosystems import _http
from pkgintel.transport.memo import SharedFetches as SharedFetches
from pkgintel.transport.upstream import raise_if_unavailable, send

logger = logging.getLogger(__name__)

JSONArray = list[object]
T = TypeVar("T")
_ACCEPT: Final = {"Accept": "application/json"}


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
    not_found: _http.NotFound = "raise",
) -> JSONArray | None:
    """
    GET `url`; its body must be a JSON array.

    Raises `PackageNotFound` on 404/410 (None with `not_found="none"`), `RegistryUnavailable` on
    timeouts, transport errors, 429 and 5xx, and `RegistryResponseInvalid` on any other non-2xx
    status or a body that is not a JSON array.
    """
    response = await send(
        client,
        "GET",
        url,
        ecosystem=ecosystem,
        source=source,
        headers=_ACCEPT,
        wait_s=(_http.RETRY_WAIT_MIN_S, _http.RETRY_WAIT_MAX_S),
        log=logger,
    )
    if response.status_code in _http.NOT_FOUND_STATUSES:
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
    try:
        data = orjson.loads(response.content)
    except orjson.JSONDecodeError as exc:
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent a body that is not JSON",
            reason="invalid_json",
            source=source,
        ) from exc
    if not isinstance(data, list):
        raise RegistryResponseInvalid(
            ecosystem,
            f"{source} sent JSON {type(data).__name__}, expected an array",
            reason="invalid_json",
            source=source,
        )
    return data
