"""The weights the specification fixes."""

from __future__ import annotations

from pkgintel.scoring import COMPONENTS, DEFAULT_WEIGHTS, MAX_SCORE


def test_default_weights_sum_to_max_score() -> None:
    assert sum(DEFAULT_WEIGHTS.values()) == MAX_SCORE == 100


def test_default_weights_match_specification() -> None:
    assert dict(DEFAULT_WEIGHTS) == {
        "maintenance": 25,
        "security": 25,
        "popularity": 20,
        "maturity": 15,
        "community": 15,
    }
    assert tuple(DEFAULT_WEIGHTS) == COMPONENTS
