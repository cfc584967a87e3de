"""
At start, the database and Redis named by the settings are reached once; one that cannot be is a
`BadSetting` (one line, exit 2) instead of a traceback from deep inside the first query.

A composition-level module (it opens engines and clients), used by `bootstrap.prepare_database`,
`bootstrap.build_runtime` and `pkgintel serve`/`migrate` before anything else runs.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Final

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.config import Settings
from pkgintel.settings_errors import BadSetting

PROBE_TIMEOUT_S: Final = 10.0
"""How long one probe may take (a firewalled host never refuses, it just does not answer)."""


def _reason(exc: BaseException) -> str:
    """The first line of an error, with its type when the message alone says little."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {PROBE_TIMEOUT_S:g} s"
    orig = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    inner = orig if isinstance(orig, BaseException) else exc
    first = (str(inner).strip().splitlines() or [""])[0]
    return f"{type(inner).__name__}: {first}" if first else type(inner).__name__


def sqlite_folder_problem(url: str) -> str | None:
    """For a SQLite file URL: why its folder cannot hold the file (missing, not a folder), else
    None (in-memory databases and existing folders)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    if not parsed.drivername.startswith("sqlite") or parsed.database in (None, "", ":memory:"):
        return None
    folder = Path(parsed.database).expanduser().parent
    if not folder.exists():
        return f"the folder {folder} does not exist (create it, or point the file elsewhere)"
    if not folder.is_dir():
        return f"{folder} is not a folder"
    return None


async def check_database(engine: AsyncEngine, url: str) -> None:
    """Connect once and run `SELECT 1`. Raises `BadSetting` for `database_url` naming what failed."""
    problem = sqlite_folder_problem(url)
    if problem is not None:
        raise BadSetting("database_url", url, f"cannot open the database: {problem}")
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception as exc:  # any driver failure means the same to the user: not reachable
        raise BadSetting(
            "database_url", url, f"cannot connect to the database ({_reason(exc)})"
        ) from exc


async def check_redis(url: str | None) -> None:
    """`PING` once when Redis is configured. Raises `BadSetting` for `redis_url` on failure."""
    if not url:
        return
    from redis.asyncio import Redis

    try:
        client = Redis.from_url(url)
    except ValueError as exc:
        raise BadSetting("redis_url", url, f"not a Redis URL ({exc})") from exc
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            await client.ping()
    except Exception as exc:  # connection refused, auth, TLS, DNS: all "cannot reach it"
        raise BadSetting("redis_url", url, f"cannot reach Redis ({_reason(exc)})") from exc
    finally:
        await client.aclose()


async def preflight(settings: Settings) -> None:
    """Redis (when configured) and the database reachable, each probed once; raises `BadSetting`
    naming the first that is not. Opens and closes its own engine."""
    from pkgintel.storage.sql import create_engine

    await check_redis(settings.redis_url)
    engine = create_engine(settings.database_url)
    try:
        await check_database(engine, settings.database_url)
    finally:
        await engine.dispose()


def preflight_blocking(settings: Settings) -> None:
    """`preflight` from synchronous code, also inside a running event loop (uvicorn calls the app
    factory from its loop): it runs on a loop of its own in a helper thread."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pkgintel-preflight") as pool:
        pool.submit(asyncio.run, preflight(settings)).result()
