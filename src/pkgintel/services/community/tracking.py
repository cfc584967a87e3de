"""
`PageTracker`: page views (`POST /api/track`) — the path without query or fragment and the
referrer's host only; no cookies, the client as a keyed hash. Views past the usage retention are
removed with the anomaly reports (`AnomalyService.prune`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from pkgintel.domain.community import referrer_host, tracked_path


class ViewStore(Protocol):
    async def add_page_view(
        self, *, at: datetime, path: str, referrer_host: str | None, client: str
    ) -> None: ...


class PageTracker:
    def __init__(self, store: ViewStore, *, clock: Callable[[], datetime]) -> None:
        self._store, self._clock = store, clock

    async def track(
        self, *, path: str, referrer: str | None, client: str
    ) -> tuple[str, str | None]:
        """Validate (`InvalidInput`) and store one view; the path and host stored."""
        clean, host = tracked_path(path), referrer_host(referrer)
        await self._store.add_page_view(
            at=self._clock(), path=clean, referrer_host=host, client=client
        )
        return clean, host
