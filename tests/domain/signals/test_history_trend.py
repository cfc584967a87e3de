"""The health-history trend rule (`domain.signals.history.trend`, documented in docs/scoring.md)."""

from __future__ import annotations

import pytest

from pkgintel.domain.signals.history import trend


@pytest.mark.parametrize(
    ("scores", "direction", "delta"),
    [
        ([], None, None),
        ([80], None, None),
        ([80, 86], "up", 6.0),
        ([80, 84], "stable", 4.0),
        ([90, 90, 90, 70, 70, 70], "down", -20.0),
        # one day's dip in the middle is not a trend
        ([85, 86, 85, 40, 85, 86, 85], "stable", 0.0),
        ([60, 62, 61, 70, 75, 80, 81], "up", 17.7),
    ],
)
def test_trend(scores: list[int], direction: str | None, delta: float | None) -> None:
    got = trend(scores)
    assert got.direction == direction
    assert got.delta == delta
