"""
The import graph of `src/pkgintel` has no circle, and the capabilities under `services/` import
only downward, in the order `services/__init__.py` documents: a capability imports capabilities of
a lower level only (peers on one level never import each other), so no circle can form between
them either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pytest

from tests.architecture.import_graph import circles, edges

CAPABILITY_LEVEL: Final[Mapping[str, int]] = {
    "accounts": 1,
    "packages": 1,
    "names": 2,
    "advisories": 3,
    "signals": 3,
    "reports": 4,
    "knowledge": 5,
    "trees": 5,
    "audit": 6,
    "operations": 7,
    "usage": 8,
    "community": 8,
}
"""Each `services/<capability>` package's level (`services/__init__.py` says why)."""

_SERVICES = "pkgintel.services."


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return edges()


def _capability(module: str) -> str | None:
    if not module.startswith(_SERVICES):
        return None
    rest = module[len(_SERVICES) :].split(".")
    return rest[0] if len(rest) > 1 or rest[0] in CAPABILITY_LEVEL else None


def test_no_module_imports_another_in_a_circle(graph: dict[str, set[str]]) -> None:
    assert circles(graph) == []


def test_every_capability_package_has_a_level(graph: dict[str, set[str]]) -> None:
    found = {c for m in graph if (c := _capability(m)) is not None}
    assert found == set(CAPABILITY_LEVEL)


def test_capabilities_import_only_lower_levels(graph: dict[str, set[str]]) -> None:
    upward = []
    for module, targets in graph.items():
        own = _capability(module)
        if own is None:
            continue
        for target in targets:
            other = _capability(target)
            if other is None or other == own:
                continue
            if CAPABILITY_LEVEL[other] >= CAPABILITY_LEVEL[own]:
                upward.append(f"{module} -> {target}")
    assert sorted(upward) == []


def test_the_capability_packages_form_no_circle(graph: dict[str, set[str]]) -> None:
    packages: dict[str, set[str]] = {c: set() for c in CAPABILITY_LEVEL}
    for module, targets in graph.items():
        own = _capability(module)
        if own is None:
            continue
        packages[own] |= {o for t in targets if (o := _capability(t)) not in (None, own)}
    assert circles(packages) == []


def test_circles_are_found_among_any_number_of_modules() -> None:
    """The circle finder reports each strongly connected group once, and nothing for a chain."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
