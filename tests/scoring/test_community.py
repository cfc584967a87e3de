"""The community component with maintainer facts: bus factor and a first-time publisher on the
latest release lower it; facts we do not have change nothing (ADR 0004)."""

from __future__ import annotations

from pkgintel.scoring import compute_health
from tests.scoring.factories import HEALTHY, NOW, signals


def _community(**changes: object) -> int:
    return compute_health(signals(**changes), now=NOW).breakdown["community"]


def test_unknown_bus_factor_leaves_the_maintainer_count_rule():
    assert _community() == 15
    assert compute_health(HEALTHY, now=NOW).score == 100


def test_one_dominant_publisher_counts_as_two_people():
    # five listed maintainers, one of whom published half the releases → 2 people → 9 points
    assert _community(bus_factor=1) == 9
    assert _community(bus_factor=3) == 15
    why = compute_health(signals(bus_factor=1), now=NOW).explanations["community"]
    assert "bus factor 1" in why


def test_a_sole_maintainer_is_not_double_penalised():
    assert _community(maintainers_count=1, bus_factor=1) == _community(maintainers_count=1)


def test_first_time_publisher_on_latest_costs_three_points():
    assert _community(new_publisher_on_latest=True) == 12
    assert _community(maintainers_count=1, new_publisher_on_latest=True) == 2


def test_community_facts_never_unscore_or_raise_the_score():
    base = compute_health(HEALTHY, now=NOW)
    for changes in ({"bus_factor": 1}, {"new_publisher_on_latest": True}):
        h = compute_health(signals(**changes), now=NOW)
        assert "community" not in h.unscored
        assert h.score <= base.score
