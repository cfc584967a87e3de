"""The live feed, `/feed`: the latest malicious-package advisories rendered on the server, then
(with the page's script) each new one from the `/api/live/malicious` event stream as it arrives."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.domain.errors import StorageError
from pkgintel.web.pages.common import memo_of, runtime_of
from pkgintel.web.render import render

router = APIRouter(include_in_schema=False)

SHOWN = 50
STREAM = "/api/live/malicious"


async def latest_advisories(
    request: Request, limit: int
) -> tuple[list[dict[str, Any]], str | None]:
    """The newest `limit` advisory events' payloads, newest first, and why they cannot be read
    (None when they can). Kept in the page memo until a newer event is stored."""
    feed = runtime_of(request).feed

    async def read() -> list[dict[str, Any]]:
        return [e.payload for e in await feed.recent(limit)]

    try:
        newest = await feed.latest_id()
        return await memo_of(request).get(("advisories", newest, limit), read), None
    except StorageError as exc:
        return [], exc.message


@router.get("/feed")
async def feed_page(request: Request) -> Response:
    latest, error = await latest_advisories(request, SHOWN)
    return render(
        request,
        "feed.html",
        {
            "title": "Live malicious-package feed",
            "latest": latest,
            "error": error,
            "stream": STREAM,
        },
    )
