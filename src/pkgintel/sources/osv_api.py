"""
On-demand OSV API client (https://google.github.io/osv.dev/api/): vulnerability ids per package
version, then the full records, parsed into `Advisory`.

Endpoints used:

- `POST {base}/v1/querybatch` with `{"queries": [{"package": {"ecosystem", "name"}, "version"?,
  "page_token"?}]}` (at most 1000 queries per request); the answer is `{"results": [{"vulns":
  [{"id", "modified"}], "next_page_token"?}]}` in query order, `{}` for a query with no vulns.
  A query with a `next_page_token` is asked again with that `page_token` until none comes back.
- `GET {base}/v1/vulns/{id}`: one OSV record (id URL-quoted, `/` included).

Failures are mapped by `pkgintel/transport/upstream.py`, the same code `transport/fetch.py` uses for
registries:

| upstream outcome                                   | raised                                          |
|----------------------------------------------------|-------------------------------------------------|
| 404 / 410 on `/v1/vulns/{id}`                      | `AdvisoryNotFound` (skipped by `advisories_for`)  |
| 429, 5xx                                           | `RegistryUnavailable(reason="status.<code>")`, `retry_after` from `Retry-After` |
| timeout / connection or other transport failure    | `RegistryUnavailable(reason="timeout" / "connect")` |
| other non-2xx                                      | `RegistryResponseInvalid(reason="status.<code>")` |
| body not JSON, or JSON but not an object           | `RegistryResponseInvalid(reason="invalid_json")` |
| querybatch answer of the wrong shape or length     | `RegistryResponseInvalid(reason="invalid_shape")` |
| more than `MAX_PAGES` pages for one batch          | `RegistryResponseInvalid(reason="pagination")`  |

Connection failures and 502/503/504 are retried once after a short jittered pause (both
endpoints are queries, so repeating them is safe). The errors' `ecosystem` is the OSV ecosystem
asked about (`"osv"` for a vuln fetch or a mixed batch); their `source` is the base URL's host.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote, urlsplit

import httpx
import orjson

from pkgintel.domain.advisories import Advisory
from pkgintel.domain.errors import RegistryResponseInvalid
from pkgintel.domain.json_fields import as_list
from pkgintel.sources.errors import AdvisoryNotFound
from pkgintel.sources.osv_schema import InvalidOSVRecord, parse_osv
from pkgintel.transport.upstream import json_object, raise_if_unavailable, send

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL: Final = "https://api.osv.dev"
SOURCE: Final = "api.osv.dev"
"""`Advisory.source` of every record read through this client."""

MAX_BATCH: Final = 1000
"""Queries per querybatch request (the API's limit)."""
MAX_PAGES: Final = 100
"""Querybatch rounds per batch before the pagination is taken as broken."""
DEFAULT_CONCURRENCY: Final = 8
"""Vuln records fetched at once by `advisories_for`."""

NOT_FOUND_STATUSES: Final[frozenset[int]] = frozenset({404, 410})
RETRY_WAIT_MIN_S: Final = 0.1
RETRY_WAIT_MAX_S: Final = 0.2
HEADERS: Final[dict[str, str]] = {"Accept": "application/json"}

OsvQuery = tuple[str, str, str | None]
"""`(osv_ecosystem, name, version)`; version None asks for every vuln of the package."""


class OsvApiClient:
    """Reads vulnerability ids and OSV records from the OSV API (or a mirror at `base_url`)."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        base_url: str = DEFAULT_BASE_URL,
        *,
        max_concurrency: int = DEFAULT_CONCURRENCY,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self._client = client
        self._base_url = base_url.rstrip("/")
        self._host = urlsplit(self._base_url).netloc or self._base_url
        self._max_concurrency = max_concurrency

    async def query_batch(self, queries: Sequence[OsvQuery]) -> list[list[str]]:
        """
        Vulnerability ids affecting each query, in query order (ids unique per query, in the
        order the API lists them, across pages).

        Sends at most `MAX_BATCH` queries per request and follows each query's
        `next_page_token`. Raises `RegistryUnavailable` / `RegistryResponseInvalid` as the
        module docstring's table says.
        """
        ecosystems = {ecosystem for ecosystem, _, _ in queries}
        ecosystem = next(iter(ecosystems)) if len(ecosystems) == 1 else "osv"
        results: list[list[str]] = []
        for start in range(0, len(queries), MAX_BATCH):
            results.extend(await self._one_batch(queries[start : start + MAX_BATCH], ecosystem))
        return results

    async def get_vuln(self, vuln_id: str) -> dict[str, Any]:
        """
        The OSV record `vuln_id` as a JSON object.

        Raises `AdvisoryNotFound` on 404/410, else as the module docstring's table says.
        """
        url = f"{self._base_url}/v1/vulns/{quote(vuln_id, safe='')}"
        response = await self._send("GET", url, ecosystem="osv")
        if response.status_code in NOT_FOUND_STATUSES:
            raise AdvisoryNotFound(self._host, vuln_id)
        return self._json_object(response, ecosystem="osv")

    async def advisories_for(
        self, osv_ecosystem: str, name: str, version: str | None = None
    ) -> list[Advisory]:
        """
        Advisories affecting `name` (at `version`, or any version when None) in `osv_ecosystem`
        (OSV's spelling: `PyPI`, `crates.io`...), in the order the API lists their ids.

        Fetches the records `max_concurrency` at a time; the first transport failure cancels the
        rest and propagates. An id whose record is gone (404) or has no usable `id` is skipped
        and logged.
        """
        (ids,) = await self.query_batch([(osv_ecosystem, name, version)])
        if not ids:
            return []
        limit = asyncio.Semaphore(self._max_concurrency)

        async def fetch(vuln_id: str) -> Advisory | None:
            async with limit:
                try:
                    record = await self.get_vuln(vuln_id)
                except AdvisoryNotFound:
                    logger.warning("%s listed %s but has no record for it", self._host, vuln_id)
                    return None
            try:
                return parse_osv(record, source=SOURCE)
            except InvalidOSVRecord as exc:
                logger.warning("%s: skipped record %s: %s", self._host, vuln_id, exc)
                return None

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(fetch(vuln_id)) for vuln_id in ids]
        except BaseExceptionGroup as failed:
            # The group cancelled the other fetches; callers expect the domain error itself.
            raise failed.exceptions[0]  # noqa: B904 - the group holds nothing more to chain
        return [advisory for task in tasks if (advisory := task.result()) is not None]

    async def _one_batch(self, queries: Sequence[OsvQuery], ecosystem: str) -> list[list[str]]:
        """Ids for up to `MAX_BATCH` queries, re-asking only the queries that have more pages."""
        ids: list[dict[str, None]] = [{} for _ in queries]  # insertion-ordered sets
        pending: dict[int, str | None] = dict.fromkeys(range(len(queries)))  # index → page token
        for _ in range(MAX_PAGES):
            if not pending:
                return [list(found) for found in ids]
            order = list(pending)
            body = {"queries": [_query_json(queries[i], pending[i]) for i in order]}
            results = await self._post_batch(body, expected=len(order), ecosystem=ecosystem)
            pending = {}
            for index, result in zip(order, results, strict=True):
                for vuln in as_list(result.get("vulns")):
                    vuln_id = vuln.get("id") if isinstance(vuln, Mapping) else None
                    if isinstance(vuln_id, str) and vuln_id.strip():
                        ids[index][vuln_id.strip()] = None
                token = result.get("next_page_token")
                if isinstance(token, str) and token:
                    pending[index] = token
        if not pending:
            return [list(found) for found in ids]
        raise RegistryResponseInvalid(
            ecosystem,
            f"{self._host} querybatch still paginating after {MAX_PAGES} pages",
            reason="pagination",
            source=self._host,
        )

    async def _post_batch(
        self, body: dict[str, Any], *, expected: int, ecosystem: str
    ) -> list[Mapping[str, Any]]:
        response = await self._send(
            "POST", f"{self._base_url}/v1/querybatch", ecosystem=ecosystem, body=body
        )
        data = self._json_object(response, ecosystem=ecosystem)
        results = data.get("results")
        if (
            not isinstance(results, list)
            or len(results) != expected
            or not all(isinstance(result, Mapping) for result in results)
        ):
            raise RegistryResponseInvalid(
                ecosystem,
                f"{self._host} querybatch answered {expected} queries with an unexpected "
                "'results' value",
                reason="invalid_shape",
                source=self._host,
            )
        return results

    async def _send(
        self, method: str, url: str, *, ecosystem: str, body: dict[str, Any] | None = None
    ) -> httpx.Response:
        """One request (plus one retry); transport failures and 429/5xx mapped to domain errors."""
        headers = HEADERS if body is None else {**HEADERS, "Content-Type": "application/json"}
        response = await send(
            self._client,
            method,
            url,
            ecosystem=ecosystem,
            source=self._host,
            headers=headers,
            content=orjson.dumps(body) if body is not None else None,
            wait_s=(RETRY_WAIT_MIN_S, RETRY_WAIT_MAX_S),
            log=logger,
        )
        raise_if_unavailable(response, ecosystem=ecosystem, source=self._host)
        return response

    def _json_object(self, response: httpx.Response, *, ecosystem: str) -> dict[str, Any]:
        return json_object(response, ecosystem=ecosystem, source=self._host)


def _query_json(query: OsvQuery, page_token: str | None) -> dict[str, Any]:
    ecosystem, name, version = query
    item: dict[str, Any] = {"package": {"ecosystem": ecosystem, "name": name}}
    if version is not None:
        item["version"] = version
    if page_token is not None:
        item["page_token"] = page_token
    return item
