"""Pure compatibility rules: stack parsing, markers, preference order, resolver."""

from __future__ import annotations

import pytest

from pkgintel.domain.errors import InvalidInput
from pkgintel.domain.knowledge.compat import (
    PublishedConstraints,
    Requirement,
    StackItem,
    VersionConstraints,
    check_stack,
    marker_applies,
    preference_order,
    suggest_versions,
)
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.ranges import requirement_met as satisfies
from pkgintel.services.knowledge.compatibility import parse_stack


def test_parse_stack_handles_scopes_and_runtimes() -> None:
    assert parse_stack("@types/react@18.2.0, react@18.2.0,node@18.17.0") == {
        "@types/react": "18.2.0",
        "react": "18.2.0",
        "node": "18.17.0",
    }
    with pytest.raises(InvalidInput):
        parse_stack("@types/react")


def test_ranges_per_ecosystem() -> None:
    assert satisfies(Ecosystem.NPM, "18.2.0", "^17.0.0 || ^18.0.0") is True
    assert satisfies(Ecosystem.NPM, "18.3.0-canary.1", "^18.2.0") is False
    assert satisfies(Ecosystem.NPM, "1.0.0", "github:user/repo") is None
    assert satisfies(Ecosystem.PYPI, "3.9", ">=3.8,<4") is True
    assert satisfies(Ecosystem.PYPI, "2.0.0", "<2") is False
    assert satisfies(Ecosystem.CARGO, "1.0.0", "^1") is True
    assert satisfies(Ecosystem.CARGO, "2.0.0", "1.2") is False  # caret by default
    assert satisfies(Ecosystem.GO, "v1.0.0", "v1.0.0") is None  # Go has no range grammar


def test_markers_are_evaluated_for_the_stated_python() -> None:
    assert marker_applies('python_version < "3.11"', "3.9") is True
    assert marker_applies('python_version < "3.11"', "3.12") is False
    assert marker_applies('extra == "socks"', "3.12") is False


def test_pypi_requirement_conflict_with_marker() -> None:
    items = [StackItem("requests", "2.31.0"), StackItem("urllib3", "1.21.0")]
    vc = VersionConstraints(
        "2.31.0", (Requirement("urllib3", ">=1.21.1,<3", "runtime"),), {"python": ">=3.7"}
    )
    conflicts, _ = check_stack(
        Ecosystem.PYPI,
        items,
        {"requests": vc},
        runtimes={},
        python="3.12",
        source_of=lambda n: "pypi.org",
    )
    assert [(c.package, c.requires, c.kind) for c in conflicts] == [
        ("requests", "urllib3", "requires")
    ]
    conflicts, _ = check_stack(
        Ecosystem.PYPI,
        items,
        {"requests": vc},
        runtimes={"python": "3.6"},
        python="3.6",
        source_of=lambda n: "pypi.org",
    )
    assert {c.kind for c in conflicts} == {"requires", "engine"}


def test_preference_order_prefers_same_major_then_nearest_majors() -> None:
    order = preference_order(["16.0.0", "17.0.0", "17.0.2", "18.0.0", "18.2.0"], "17.0.0")
    assert order == ["17.0.0", "17.0.2", "18.2.0", "18.0.0", "16.0.0"]


def test_resolver_finds_nearest_consistent_versions() -> None:
    def pub(name: str, table: dict[str, tuple[Requirement, ...]]) -> PublishedConstraints:
        return PublishedConstraints(
            name,
            tuple(table),
            {v: VersionConstraints(v, reqs) for v, reqs in table.items()},
            "test",
        )

    published = {
        "lib": pub("lib", {"1.0.0": (), "2.0.0": ()}),
        "plugin": pub(
            "plugin",
            {
                "1.0.0": (Requirement("lib", "^1.0.0", "peer"),),
                "1.5.0": (Requirement("lib", "^1.0.0", "peer"),),
                "2.0.0": (Requirement("lib", "^2.0.0", "peer"),),
            },
        ),
    }
    items = [StackItem("lib", "2.0.0"), StackItem("plugin", "1.0.0")]
    keep_lib = suggest_versions(
        Ecosystem.NPM, items, published, runtimes={}, python="3.13", anchor="lib"
    )
    assert keep_lib == {"lib": "2.0.0", "plugin": "2.0.0"}
    keep_plugin = suggest_versions(
        Ecosystem.NPM, items, published, runtimes={}, python="3.13", anchor="plugin"
    )
    assert keep_plugin == {"lib": "1.0.0", "plugin": "1.0.0"}
