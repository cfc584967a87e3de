"""
The mission tables of `SqlOpsStore`: missions, proposals and the knowledge revisions an applied
proposal writes (`MissionTables`). A revision is reverted, never deleted; `current_revision` is the
newest one not reverted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    func,
    insert,
    select,
    update,
)

from pkgintel.domain.operations.ops import (
    Mission,
    MissionStatus,
    Proposal,
    ProposalStatus,
)
from pkgintel.storage.ops.base import OpsStoreBase
from pkgintel.storage.ops.rows import dumps, loads, mission_row, proposal_row
from pkgintel.storage.sql import _aware
from pkgintel.storage.tables import (
    knowledge_revision,
    mission,
    package_snapshot,
    proposal,
)


class MissionTables(OpsStoreBase):
    """Missions, proposals and knowledge revisions."""

    async def insert_mission(self, m: Mission) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(mission).values(
                    id=m.id,
                    profile=m.profile,
                    params=dumps(m.params),
                    status=m.status.value,
                    created_at=m.created_at,
                    updated_at=m.updated_at,
                    error=m.error,
                    summary=dumps(m.summary),
                )
            )

    async def get_mission(self, mission_id: str) -> Mission | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(mission).where(mission.c.id == mission_id))).first()
        return mission_row(row) if row else None

    async def list_missions(self, *, status: str | None, limit: int) -> list[Mission]:
        stmt = select(mission).order_by(mission.c.created_at.desc()).limit(limit)
        if status:
            stmt = stmt.where(mission.c.status == status)
        async with self._engine.connect() as conn:
            return [mission_row(r) for r in (await conn.execute(stmt)).all()]

    async def move_mission(
        self,
        mission_id: str,
        *,
        current: MissionStatus,
        to: MissionStatus,
        now: datetime,
        error: str | None = None,
        summary: dict[str, Any] | None = None,
    ) -> bool:
        """Compare-and-set of the status: False when it was no longer `current`."""
        values: dict[str, Any] = {"status": to.value, "updated_at": now}
        if error is not None:
            values["error"] = error
        if summary is not None:
            values["summary"] = dumps(summary)
        stmt = (
            update(mission)
            .where(mission.c.id == mission_id, mission.c.status == current.value)
            .values(**values)
        )
        async with self._engine.begin() as conn:
            return bool((await conn.execute(stmt)).rowcount)

    async def recent_snapshots(self, limit: int) -> list[tuple[str, str]]:
        """(ecosystem, normalised name) of the most recently fetched packages (latest version)."""
        c = package_snapshot.c
        stmt = (
            select(c.ecosystem, c.name)
            .where(c.version == "")
            .order_by(c.fetched_at.desc())
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return [(r[0], r[1]) for r in (await conn.execute(stmt)).all()]

    # -- proposals -------------------------------------------------------------------------
    async def insert_proposal(self, p: Proposal) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(
                insert(proposal).values(
                    id=p.id,
                    kind=p.kind,
                    key=p.key,
                    payload=dumps(p.payload),
                    evidence=dumps(p.evidence),
                    status=p.status.value,
                    created_at=p.created_at,
                    mission_id=p.mission_id,
                )
            )

    async def get_proposal(self, proposal_id: str) -> Proposal | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(select(proposal).where(proposal.c.id == proposal_id))).first()
        return proposal_row(row) if row else None

    async def list_proposals(self, *, status: str | None, limit: int) -> list[Proposal]:
        stmt = select(proposal).order_by(proposal.c.created_at.desc(), proposal.c.id).limit(limit)
        if status:
            stmt = stmt.where(proposal.c.status == status)
        async with self._engine.connect() as conn:
            return [proposal_row(r) for r in (await conn.execute(stmt)).all()]

    async def pending_oldest(self, limit: int) -> list[Proposal]:
        stmt = (
            select(proposal)
            .where(proposal.c.status == ProposalStatus.PENDING.value)
            .order_by(proposal.c.created_at, proposal.c.id)
            .limit(limit)
        )
        async with self._engine.connect() as conn:
            return [proposal_row(r) for r in (await conn.execute(stmt)).all()]

    async def same_key(self, kind: str, key: str) -> list[Proposal]:
        stmt = (
            select(proposal)
            .where(proposal.c.kind == kind, proposal.c.key == key)
            .order_by(proposal.c.created_at, proposal.c.id)
        )
        async with self._engine.connect() as conn:
            return [proposal_row(r) for r in (await conn.execute(stmt)).all()]

    async def move_proposal(
        self, proposal_id: str, *, current: ProposalStatus, to: ProposalStatus, **values: Any
    ) -> bool:
        stmt = (
            update(proposal)
            .where(proposal.c.id == proposal_id, proposal.c.status == current.value)
            .values(status=to.value, **values)
        )
        async with self._engine.begin() as conn:
            return bool((await conn.execute(stmt)).rowcount)

    # -- knowledge revisions ---------------------------------------------------------------
    async def current_revision(self, kind: str, key: str) -> tuple[int, int, Any] | None:
        """(revision id, version, payload) of the live entry of (kind, key), or None."""
        k = knowledge_revision.c
        stmt = (
            select(k.id, k.version, k.payload)
            .where(k.kind == kind, k.key == key, k.reverted_at.is_(None))
            .order_by(k.version.desc())
            .limit(1)
        )
        async with self._engine.connect() as conn:
            row = (await conn.execute(stmt)).first()
        return (row.id, row.version, loads(row.payload)) if row else None

    async def write_revision(
        self, *, kind: str, key: str, payload: Any, proposal_id: str | None, now: datetime
    ) -> int:
        """Append the next version of (kind, key); returns the revision id."""
        k = knowledge_revision.c
        async with self._engine.begin() as conn:
            top = (
                await conn.execute(
                    select(func.coalesce(func.max(k.version), 0)).where(
                        k.kind == kind, k.key == key
                    )
                )
            ).scalar_one()
            stmt = (
                insert(knowledge_revision)
                .values(
                    kind=kind,
                    key=key,
                    version=int(top) + 1,
                    payload=dumps(payload) if payload is not None else None,
                    proposal_id=proposal_id,
                    created_at=now,
                )
                .returning(k.id)
            )
            return int((await conn.execute(stmt)).scalar_one())

    async def revert_revision(self, revision_id: int, *, now: datetime) -> bool:
        k = knowledge_revision.c
        stmt = (
            update(knowledge_revision)
            .where(k.id == revision_id, k.reverted_at.is_(None))
            .values(reverted_at=now)
        )
        async with self._engine.begin() as conn:
            return bool((await conn.execute(stmt)).rowcount)

    async def list_revisions(self, kind: str, key: str) -> list[dict[str, Any]]:
        k = knowledge_revision.c
        stmt = select(knowledge_revision).where(k.kind == kind, k.key == key).order_by(k.version)
        async with self._engine.connect() as conn:
            rows = (await conn.execute(stmt)).all()
        return [
            {
                "id": r.id,
                "version": r.version,
                "payload": loads(r.payload),
                "proposal_id": r.proposal_id,
                "created_at": _aware(r.created_at).isoformat(),
                "reverted_at": r.reverted_at and _aware(r.reverted_at).isoformat(),
            }
            for r in rows
        ]
