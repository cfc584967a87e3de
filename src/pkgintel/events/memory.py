"""`MemoryBus`: announcements within one process (the default without Redis)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator


class MemoryBus:
    """Fans each published id out to this process's listeners; other processes learn by polling."""

    name = "memory"

    def __init__(self) -> None:
        self._queues: set[asyncio.Queue[int]] = set()

    async def publish(self, event_id: int) -> None:
        for queue in list(self._queues):
            queue.put_nowait(event_id)

    async def listen(self) -> AsyncIterator[int]:
        queue: asyncio.Queue[int] = asyncio.Queue()
        self._queues.add(queue)
        try:
            while True:
                yield await queue.get()
        finally:
            self._queues.discard(queue)

    async def close(self) -> None:
        self._queues.clear()
