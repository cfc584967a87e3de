"""Minimal version selection (`domain/trees/mvs.py`): the highest minimum wins, every reached version's
requirements count, Go's version order (pseudo-versions, `+incompatible`), graph pruning."""

from __future__ import annotations

import pytest

from pkgintel.domain.trees.mvs import build_list, highest, newer, prunes, select


def test_a_later_higher_minimum_raises_the_selection() -> None:
    # The go.dev MVS example: A 1.2 and C 1.2 both need D; the build takes D 1.4 (C's), not 1.3.
    graph = {
        ("main", "v1"): [("a", "v1.2.0"), ("b", "v1.2.0")],
        ("a", "v1.2.0"): [("c", "v1.3.0")],
        ("b", "v1.2.0"): [("c", "v1.4.0")],
        ("c", "v1.3.0"): [("d", "v1.0.0")],
        ("c", "v1.4.0"): [],
    }
    # c 1.3 is not selected, yet its requirement on d stays in the graph
    assert build_list(("main", "v1"), graph) == {
        "main": "v1",
        "a": "v1.2.0",
        "b": "v1.2.0",
        "c": "v1.4.0",
        "d": "v1.0.0",
    }


def test_pruned_root_reads_only_its_own_requirements() -> None:
    graph = {
        ("root", "v1.0.0"): [("a", "v1.0.0"), ("c", "v1.1.0")],
        ("a", "v1.0.0"): [("c", "v1.5.0"), ("x", "v1.0.0")],
    }
    assert build_list(("root", "v1.0.0"), graph, pruned_root=True) == {
        "root": "v1.0.0",
        "a": "v1.0.0",
        "c": "v1.1.0",
    }
    assert build_list(("root", "v1.0.0"), graph)["c"] == "v1.5.0"


def test_a_cycle_back_to_the_root_can_raise_it() -> None:
    graph = {("root", "v1.0.0"): [("a", "v1.0.0")], ("a", "v1.0.0"): [("root", "v1.2.0")]}
    assert build_list(("root", "v1.0.0"), graph)["root"] == "v1.2.0"


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        # a pseudo-version based on v1.2.3 is a pre-release of v1.2.4: above v1.2.3, below v1.2.4
        (
            ["v1.2.3", "v1.2.4-0.20200101000000-abcdef123456"],
            "v1.2.4-0.20200101000000-abcdef123456",
        ),
        (["v1.2.4", "v1.2.4-0.20200101000000-abcdef123456"], "v1.2.4"),
        # v0.0.0 pseudo-versions (no tag yet) order by their timestamp
        (
            ["v0.0.0-20210101000000-aaaaaaaaaaaa", "v0.0.0-20200101000000-bbbbbbbbbbbb"],
            "v0.0.0-20210101000000-aaaaaaaaaaaa",
        ),
        # +incompatible is build metadata: v2+ of a module without go.mod orders as semver
        (["v2.0.0+incompatible", "v1.9.9", "v2.1.0+incompatible"], "v2.1.0+incompatible"),
        (["v1.10.0", "v1.9.0", "v1.2.0"], "v1.10.0"),
        (["v1.0.0-rc.1", "v1.0.0-beta.2"], "v1.0.0-rc.1"),
    ],
)
def test_highest_uses_go_version_order(versions: list[str], expected: str) -> None:
    assert highest(versions) == expected
    assert highest(reversed(versions)) == expected


def test_select_takes_the_maximum_per_path() -> None:
    assert select([("x", "v1.1.0"), ("y", "v0.1.0"), ("x", "v1.0.5")]) == {
        "x": "v1.1.0",
        "y": "v0.1.0",
    }
    assert newer("v1.0.1", "v1.0.0") and not newer("v1.0.0", "v1.0.0+incompatible")


@pytest.mark.parametrize(
    ("directive", "pruned"),
    [
        ("1.17", True),
        ("1.21.0", True),
        ("1.22rc1", True),
        ("1.16", False),
        ("1.9", False),
        (None, False),
        ("", False),
    ],
)
def test_graph_pruning_starts_at_go_1_17(directive: str | None, pruned: bool) -> None:
    assert prunes(directive) is pruned
