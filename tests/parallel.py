"""
Each pytest-xdist worker gets its own PostgreSQL database and Redis database (ADR 0040), so
tests running at once in two workers never drop each other's tables or flush each other's keys.

`isolate_worker()` rewrites `PKGINTEL_TEST_DATABASE_URL` / `PKGINTEL_TEST_REDIS_URL` in this
process's environment before any test module reads them: worker `gwN` uses the database
`<name>_gwN` (created when missing) and Redis database `N + 1`. Outside xdist (or `-n 0`) nothing
changes.
"""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit, urlunsplit


def _worker_number() -> int | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else None


async def _create_database(url: str, name: str) -> None:
    import asyncpg  # the driver the service uses for PostgreSQL

    parts = urlsplit(url.replace("postgresql+asyncpg://", "postgresql://", 1))
    admin = urlunsplit(parts._replace(path="/postgres"))
    conn = await asyncpg.connect(admin)
    try:
        found = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name)
        if not found:
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


def isolate_worker() -> None:
    """See the module docstring."""
    number = _worker_number()
    if number is None:
        return
    pg = os.environ.get("PKGINTEL_TEST_DATABASE_URL")
    if pg:
        parts = urlsplit(pg)
        name = f"{parts.path.lstrip('/') or 'pkgintel_test'}_gw{number}"
        asyncio.run(_create_database(pg, name))
        os.environ["PKGINTEL_TEST_DATABASE_URL"] = urlunsplit(parts._replace(path=f"/{name}"))
    redis = os.environ.get("PKGINTEL_TEST_REDIS_URL")
    if redis:
        parts = urlsplit(redis)
        os.environ["PKGINTEL_TEST_REDIS_URL"] = urlunsplit(parts._replace(path=f"/{number + 1}"))
