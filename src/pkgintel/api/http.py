"""HTTP caching helpers: JSON/text bodies with `Cache-Control`, a content ETag and 304 answers."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import Request
from fastapi.responses import Response

PACKAGE_CACHE = "public, max-age=21600, stale-while-revalidate=86400"
STALE_CACHE = "public, max-age=300, stale-while-revalidate=3600"
NO_STORE = "no-store"


@dataclass(frozen=True, slots=True)
class Answer:
    """
    One JSON answer as every door renders it: `body` (the stable part, what the ETag covers),
    `cache_control`, and `volatile` keys (timings, cache markers) added last. The JSON API sends
    `wire()`; the MCP tools return it as structured content.
    """

    body: dict[str, Any]
    cache_control: str = PACKAGE_CACHE
    volatile: dict[str, Any] = field(default_factory=dict)

    def wire(self) -> dict[str, Any]:
        return {**self.body, **self.volatile} if self.volatile else self.body


def _etag(stable: bytes) -> str:
    return '"' + hashlib.blake2b(stable, digest_size=12).hexdigest() + '"'


def _matches(request: Request, etag: str) -> bool:
    header = request.headers.get("if-none-match")
    if not header:
        return False
    wanted = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return "*" in wanted or etag in wanted


def cached_json(
    request: Request,
    payload: dict[str, Any],
    *,
    cache_control: str = PACKAGE_CACHE,
    volatile: dict[str, Any] | None = None,
) -> Response:
    """
    JSON response whose ETag covers `payload` only; `volatile` keys (timings, cache markers) are
    added after hashing so they do not defeat revalidation. Answers 304 on a matching `If-None-Match`.
    """
    etag = _etag(orjson.dumps(payload))
    headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if _matches(request, etag):
        return Response(status_code=304, headers=headers)
    if volatile:
        payload = {**payload, **volatile}
    return Response(orjson.dumps(payload), media_type="application/json", headers=headers)


def cached_text(request: Request, text: str, *, cache_control: str = PACKAGE_CACHE) -> Response:
    """text/plain response with an ETag and 304 support."""
    body = text.encode()
    etag = _etag(body)
    headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if _matches(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="text/plain; charset=utf-8", headers=headers)


def cached_bytes(
    request: Request, body: bytes, *, media_type: str, cache_control: str = PACKAGE_CACHE
) -> Response:
    """Any other body (SVG badges) with an ETag and 304 support."""
    etag = _etag(body)
    headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    if _matches(request, etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)


def plain_json(payload: Any, *, cache_control: str = NO_STORE, status_code: int = 200) -> Response:
    """Uncached JSON (status probes and the like)."""
    return Response(
        orjson.dumps(payload),
        status_code=status_code,
        media_type="application/json",
        headers={"Cache-Control": cache_control},
    )


class ClientIdentity:
    """
    Who is calling, as a keyed hash: the socket peer, or the first `X-Forwarded-For` hop when the
    peer is a trusted proxy. Raw addresses are never stored or logged.
    """

    def __init__(self, trusted_proxies: list[str], secret: str | None) -> None:
        self._trusted = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies]
        self._secret = (secret or secrets.token_hex(32)).encode()

    def _address(self, request: Request) -> str:
        peer = request.client.host if request.client else "unknown"
        forwarded = request.headers.get("x-forwarded-for")
        if forwarded and self._trusted:
            try:
                addr = ipaddress.ip_address(peer)
            except ValueError:
                return peer
            if any(addr in net for net in self._trusted):
                return forwarded.split(",")[0].strip()
        return peer

    def key(self, request: Request) -> str:
        """HMAC-SHA256 of the client address, hex, 32 characters."""
        return hmac.new(self._secret, self._address(request).encode(), hashlib.sha256).hexdigest()[
            :32
        ]
