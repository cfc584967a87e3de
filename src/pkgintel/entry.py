"""
The composition of the command line (layer 8, beside `app.py`): the CLI door (`cli/`) plus the two
commands that start a door — `serve` (the HTTP service with `/mcp`, `app.py`) and `mcp` (the MCP
server over stdio) — and `main`, the console-script entry point (`pkgintel`, `python -m pkgintel`).
The CLI door itself never imports the HTTP or MCP doors.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Annotated

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError

from pkgintel.cli.main import app, migrate_database
from pkgintel.config import Settings

__all__ = ["app", "main"]


def serve(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    workers: Annotated[
        int, typer.Option(help="Worker processes (use Redis when more than 1).")
    ] = 1,
) -> None:
    """Start the HTTP service (migrates the database first)."""
    import uvicorn

    from pkgintel.logs import logging_config

    settings = Settings()
    # Reached here, once, so an unreachable database or Redis is one line and exit 2 (under
    # uvicorn the lifespan's failure would be a traceback per worker).
    asyncio.run(_preflight(settings))
    if settings.migrate_on_start:
        # Migrated once here: the workers need not check again (faster first answer).
        os.environ["PKGINTEL_MIGRATE_ON_START"] = "false"
    uvicorn.run(
        "pkgintel.app:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=settings.log_level,
        log_config=logging_config(settings.log_level, settings.log_format),
        proxy_headers=False,
        access_log=False,  # pkgintel.access logs each request with a keyed hash, not the address
    )


async def _preflight(settings: Settings) -> None:
    """Redis and the database reachable (`BadSetting` otherwise); migrated when configured."""
    from pkgintel.runtime.reachability import preflight

    await preflight(settings)
    if settings.migrate_on_start:
        await migrate_database(settings)


def mcp_stdio() -> None:
    """
    Run the MCP server over stdio (for desktop clients: Claude Code, Cursor, VS Code). Same tools as
    `/mcp` of `pkgintel serve`; stdout carries the protocol, logs go to stderr.
    """
    from pkgintel.mcp.server import build_server
    from pkgintel.runtime.bootstrap import build_runtime
    from pkgintel.runtime.worker_host import load_shipped

    settings = Settings()  # logging (stderr only) was set up by the root callback

    async def _run() -> None:
        async with build_runtime(settings) as runtime:
            # The shipped knowledge on a first start (one query when current): `resolve_error`
            # and the typosquat checks answer from it.
            await load_shipped(runtime)
            server = build_server(lambda: runtime, public_url=settings.public_url.rstrip("/"))
            await server.run_stdio_async()

    asyncio.run(_run())


app.command()(serve)
app.command("mcp")(mcp_stdio)


def main() -> None:
    """Console-script entry point. A bad setting (a value `Settings` refuses, or a database or
    Redis that cannot be reached at start) prints one line per setting on stderr and exits 2."""
    from pkgintel.settings_errors import (
        BadSetting,
        BadSettings,
        settings_error_problem,
        settings_problems,
    )

    problems: list[BadSetting]
    try:
        app()
        return
    except BadSettings as exc:
        problems = exc.problems
    except BadSetting as exc:
        problems = [exc]
    except ValidationError as exc:
        if exc.title != "Settings":
            raise
        problems = settings_problems(exc)
    except SettingsError as exc:
        problems = [settings_error_problem(exc)]
    for problem in problems:
        sys.stderr.write(problem.line + "\n")
    sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
