"""`RedisBus`: announcements across worker processes and hosts through Redis pub/sub."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

CHANNEL = "pkgintel:feed-events"


class RedisBus:
    """Publishes ids on one channel; every listener (in any process) hears them."""

    name = "redis"

    def __init__(self, client: Redis, *, channel: str = CHANNEL, retry_s: float = 1.0) -> None:
        self._client = client
        self._channel = channel
        self._retry_s = retry_s
        self._publish_failing = False

    async def publish(self, event_id: int) -> None:
        """Announce `event_id`; a failure is logged once until an announcement succeeds again."""
        try:
            await self._client.publish(self._channel, str(event_id))
        except (RedisError, OSError) as exc:
            if not self._publish_failing:
                self._publish_failing = True
                logger.warning("event announcement failed (%s); listeners will poll", exc)
            return
        if self._publish_failing:
            self._publish_failing = False
            logger.info("event announcements delivered again")

    async def listen(self) -> AsyncIterator[int]:
        """
        Yields announced ids; on a Redis failure waits `retry_s` and subscribes again, until it
        succeeds (polling covers the gap). The loss is logged once (WARNING), the new subscription
        once (INFO), whatever the outage's length.
        """
        lost = False
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._channel)
                if lost:
                    lost = False
                    logger.info("event bus subscribed again to %s", self._channel)
                while True:
                    message = await pubsub.get_message(timeout=30.0)
                    if message is None:
                        continue
                    try:
                        yield int(message["data"])
                    except (TypeError, ValueError):
                        continue
            except (RedisError, OSError) as exc:
                if not lost:
                    lost = True
                    logger.warning("event bus subscription lost (%s); retrying", exc)
                await asyncio.sleep(self._retry_s)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        await self._client.aclose()
