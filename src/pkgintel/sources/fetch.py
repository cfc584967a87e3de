"""
Where a bulk source's bytes come from: a local path, a `file://` URL or an http(s) URL.

`locate` turns a location into a local file, downloading http(s) URLs to a temporary file by
streaming (never holding a whole export in memory). Nothing here parses: the source modules do.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx

from pkgintel.domain.errors import PkgIntelError


class SourceFetchError(PkgIntelError):
    """A bulk source could not be read: missing file, unreachable URL, or an HTTP error status."""

    reason = "source_unavailable"

    def __init__(self, location: str, message: str) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location


def is_url(location: str) -> bool:
    """True for http(s) URLs (downloaded); `file://` URLs and plain paths are local."""
    return urlsplit(location).scheme in ("http", "https")


def local_path(location: str) -> Path:
    """The local path a `file://` URL or plain path names."""
    parts = urlsplit(location)
    if parts.scheme == "file":
        return Path(unquote(parts.path))
    return Path(location).expanduser()


@asynccontextmanager
async def locate(location: str, client: httpx.AsyncClient) -> AsyncIterator[Path]:
    """
    Yield a local file holding `location`'s bytes; a download is deleted on exit.

    Raises `SourceFetchError` for a missing file, a transport failure or a non-2xx status.
    """
    if not is_url(location):
        path = local_path(location)
        if not path.is_file():
            raise SourceFetchError(location, "no such file")
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="pkgintel-") as tmp:
        target = Path(tmp) / (Path(urlsplit(location).path).name or "download")
        try:
            async with client.stream("GET", location, follow_redirects=True) as response:
                if response.status_code >= 400:
                    raise SourceFetchError(location, f"HTTP {response.status_code}")
                with target.open("wb") as fh:
                    async for chunk in response.aiter_bytes():
                        fh.write(chunk)
        except httpx.HTTPError as exc:
            raise SourceFetchError(location, f"download failed ({exc.__class__.__name__})") from exc
        yield target
