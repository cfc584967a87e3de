"""HTTP caching helpers: JSON/text bodies with `Cache-Control`, a content ETag and 304 answers."""

from __future__ import annotations

import gzip
import hashlib
import hmac
import ipaddress
import secrets
from typing import Any

import brotli
import orjson
from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from pkgintel.application.answer import NO_STORE, PACKAGE_CACHE, STALE_CACHE, Answer, aged_sources
from pkgintel.application.exists import etag_of

__all__ = [
    "NO_STORE",
    "PACKAGE_CACHE",
    "STALE_CACHE",
    "Answer",
    "ClientIdentity",
    "aged_sources",
    "cached_bytes",
    "cached_json",
    "cached_text",
    "plain_json",
]


_etag = etag_of


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
    meta = payload.get("_meta")
    if isinstance(meta, dict) and meta.get("sources"):
        payload = {**payload, "_meta": {**meta, "sources": aged_sources(meta["sources"])}}
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
    Who is calling, as a keyed hash. The client is the socket peer, unless the peer is a trusted
    proxy: then `X-Forwarded-For` is walked from the right (the entry the nearest proxy appended)
    past every trusted proxy, and the first address that is not one is the client. Entries to the
    left of it were written by the client itself and are never believed. Raw addresses are never
    stored or logged.
    """

    def __init__(self, trusted_proxies: list[str], secret: str | None) -> None:
        self._trusted = [ipaddress.ip_network(p, strict=False) for p in trusted_proxies]
        self._secret = (secret or secrets.token_hex(32)).encode()

    def _is_trusted(self, address: str) -> bool:
        try:
            addr = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(addr in net for net in self._trusted)

    def address_of(self, peer: str | None, forwarded: list[str]) -> str:
        """The client address from the socket `peer` and the `X-Forwarded-For` header values."""
        client = peer or "unknown"
        if not self._trusted or not forwarded or not self._is_trusted(client):
            return client
        hops = [h.strip() for value in forwarded for h in value.split(",")]
        for hop in reversed(hops):
            if not hop:
                continue
            if not self._is_trusted(hop):
                return hop
            client = hop
        return client  # every hop is a trusted proxy: the leftmost one is the client

    def _address(self, request: Request) -> str:
        peer = request.client.host if request.client else None
        return self.address_of(peer, request.headers.getlist("x-forwarded-for"))

    def hash(self, address: str) -> str:
        """HMAC-SHA256 of `address`, hex, 32 characters."""
        return hmac.new(self._secret, address.encode(), hashlib.sha256).hexdigest()[:32]

    def key(self, request: Request) -> str:
        """HMAC-SHA256 of the client address, hex, 32 characters."""
        return self.hash(self._address(request))


async def large_json(request: Request, payload: Any, *, cache_control: str = NO_STORE) -> Response:
    """
    A JSON answer too large to encode or compress on the event loop (a scan of tens of thousands of
    packages): encoded and, when the client accepts it, compressed (brotli quality 4, else gzip 6,
    as the compressor layer would) in a worker thread, so other requests are not stalled meanwhile.
    The compressor layer passes an answer that already has a `Content-Encoding` through untouched.
    """
    encoded = await run_in_threadpool(orjson.dumps, payload)
    headers = {"Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    accepted = {
        part.split(";")[0].strip().lower()
        for part in request.headers.get("accept-encoding", "").split(",")
    }
    if "br" in accepted:
        encoded = await run_in_threadpool(brotli.compress, encoded, quality=4)
        headers["Content-Encoding"] = "br"
    elif "gzip" in accepted:
        encoded = await run_in_threadpool(gzip.compress, encoded, 6)
        headers["Content-Encoding"] = "gzip"
    return Response(encoded, media_type="application/json", headers=headers)
