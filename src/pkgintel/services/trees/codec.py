"""
The cache codec of dependency trees: `encode_tree` and `decode_tree` (`TreeService` keeps trees in
the shared cache; a layout change bumps `service._CACHE_VERSION`).
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

import orjson

from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.provenance import SourceState, SourceStatus
from pkgintel.domain.trees.values import DependencyTree, TreeNode, Unresolved


def encode_tree(tree: DependencyTree) -> bytes:
    """The tree as cache bytes (JSON)."""
    data = asdict(tree)
    data["ecosystem"] = tree.ecosystem.value
    data["computed_at"] = tree.computed_at.isoformat()
    data["sources"] = [{**asdict(s), "status": s.status.value, **_times(s)} for s in tree.sources]
    return orjson.dumps(data)


def _times(s: SourceStatus) -> dict[str, Any]:
    return {
        "fetched_at": s.fetched_at.isoformat() if s.fetched_at else None,
        "data_as_of": s.data_as_of.isoformat() if s.data_as_of else None,
    }


def _when(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def decode_tree(raw: bytes) -> DependencyTree:
    """The tree `encode_tree` wrote. Raises `ValueError`, `KeyError` or `TypeError` for bytes it did
    not write (an entry of an older layout)."""
    data = orjson.loads(raw)
    nodes = tuple(
        TreeNode(
            **{
                **n,
                "required_by": tuple(n["required_by"]),
                "dependencies": tuple(n["dependencies"]),
                "minimums": tuple(tuple(m) for m in n.get("minimums", ())),
            }
        )
        for n in data["nodes"]
    )
    sources = tuple(
        SourceStatus(
            s["name"],
            s["kind"],
            SourceState(s["status"]),
            _when(s["fetched_at"]),
            s.get("detail"),
            _when(s.get("data_as_of")),
        )
        for s in data["sources"]
    )
    return DependencyTree(
        ecosystem=Ecosystem(data["ecosystem"]),
        root=data["root"],
        nodes=nodes,
        unresolved=tuple(Unresolved(**u) for u in data["unresolved"]),
        conflicts=tuple(data["conflicts"]),
        skipped=tuple(data["skipped"]),
        cycles=tuple(tuple(c) for c in data["cycles"]),
        truncated=data["truncated"],
        truncation=tuple(data["truncation"]),
        max_depth=data["max_depth"],
        max_deps=data["max_deps"],
        environment=data["environment"],
        computed_at=datetime.fromisoformat(data["computed_at"]),
        sources=sources,
    )
