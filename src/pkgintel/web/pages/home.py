"""The home page (`/` for browsers, see `web.negotiation`): what the service does, search over every
ecosystem, live counts, the latest malicious advisories, and where agents start."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from pkgintel.domain.errors import StorageError
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.web.pages.common import memo_of, runtime_of
from pkgintel.web.pages.feed import latest_advisories
from pkgintel.web.render import render

router = APIRouter(include_in_schema=False)

LATEST_ADVISORIES = 8
HOME_PATH = "/home"
"""Where the negotiation middleware sends a browser's `GET /` (also reachable directly)."""


async def counts(runtime: Runtime) -> dict[str, Any]:
    """Packages in the loaded name indexes, advisory and malicious records held, ecosystems
    covered. A count is None when nothing of its kind is loaded (shown as "none loaded") and the
    string "unavailable" when it cannot be read right now: never a 0 that was not counted."""
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
        out["packages"] = "unavailable"
    try:
        per_eco = (await runtime.advisories.summary())["ecosystems"]
        if per_eco:
            out["advisories"] = sum(e["advisory_records"] for e in per_eco.values())
            out["malicious"] = sum(e["malicious_records"] for e in per_eco.values())
    except StorageError:
        out["advisories"] = out["malicious"] = "unavailable"
    return out


@router.get(HOME_PATH)
async def home(request: Request) -> Response:
    latest, feed_error = await latest_advisories(request, LATEST_ADVISORIES)
    runtime = runtime_of(request)
    return render(
        request,
        "home.html",
        {
            "title": "Package intelligence",
            "counts": await memo_of(request).get("counts", lambda: counts(runtime)),
            "latest": latest,
            "feed_error": feed_error,
        },
    )
