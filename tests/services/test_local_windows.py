"""`LocalWindows`: the moving-window rule of the `limits` library, in process memory."""

from __future__ import annotations

from pkgintel.services.accounts.local_windows import LocalWindows


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_window_allows_amount_hits_then_refuses_without_counting() -> None:
    clock = Clock()
    windows = LocalWindows(clock)
    seen = [windows.hit("anonymous", "c", 3, 60) for _ in range(3)]
    assert [allowed for allowed, _, _ in seen] == [True, True, True]
    assert [remaining for _, remaining, _ in seen] == [2, 1, 0]
    clock.now += 10
    allowed, remaining, reset = windows.hit("anonymous", "c", 3, 60)
    assert (allowed, remaining) == (False, 0)
    assert reset == 50  # the oldest hit leaves the window 60 s after it was counted
    clock.now += 50
    allowed, remaining, _ = windows.hit("anonymous", "c", 3, 60)
    assert (allowed, remaining) == (True, 2)  # all three left the window together


def test_keys_and_namespaces_count_apart() -> None:
    windows = LocalWindows(Clock())
    assert windows.hit("anonymous", "a", 1, 60)[0]
    assert not windows.hit("anonymous", "a", 1, 60)[0]
    assert windows.hit("anonymous", "b", 1, 60)[0]
    assert windows.hit("gdpr", "a", 1, 60)[0]


def test_a_moving_window_never_allows_a_burst_across_a_boundary() -> None:
    clock = Clock()
    windows = LocalWindows(clock)
    clock.now = 59.0
    assert all(windows.hit("n", "k", 2, 60)[0] for _ in range(2))
    clock.now = 61.0  # a fixed window would have reset at 60
    assert not windows.hit("n", "k", 2, 60)[0]
    clock.now = 119.5
    assert windows.hit("n", "k", 2, 60)[0]
