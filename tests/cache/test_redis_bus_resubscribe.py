"""`RedisBus.listen` subscribes again when Redis comes back (announcements flow again), saying the
loss once and the new subscription once, however long Redis is away."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from pkgintel.events.redis_bus import RedisBus


class FakePubSub:
    def __init__(self, client: FakeRedis) -> None:
        self._client = client

    async def subscribe(self, channel: str) -> None:
        self._client.subscriptions += 1
        if self._client.down_for > 0:
            self._client.down_for -= 1
            raise RedisConnectionError(
                "Error 111 connecting to 127.0.0.1:6379. Connection refused."
            )

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        if self._client.drop_next:
            self._client.drop_next = False
            raise RedisConnectionError("Connection closed by server.")
        if self._client.queue:
            return {"type": "message", "data": self._client.queue.pop(0)}
        return None

    async def aclose(self) -> None:
        return None


class FakeRedis:
    def __init__(self) -> None:
        self.subscriptions = 0
        self.down_for = 0
        self.drop_next = False
        self.queue: list[bytes] = []

    def pubsub(self, ignore_subscribe_messages: bool = True) -> FakePubSub:
        return FakePubSub(self)


async def test_listener_resubscribes_after_an_outage(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="pkgintel.events.redis_bus")
    client = FakeRedis()
    bus = RedisBus(client, retry_s=0.0)  # type: ignore[arg-type]
    listener = bus.listen()
    client.queue.append(b"1")
    assert await anext(listener) == 1
    # Redis goes away: the subscription drops, and 20 attempts to subscribe again fail.
    client.drop_next = True
    client.down_for = 20
    client.queue.append(b"2")
    assert await anext(listener) == 2  # heard once Redis is back
    assert client.subscriptions == 22
    messages = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in messages] == ["WARNING", "INFO"], messages
    await listener.aclose()
