"""
`LiveFeed`: the malicious-advisory event stream behind `/api/live/malicious`.

Events are rows of `feed_event` (written by ingestion in the same transaction as the records they
announce), so every process serves the same ids and a client resumes with `Last-Event-ID` from
any of them. Each process runs one watcher that learns of new ids from the event bus (Redis
pub/sub, immediate across processes) and from polling the newest id every `poll_s` seconds (which
alone suffices without Redis, and covers lost announcements with it). Connections wait on the
watcher, not on the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from pkgintel.domain.errors import StorageError
from pkgintel.domain.feeds import FeedEvent
from pkgintel.events.base import EventBus
from pkgintel.storage.base import AdvisoryStore

logger = logging.getLogger(__name__)

ADVISORY_KIND = "advisory"
RESUME_LIMIT = 500
"""At most this many missed events are replayed to a resuming client, the newest ones."""


class LiveFeed:
    """Fan-out of stored feed events to connected clients (see the module contract)."""

    def __init__(self, store: AdvisoryStore, bus: EventBus, *, poll_s: float = 0.5) -> None:
        self._store = store
        self._bus = bus
        self._poll_s = poll_s
        self._latest = 0
        self._changed = asyncio.Condition()
        self._tasks: list[asyncio.Task[None]] = []
        self._started = False
        self.clients = 0

    async def latest_id(self) -> int:
        """The newest stored event id."""
        return await self._store.last_event_id()

    async def recent(self, limit: int = 20) -> list[FeedEvent]:
        """The newest `limit` advisory events, newest first (what a page shows before streaming)."""
        newest = await self._store.last_event_id()
        events = await self._store.events_after(
            max(0, newest - limit * 4), kind=ADVISORY_KIND, limit=limit * 4
        )
        return events[::-1][:limit]

    async def _ensure_started(self) -> None:
        if self._started:
            return
        self._started = True
        try:
            self._latest = await self._store.last_event_id()
        except StorageError:
            self._latest = 0
        self._tasks = [
            asyncio.create_task(self._poll(), name="live-feed-poll"),
            asyncio.create_task(self._listen(), name="live-feed-bus"),
        ]

    async def _advance(self, event_id: int) -> None:
        if event_id > self._latest:
            self._latest = event_id
            async with self._changed:
                self._changed.notify_all()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self._poll_s)
            try:
                await self._advance(await self._store.last_event_id())
            except StorageError as exc:
                logger.warning("live feed poll failed: %s", exc)

    async def _listen(self) -> None:
        async for event_id in self._bus.listen():
            await self._advance(event_id)

    async def publish(self, event_id: int) -> None:
        """Announce an id stored by this process (ingestion in the server process)."""
        await self._bus.publish(event_id)
        await self._advance(event_id)

    async def events(self, after: int | None, *, wait_s: float) -> AsyncIterator[FeedEvent | None]:
        """
        Advisory events with ids above `after` (None: only events from now on), as they are
        stored; yields None when `wait_s` passes without one (the caller sends a keep-alive).
        Runs until the caller stops iterating.
        """
        await self._ensure_started()
        cursor = self._latest if after is None else after
        if after is not None and self._latest - after > RESUME_LIMIT:
            cursor = self._latest - RESUME_LIMIT
        self.clients += 1
        try:
            while True:
                if self._latest > cursor:
                    batch = await self._store.events_after(
                        cursor, kind=ADVISORY_KIND, limit=RESUME_LIMIT
                    )
                    for event in batch:
                        cursor = event.id
                        yield event
                    if not batch:
                        cursor = self._latest
                    continue
                try:

                    def newer(seen: int = cursor) -> bool:
                        return self._latest > seen

                    async with self._changed:
                        await asyncio.wait_for(self._changed.wait_for(newer), timeout=wait_s)
                except TimeoutError:
                    yield None
        finally:
            self.clients -= 1

    async def close(self) -> None:
        """Stop the watcher tasks and the bus."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        self._started = False
        await self._bus.close()
