"""
Proposals: proposed changes to curated knowledge, decided by a person or the curator, then applied.

Statuses: `pending → approved | rejected`, `approved → applied`, `applied → reverted`.

Applying goes through an **applier registry keyed by proposal kind** (`Applier` below). An applier
writes the proposal into the knowledge table of its kind and returns a revision id; `revert` undoes
exactly that revision. This branch ships `RevisionApplier`, which keeps every kind's entries as
versions in `knowledge_revision` (the live entry of a key is its newest version not reverted).
A knowledge table built elsewhere (error fixes, alternatives, breaking changes) plugs in by
registering its own `Applier` for its kind in `bootstrap.build_appliers`; a kind with no applier can
still be approved, it just stays `approved` with a note until one exists.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol

from pkgintel.domain.operations.ops import (
    OpsNotFound,
    Proposal,
    ProposalStatus,
    check_proposal_move,
)
from pkgintel.services.operations.jobs import Clock, utcnow
from pkgintel.storage.ops_base import OpsStore

PROPOSAL_KINDS = ("alternative", "breaking_change", "error_fix", "compat_rule", "bug")


class Applier(Protocol):
    """Writes approved proposals of one kind into its knowledge table."""

    async def apply(self, proposal: Proposal) -> int:
        """Write `proposal.payload` as the new entry of `proposal.key`; return a revision id
        that `revert` accepts. Must not partially write: raise instead."""
        ...

    async def revert(self, proposal: Proposal) -> None:
        """Undo the revision `proposal.revision_id`, bringing back what was there before."""
        ...


class RevisionApplier:
    """Versioned entries in `knowledge_revision` (see the module docstring)."""

    def __init__(self, store: OpsStore, kind: str, *, clock: Clock = utcnow) -> None:
        self._store = store
        self.kind = kind
        self._clock = clock

    async def apply(self, proposal: Proposal) -> int:
        return await self._store.write_revision(
            kind=self.kind,
            key=proposal.key,
            payload={**proposal.payload, "evidence": proposal.evidence},
            proposal_id=proposal.id,
            now=self._clock(),
        )

    async def revert(self, proposal: Proposal) -> None:
        if proposal.revision_id is not None:
            await self._store.revert_revision(proposal.revision_id, now=self._clock())


class ProposalService:
    """Create, list, decide, apply and revert proposals."""

    def __init__(
        self, store: OpsStore, appliers: Mapping[str, Applier], *, clock: Clock = utcnow
    ) -> None:
        self._store = store
        self.appliers = dict(appliers)
        self._clock = clock

    async def create(
        self,
        *,
        kind: str,
        key: str,
        payload: dict[str, Any],
        evidence: list[dict[str, Any]],
        mission_id: str | None = None,
    ) -> Proposal:
        p = Proposal(
            id=str(uuid.uuid4()),
            kind=kind,
            key=key[:512],
            payload=payload,
            evidence=evidence,
            status=ProposalStatus.PENDING,
            created_at=self._clock(),
            mission_id=mission_id,
        )
        await self._store.insert_proposal(p)
        return p

    async def get(self, proposal_id: str) -> Proposal:
        found = await self._store.get_proposal(proposal_id)
        if found is None:
            raise OpsNotFound("proposal", proposal_id)
        return found

    async def list(self, *, status: str | None, limit: int) -> list[Proposal]:
        return await self._store.list_proposals(status=status, limit=limit)

    async def _move(self, p: Proposal, to: ProposalStatus, **values: Any) -> Proposal:
        check_proposal_move(p.id, p.status, to)
        if not await self._store.move_proposal(p.id, current=p.status, to=to, **values):
            fresh = await self.get(p.id)
            check_proposal_move(p.id, fresh.status, to)  # raises: someone moved it meanwhile
        return await self.get(p.id)

    async def decide(
        self, proposal_id: str, *, approve: bool, reason: str, actor: str, apply: bool = True
    ) -> Proposal:
        """Approve (and apply, when an applier exists for the kind) or reject a pending proposal.
        Raises `OpsNotFound`, `IllegalTransition` (not pending)."""
        p = await self.get(proposal_id)
        to = ProposalStatus.APPROVED if approve else ProposalStatus.REJECTED
        p = await self._move(
            p, to, decided_at=self._clock(), decided_by=actor[:64], reason=reason[:2000]
        )
        if approve and apply:
            p = await self.apply(p)
        return p

    async def apply(self, p: Proposal) -> Proposal:
        """Apply an approved proposal through its kind's applier; unchanged without one."""
        applier = self.appliers.get(p.kind)
        if applier is None:
            return p
        check_proposal_move(p.id, p.status, ProposalStatus.APPLIED)
        revision = await applier.apply(p)
        moved = await self._store.move_proposal(
            p.id,
            current=ProposalStatus.APPROVED,
            to=ProposalStatus.APPLIED,
            applied_at=self._clock(),
            revision_id=revision,
        )
        if not moved:  # applied twice concurrently: undo ours
            await applier.revert(replace(p, revision_id=revision))
        return await self.get(p.id)

    async def revert(self, proposal_id: str, *, actor: str) -> Proposal:
        p = await self.get(proposal_id)
        check_proposal_move(p.id, p.status, ProposalStatus.REVERTED)
        applier = self.appliers.get(p.kind)
        if applier is not None:
            await applier.revert(p)
        return await self._move(p, ProposalStatus.REVERTED, decided_by=actor[:64])

    async def duplicates_of(self, p: Proposal) -> builtins.list[Proposal]:
        """Earlier proposals of the same kind and key that are pending, approved or applied."""
        live = {ProposalStatus.PENDING, ProposalStatus.APPROVED, ProposalStatus.APPLIED}
        return [
            o
            for o in await self._store.same_key(p.kind, p.key)
            if o.id != p.id and o.status in live and (o.created_at, o.id) < (p.created_at, p.id)
        ]

    async def knowledge(self, kind: str, key: str) -> Any:
        """The live entry of (kind, key) in the revision store, or None."""
        current = await self._store.current_revision(kind, key)
        return current[2] if current else None


def proposal_wire(p: Proposal) -> dict[str, Any]:
    """JSON shape of a proposal."""
    return {
        "id": p.id,
        "kind": p.kind,
        "key": p.key,
        "payload": p.payload,
        "evidence": p.evidence,
        "status": p.status.value,
        "created_at": p.created_at.isoformat(),
        "mission_id": p.mission_id,
        "decided_at": p.decided_at.isoformat() if p.decided_at else None,
        "decided_by": p.decided_by,
        "reason": p.reason,
        "applied_at": p.applied_at.isoformat() if p.applied_at else None,
        "revision_id": p.revision_id,
    }
