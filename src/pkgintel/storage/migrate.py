"""Apply Alembic migrations on an async engine (used by `pkgintel migrate` and at start)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncEngine

MIGRATIONS = Path(__file__).with_name("migrations")


def _config(connection: Any) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("path_separator", "os")
    cfg.set_main_option("version_locations", str(MIGRATIONS / "versions"))
    cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str | None:
    """The newest revision shipped with this version of the code."""
    return ScriptDirectory.from_config(_config(None)).get_current_head()


async def upgrade(engine: AsyncEngine) -> str | None:
    """Bring the database to the newest revision; returns it. Idempotent."""

    def _run(sync_conn: Any) -> str | None:
        command.upgrade(_config(sync_conn), "head")
        return MigrationContext.configure(sync_conn).get_current_revision()

    async with engine.begin() as conn:
        return await conn.run_sync(_run)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at (None when never migrated)."""

    def _run(sync_conn: Any) -> str | None:
        return MigrationContext.configure(sync_conn).get_current_revision()

    async with engine.connect() as conn:
        return await conn.run_sync(_run)
