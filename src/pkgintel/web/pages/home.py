"""The home page (`/` for browsers, see `web.negotiation`): what the service does, search over every
ecosystem, live counts, the latest malicious advisories, and where agents start."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.domain.errors import StorageError
from pkgintel.domain.packages import Ecosystem
from pkgintel.web.pages.common import runtime_of
from pkgintel.web.render import render

router = APIRouter(include_in_schema=False)

LATEST_ADVISORIES = 8
HOME_PATH = "/home"
"""Where the negotiation middleware sends a browser's `GET /` (also reachable directly)."""


async def counts(request: Request) -> dict[str, Any]:
    """Packages in the loaded name indexes, advisory records held, ecosystems covered; None for a
    count that cannot be read right now (shown as unavailable, never as 0)."""
    runtime = runtime_of(request)
    out: dict[str, Any] = {
        "ecosystems": len(Ecosystem),
        "packages": None,
        "advisories": None,
        "malicious": None,
    }
    try:
        indexes = await runtime.status.name_indexes()
        out["packages"] = sum(int(i.get("names") or 0) for i in indexes) if indexes else None
    except StorageError:
        pass
    try:
        per_eco = (await runtime.advisories.summary())["ecosystems"]
        if per_eco:
            out["advisories"] = sum(e["advisory_records"] for e in per_eco.values())
            out["malicious"] = sum(e["malicious_records"] for e in per_eco.values())
    except StorageError:
        pass
    return out


@router.get(HOME_PATH)
async def home(request: Request) -> Response:
    runtime = runtime_of(request)
    try:
        latest = await runtime.feed.recent(LATEST_ADVISORIES)
        feed_error = None
    except StorageError as exc:
        latest, feed_error = [], exc.message
    return render(
        request,
        "home.html",
        {
            "title": "Package intelligence",
            "counts": await counts(request),
            "latest": [e.payload for e in latest],
            "feed_error": feed_error,
            "public_url": runtime.public_url,
        },
    )
