"""`collector_paused`: nested and concurrent sections re-enable the collector only at the very end."""

from __future__ import annotations

import gc
import threading

from pkgintel.api.gc_pause import collector_paused


def test_nested_sections_restore_the_collector_once() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer section is still running
    assert gc.isenabled()


def test_a_collector_disabled_beforehand_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_exception_still_restores_the_collector() -> None:
    try:
        with collector_paused():
            raise ValueError("boom")
    except ValueError:
        pass
    assert gc.isenabled()


def test_overlapping_threads_keep_it_paused_until_the_last_one_ends() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with collector_paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with collector_paused():
            second_in.set()
            first_out.wait(5)
            seen.append(gc.isenabled())  # the first section has ended; this one has not
        seen.append(gc.isenabled())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False, True]
