"""
`SqlOpsStore`: jobs, job events, missions, proposals, knowledge revisions, curator decisions, the
admin audit log and operations settings, on SQLite or PostgreSQL — one class over one engine,
made of one part per table group: `jobs` (the claim, lease, fencing and pruning rules are in its
docstring), `missions` (missions, proposals, revisions) and `admin` (curator, audit, settings).
"""

from __future__ import annotations

from pkgintel.storage.ops.admin import AdminTables
from pkgintel.storage.ops.base import Owner
from pkgintel.storage.ops.jobs import JobTables
from pkgintel.storage.ops.missions import MissionTables

__all__ = ["Owner", "SqlOpsStore"]


class SqlOpsStore(JobTables, MissionTables, AdminTables):
    """Implements `storage.ops_base.OpsStore` on one engine."""
