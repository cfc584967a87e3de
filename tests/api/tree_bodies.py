"""Reading `/api/tree` answers in tests: a node by id, the ids, the skipped edges."""

from __future__ import annotations

from typing import Any


def node(body: dict[str, Any], node_id: str) -> dict[str, Any]:
    """The node `node_id` of a tree answer (StopIteration when absent)."""
    return next(n for n in body["nodes"] if n["id"] == node_id)


def ids(body: dict[str, Any]) -> set[str]:
    """Every node id of a tree answer."""
    return {n["id"] for n in body["nodes"]}
