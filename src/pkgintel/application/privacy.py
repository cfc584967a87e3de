"""GDPR answers (`/api/gdpr/export`, `/api/gdpr/delete`, `/api/gdpr/policy`): the caller is the
keyed hash of its address (`client`), so an answer only ever reaches that hash's rows."""

from __future__ import annotations

from typing import Any

from pkgintel.application.usage_access import meta, usage_services
from pkgintel.runtime.container import Runtime

SOURCE = "pkgintel usage log"


async def gdpr_export_answer(runtime: Runtime, client: str) -> dict[str, Any]:
    """Every stored row linked to `client`, per kind, and how many."""
    rows = await usage_services(runtime).privacy.export(client)
    return {
        "client_hash": client,
        "counts": {kind: len(items) for kind, items in rows.items()},
        "rows": rows,
        "_meta": meta("/api/gdpr/export", SOURCE),
    }


async def gdpr_delete_answer(runtime: Runtime, client: str) -> dict[str, Any]:
    """Erase every row linked to `client`; how many of each kind."""
    removed = await usage_services(runtime).privacy.erase(client)
    return {
        "client_hash": client,
        "deleted": sum(removed.values()),
        "deleted_by_kind": removed,
        "_meta": meta("/api/gdpr/delete", SOURCE),
    }


def gdpr_policy_answer(runtime: Runtime) -> dict[str, Any]:
    return usage_services(runtime).privacy.policy()
