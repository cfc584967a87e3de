"""A running service learns of a name ingestion made by another process (the CLI) within a second,
not when its caches expire."""

from __future__ import annotations

import asyncio
import contextlib

from pkgintel.domain.names.rules import NameEntry
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.names.service import NameService


async def test_cli_ingestion_is_seen_at_once(runtime: Runtime) -> None:
    names = runtime.names
    cli = NameService(names._store)  # another process's service over the same database
    await cli.ingest(Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "old-lib", "old-lib")], source="v1")
    assert (await names.exists(Ecosystem.NPM, "new-lib")).exists is False  # now cached
    follower = asyncio.create_task(names.follow_ingestions(interval_s=0.05))
    try:
        await asyncio.sleep(0.1)
        await asyncio.sleep(0.01)  # loaded_at has a later timestamp than v1's
        await cli.ingest(
            Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "new-lib", "new-lib")], source="v2"
        )
        for _ in range(40):
            if (await names.exists(Ecosystem.NPM, "new-lib")).exists:
                break
            await asyncio.sleep(0.05)
        assert (await names.exists(Ecosystem.NPM, "new-lib")).exists is True
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower


async def test_a_load_by_this_process_keeps_the_pools_built_after_it(runtime: Runtime) -> None:
    """The start-up order: following begins, the shipped names load, the warm-up builds the pools;
    noticing that very load must not drop the warmed pools (the first typosquat answer would build
    them again, seconds of CPU)."""
    names = runtime.names
    follower = asyncio.create_task(names.follow_ingestions(interval_s=0.4))
    try:
        await asyncio.sleep(0.05)  # the follower has read the states (none yet)
        await names.ingest(
            Ecosystem.NPM, [NameEntry(Ecosystem.NPM, "left-pad", "left-pad")], source="names"
        )
        await names.warm()  # before the follower's first poll
        warmed = names.index._pools.kept(Ecosystem.NPM)
        assert warmed is not None
        await asyncio.sleep(1.0)  # the follower polls and sees the load
        assert names.index._pools.kept(Ecosystem.NPM) is warmed
    finally:
        follower.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await follower
