"""A `MockTransport` answering by exact URL path, for adapter fetch tests (no network)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx

Answer = tuple[int, Any] | Callable[[httpx.Request], httpx.Response]


def routes_transport(
    routes: Mapping[str, Answer], *, seen: list[str] | None = None
) -> httpx.MockTransport:
    """
    Answer `GET <path>` from `routes` (`path → (status, body)` where a `bytes`/`str` body is sent
    as is and anything else as JSON, or a handler); any other path answers 404 like a registry.
    Paths asked for are appended to `seen`.
    """

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode().split("?", 1)[0]
        if seen is not None:
            seen.append(path)
        answer = routes.get(path)
        if answer is None:
            return httpx.Response(404, json={"error": "not found"})
        if callable(answer):
            return answer(request)
        status, body = answer
        if isinstance(body, bytes | str):
            return httpx.Response(status, content=body)
        return httpx.Response(status, content=json.dumps(body).encode())

    return httpx.MockTransport(handler)


def timeout(request: httpx.Request) -> httpx.Response:
    """A handler that times out."""
    raise httpx.ReadTimeout("timed out", request=request)
