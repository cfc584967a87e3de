"""`transport.side_tasks.abandon`: side fetches a failed report no longer needs are cancelled, and an
error they already raised is never reported as "exception was never retrieved"."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from pkgintel.transport.side_tasks import abandon


async def _fail() -> None:
    raise RuntimeError("upstream down")


async def _drop_failed_gather(*, use_abandon: bool) -> list[Any]:
    """A gather whose only child failed is done with that error; `cancel()` on it is a no-op that
    leaves the error unretrieved, which the loop reports once the future is collected."""
    loop = asyncio.get_running_loop()
    reported: list[Any] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context.get("message")))
    try:

        async def start_and_drop() -> None:
            side = asyncio.gather(_fail())
            await asyncio.sleep(0.01)
            if use_abandon:
                abandon(side)
            else:
                side.cancel()
            await asyncio.sleep(0.01)

        await start_and_drop()
        for _ in range(3):
            gc.collect()
            await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    return reported


async def test_a_plain_cancel_leaves_the_error_of_a_failed_gather_unretrieved() -> None:
    assert any("never retrieved" in str(m) for m in await _drop_failed_gather(use_abandon=False))


async def test_abandon_retrieves_it() -> None:
    assert await _drop_failed_gather(use_abandon=True) == []


async def test_abandon_cancels_pending_fetches_and_skips_none() -> None:
    slow = asyncio.ensure_future(asyncio.sleep(10))
    abandon(slow, None)
    await asyncio.sleep(0)
    assert slow.cancelled()
