"""The live feed, `/feed`: the latest malicious-package advisories rendered on the server, then
(with the page's script) each new one from the `/api/live/malicious` event stream as it arrives."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.domain.errors import StorageError
from pkgintel.web.pages.common import runtime_of
from pkgintel.web.render import render

router = APIRouter(include_in_schema=False)

SHOWN = 50
STREAM = "/api/live/malicious"


@router.get("/feed")
async def feed_page(request: Request) -> Response:
    try:
        latest = [e.payload for e in await runtime_of(request).feed.recent(SHOWN)]
        error = None
    except StorageError as exc:
        latest, error = [], exc.message
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
