"""Evidence link checks for the curator and builder missions: is this page still there?"""

from __future__ import annotations

import httpx

DEAD_STATUSES = frozenset({404, 410})


class HttpLinkChecker:
    """HEAD (GET when HEAD is refused) with redirects; see `check`."""

    def __init__(self, client: httpx.AsyncClient, *, timeout: float = 10.0) -> None:
        self._client = client
        self._timeout = timeout

    async def check(self, url: str) -> str | None:
        """
        None when the page answers; `"dead: HTTP 404"` when it is gone (404/410); `"unknown: ..."`
        when it could not be told (timeout, 5xx, refused): callers must not treat that as dead.
        """
        if not url.startswith(("http://", "https://")):
            return "dead: not an http(s) URL"
        try:
            resp = await self._client.head(url, timeout=self._timeout, follow_redirects=True)
            if resp.status_code in (403, 405, 501):
                resp = await self._client.get(url, timeout=self._timeout, follow_redirects=True)
        except httpx.HTTPError as exc:
            return f"unknown: {exc.__class__.__name__}"
        if resp.status_code in DEAD_STATUSES:
            return f"dead: HTTP {resp.status_code}"
        if resp.status_code >= 400:
            return f"unknown: HTTP {resp.status_code}"
        return None
