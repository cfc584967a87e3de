"""The weighted request mix of `bench/bench_scale.py` (`bench/_wrk_mix.py`)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from _wrk_mix import Request, interleave, lua_string, wrk_script

MIX = {"exists": 60, "typosquat": 15, "bulk": 10, "check": 10, "status": 5}


def test_interleave_keeps_the_shares_over_whole_cycles() -> None:
    counts = Counter(interleave(MIX, 300))
    assert counts == {"exists": 180, "typosquat": 45, "bulk": 30, "check": 30, "status": 15}


def test_interleave_spreads_kinds_evenly() -> None:
    seq = interleave(MIX, 100)
    # every window of 20 holds each kind at its share, give or take one: no bursts
    for start in range(0, 81):
        window = Counter(seq[start : start + 20])
        for kind, weight in MIX.items():
            assert abs(window[kind] - weight / 5) <= 1, (start, kind, window)


def test_interleave_rejects_bad_weights() -> None:
    with pytest.raises(ValueError, match="positive"):
        interleave({"a": 0}, 5)
    with pytest.raises(ValueError, match="positive"):
        interleave({}, 5)


def test_lua_string_escapes_quotes_backslashes_and_non_ascii() -> None:
    assert lua_string('a"b\\c') == '"a\\034b\\092c"'
    assert lua_string("é") == '"\\195\\169"'
    assert lua_string("/api/exists/npm/@types%2Fnode") == '"/api/exists/npm/@types%2Fnode"'


def test_wrk_script_lists_every_request_with_its_body() -> None:
    script = wrk_script(
        [
            Request("exists", "GET", "/api/exists/npm/lodash"),
            Request("bulk", "POST", "/api/check_bulk", '{"items":[]}'),
        ]
    )
    assert '{"GET", "/api/exists/npm/lodash", nil}' in script
    assert '{"POST", "/api/check_bulk", "{\\034items\\034:[]}"}' in script
    assert 'thread:set("offset", threads * 1)' in script
    with pytest.raises(ValueError, match="at least one"):
        wrk_script([])
