"""`SqlBenchmarkStore`: hallucination-benchmark results (a run's rows replaced as a whole; the
rows of the newest loaded run read back)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from pkgintel.domain.errors import StorageError
from pkgintel.domain.hallucinations import BenchmarkRow, BenchmarkRun
from pkgintel.storage.tables import benchmark_result


class SqlBenchmarkStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def replace_run(self, run: BenchmarkRun, loaded_at: datetime) -> int:
        """Store `run`, replacing the rows of a run of the same name; rows written."""
        values = [
            {
                "run": run.run,
                "run_date": run.run_date,
                "loaded_at": loaded_at,
                "model": r.model,
                "condition": r.condition,
                "ecosystem": r.ecosystem,
                "trials": r.trials,
                "hallucinated": r.hallucinated,
            }
            for r in run.rows
        ]
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    delete(benchmark_result).where(benchmark_result.c.run == run.run)
                )
                await conn.execute(benchmark_result.insert(), values)
        except SQLAlchemyError as exc:
            raise StorageError(f"could not store the results: {exc.__class__.__name__}") from exc
        return len(values)

    async def latest(self) -> tuple[BenchmarkRun, datetime] | None:
        """The most recently loaded run with its load time, or None before any load."""
        c = benchmark_result.c
        try:
            async with self._engine.connect() as conn:
                newest = (
                    await conn.execute(
                        select(c.run, func.max(c.loaded_at).label("at"))
                        .group_by(c.run)
                        .order_by(func.max(c.loaded_at).desc(), c.run)
                        .limit(1)
                    )
                ).first()
                if newest is None:
                    return None
                rows = (
                    await conn.execute(
                        select(benchmark_result)
                        .where(c.run == newest.run)
                        .order_by(c.model, c.condition, c.ecosystem)
                    )
                ).all()
        except SQLAlchemyError as exc:
            raise StorageError(f"could not read the results: {exc.__class__.__name__}") from exc
        run_date: date | None = rows[0].run_date if rows else None
        at = (
            newest.at if isinstance(newest.at, datetime) else datetime.fromisoformat(str(newest.at))
        )
        run = BenchmarkRun(
            newest.run,
            run_date,
            tuple(
                BenchmarkRow(r.model, r.condition, r.ecosystem, r.trials, r.hallucinated)
                for r in rows
            ),
        )
        return run, at if at.tzinfo else at.replace(tzinfo=UTC)
