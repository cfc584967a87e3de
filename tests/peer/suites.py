"""
Loading the peer suites of `../shared/data/peer-suites/` (read in place) as pytest parameters.

When the shared data is absent every table becomes one skipped case that says why, so the
suite stays green on a machine without it and never silently passes an empty table.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from tests.shared import SHARED_DATA

PEER = SHARED_DATA / "peer-suites"


@functools.cache
def load(name: str) -> Any:
    """The parsed JSON file `name` of the peer suites, or None when absent."""
    path = PEER / name
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def params(rows: Iterable[Any] | None, ident: Callable[[Any], str], what: str) -> list[Any]:
    """`pytest.param(row, id=...)` for each row; one skipped param when the data is missing."""
    if rows is not None:
        found = list(rows)
        assert found, f"no rows selected from {what}: the table changed shape"
    else:
        found = []
    if not found:
        return [
            pytest.param(
                None,
                id=f"{what}-absent",
                marks=pytest.mark.skip(reason=f"peer suite {what} not found under {PEER}"),
            )
        ]
    seen: dict[str, int] = {}
    out = []
    for row in found:
        base = ident(row)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.append(pytest.param(row, id=base if n == 0 else f"{base}#{n}"))
    return out
