"""`ecosystems._http.abandon`: side fetches a failed report no longer needs are cancelled, and an
error they already raised is never reported as "exception was never retrieved"."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from pkgintel.ecosystems._http import abandon


async def _fail() -> None:
    raise RuntimeError("upstream down")


async def test_an_abandoned_failed_task_is_not_reported_as_unretrieved() -> None:
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: reported.append(context))
    try:
        failed = asyncio.ensure_future(_fail())
        slow = asyncio.ensure_future(asyncio.sleep(10))
        side = asyncio.gather(_fail(), asyncio.sleep(10))
        await asyncio.sleep(0.01)  # `failed` and the gather's first child have raised
        abandon(failed, slow, side, None)
        await asyncio.sleep(0.01)
        assert slow.cancelled()
        assert failed.done() and side.done()
        del failed, slow, side
        gc.collect()
        await asyncio.sleep(0)
        assert [c.get("message") for c in reported] == []
    finally:
        loop.set_exception_handler(None)
