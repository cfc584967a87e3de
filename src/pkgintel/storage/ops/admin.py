"""
The administration tables of `SqlOpsStore`: curator decisions, the admin audit log and the small
persistent operations settings (`AdminTables`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    insert,
    select,
)

from pkgintel.domain.operations.ops import (
    CuratorDecision,
)
from pkgintel.storage.ops.base import OpsStoreBase
from pkgintel.storage.ops.rows import dumps, loads
from pkgintel.storage.sql import _aware, insert_for
from pkgintel.storage.tables import (
    admin_audit,
    curator_decision,
    ops_setting,
)


class AdminTables(OpsStoreBase):
    """Curator decisions, the admin audit log and operations settings."""

    async def add_decision(
        self, proposal_id: str, decision: str, reason: str, *, now: datetime
    ) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(curator_decision).values(
                    proposal_id=proposal_id, decision=decision, reason=reason, created_at=now
                )
            )

    async def decisions(self, limit: int) -> list[CuratorDecision]:
        c = curator_decision.c
        stmt = select(curator_decision).order_by(c.id.desc()).limit(limit)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            CuratorDecision(r.id, r.proposal_id, r.decision, r.reason, _aware(r.created_at))
            for r in rows
        ]

    async def audit(
        self, *, actor: str, method: str, path: str, status: int, detail: str | None, now: datetime
    ) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(admin_audit).values(
                    created_at=now,
                    actor=actor,
                    method=method,
                    path=path[:2000],
                    status=status,
                    detail=detail,
                )
            )

    async def audit_log(self, limit: int) -> list[dict[str, Any]]:
        c = admin_audit.c
        stmt = select(admin_audit).order_by(c.id.desc()).limit(limit)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            {
                "id": r.id,
                "at": _aware(r.created_at).isoformat(),
                "actor": r.actor,
                "method": r.method,
                "path": r.path,
                "status": r.status,
                "detail": r.detail,
            }
            for r in rows
        ]

    async def get_setting(self, key: str) -> Any:
        async with self._engine.connect() as conn:
            row = (
                await conn.execute(select(ops_setting.c.value).where(ops_setting.c.key == key))
            ).first()
        return loads(row[0]) if row else None

    async def set_setting(self, key: str, value: Any, *, now: datetime) -> None:
        stmt = insert_for(self._dialect, ops_setting).values(
            key=key, value=dumps(value), updated_at=now
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[ops_setting.c.key],
            set_={"value": stmt.excluded.value, "updated_at": stmt.excluded.updated_at},
        )
        async with self._engine.begin() as conn:
            await conn.execute(stmt)

    async def settings_with_prefix(self, prefix: str) -> dict[str, Any]:
        stmt = select(ops_setting.c.key, ops_setting.c.value).where(
            ops_setting.c.key.startswith(prefix)
        )
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return {r[0][len(prefix) :]: loads(r[1]) for r in rows}
