"""
`load_lock`: one process at a time through a named section that loads shared data (the shipped
knowledge at start), so two workers starting together do not write the same rows at once.

PostgreSQL: a session-level advisory lock (`pg_advisory_lock`) held on its own connection for the
section, released on exit. SQLite: no lock is taken; SQLite runs one write transaction at a time,
and the loads that use this section are idempotent and written in single transactions, so the
second process redoes the same rows, or fails and finds the work done (see `services.knowledge.shipped`).
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for `name` (PostgreSQL advisory locks take a bigint)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@asynccontextmanager
async def load_lock(engine: AsyncEngine, name: str) -> AsyncIterator[None]:
    """Hold the section `name` while the context is open (see the module docstring)."""
    if engine.dialect.name != "postgresql":
        yield
        return
    key = lock_key(name)
    async with engine.connect() as conn:
        await conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": key})
        await conn.commit()
        try:
            yield
        finally:
            await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            await conn.commit()
