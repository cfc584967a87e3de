"""
The event-bus contract.

Events themselves live in the database (`feed_event`), which is the source of truth and what
`Last-Event-ID` resumes from. A bus only *announces* that events up to an id are stored, so the
processes serving the live feed wake up at once instead of at their next poll. Losing an
announcement therefore delays an event by at most one poll interval; it never loses it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol


class EventBus(Protocol):
    """Announce and hear "events up to `event_id` are stored"."""

    @property
    def name(self) -> str:
        """`memory` or `redis`."""
        ...

    async def publish(self, event_id: int) -> None:
        """Announce `event_id` to every listener (in every process, for a shared bus).
        Never raises: a failed announcement is logged and left to polling."""
        ...

    def listen(self) -> AsyncIterator[int]:
        """Announced ids, as they come, until the caller stops iterating."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...
