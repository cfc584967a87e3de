"""The lost-provenance rule, predecessor choice and publisher comparison."""

from __future__ import annotations

from pkgintel.domain.signals.attestations import (
    SigstoreFacts,
    VersionAttestations,
    compare_with_predecessors,
    predecessors,
    publisher_changed,
)


def _v(version: str, attested: bool) -> VersionAttestations:
    return VersionAttestations(version, attested)


def test_lost_when_the_release_before_was_attested() -> None:
    change = compare_with_predecessors(_v("2.0.1", False), [_v("2.0.0", True), _v("1.9.0", True)])
    assert change.lost_provenance
    assert change.last_attested == "2.0.0"
    assert change.attested_predecessors == 2
    assert "2.0.0" in change.reason


def test_not_lost_again_when_the_loss_was_earlier() -> None:
    change = compare_with_predecessors(_v("2.0.2", False), [_v("2.0.1", False), _v("2.0.0", True)])
    assert not change.lost_provenance
    assert change.last_attested == "2.0.0"
    assert "last seen on 2.0.0" in change.reason


def test_attested_release_never_lost() -> None:
    change = compare_with_predecessors(_v("2.0.1", True), [_v("2.0.0", True)])
    assert not change.lost_provenance


def test_never_attested_is_not_a_loss() -> None:
    change = compare_with_predecessors(_v("1.1.0", False), [_v("1.0.0", False)])
    assert not change.lost_provenance and change.last_attested is None
    assert not compare_with_predecessors(_v("1.0.0", False), []).lost_provenance


def test_predecessors_nearest_first_skipping() -> None:
    ordered = ["1.0.0", "1.1.0", "1.2.0-rc.1", "1.2.0", "1.3.0"]
    assert predecessors(ordered, "1.3.0", skip=frozenset({"1.2.0-rc.1"})) == [
        "1.2.0",
        "1.1.0",
        "1.0.0",
    ]
    assert predecessors(ordered, "1.0.0") == []
    assert predecessors(ordered, "9.9.9") == []
    many = [f"1.{i}.0" for i in range(20)]
    assert len(predecessors(many, "1.19.0")) == 5


def test_publisher_change_ignores_refs() -> None:
    a = SigstoreFacts(
        repository="https://github.com/a/lib",
        workflow="https://github.com/a/lib/.github/workflows/r.yml@refs/tags/v2",
    )
    b = SigstoreFacts(
        repository="https://github.com/a/lib",
        workflow="https://github.com/a/lib/.github/workflows/r.yml@refs/tags/v1",
    )
    assert publisher_changed(a, b) is None
    moved = SigstoreFacts(repository="https://github.com/evil/fork")
    assert publisher_changed(moved, b) == (
        "repository changed from https://github.com/a/lib to https://github.com/evil/fork"
    )
    assert publisher_changed(SigstoreFacts(), b) is None
