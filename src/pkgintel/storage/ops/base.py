"""
`OpsStoreBase`: the engine and the database's clock every table group of `SqlOpsStore` shares.

Every time that decides a lease is the database's, computed inside the statement that uses it,
plus `clock_offset` (zero in production, moved by tests to make time pass); see `storage.ops.jobs`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    DateTime,
    Interval,
    func,
    literal,
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.storage.sql import _aware

Owner = tuple[str, int]
"""The fencing token of a run: (worker id, attempt number)."""


class OpsStoreBase:
    """The engine, its dialect and the database's clock (`_clock`, `db_now`)."""

    def __init__(self, engine: AsyncEngine, *, clock_offset: timedelta = timedelta(0)) -> None:
        self._engine = engine
        self._dialect = engine.dialect.name
        self.clock_offset = clock_offset
        """Added to the database's clock (see the module docstring): tests move time with it."""

    # -- the database's clock --------------------------------------------------------------
    def _clock(self, plus: timedelta = timedelta(0)) -> Any:
        """SQL for the database's time now (+ `clock_offset` + `plus`), evaluated when the
        statement runs — after it got its locks, so a claim that waited for another process's
        commit never records a time before that commit. SQLite gets SQLAlchemy's storage format
        (`YYYY-MM-DD HH:MM:SS.ffffff`, UTC), so stored times compare as before."""
        shift = self.clock_offset + plus
        if self._dialect == "postgresql":
            return func.clock_timestamp(type_=DateTime(timezone=True)) + literal(shift, Interval())
        modifier = f"{shift.total_seconds():+.6f} seconds"
        return func.strftime("%Y-%m-%d %H:%M:%f", "now", modifier).concat("000")

    async def db_now(self) -> datetime:
        """The database's current time (plus `clock_offset`), timezone-aware UTC."""
        async with self._engine.connect() as conn:
            value = (await conn.execute(select(self._clock()))).scalar_one()
        return _aware(value if isinstance(value, datetime) else datetime.fromisoformat(value))
