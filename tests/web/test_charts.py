"""The inline SVG history chart and the page memo: pure pieces of the web door."""

from __future__ import annotations

import re

import pytest

from pkgintel.web.charts import health_history_svg
from pkgintel.web.memo import PageMemo


def test_chart_draws_a_point_per_snapshot_with_an_accessible_description() -> None:
    snaps = [{"date": f"2026-11-0{i}", "score": 60 + i} for i in range(1, 6)]
    svg = health_history_svg(snaps, label="requests (pypi)")
    assert svg is not None
    assert svg.count("<circle") == 5 and "<polyline" in svg
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    assert "from 2026-11-01 to 2026-11-05" in svg and "score 61 on the first day, 65" in svg
    ys = [float(y) for y in re.findall(r'<circle class="point" cx="[\d.]+" cy="([\d.]+)"', svg)]
    assert ys == sorted(ys, reverse=True), "rising scores are drawn higher"


def test_chart_of_one_snapshot_is_a_point_and_of_none_is_nothing() -> None:
    one = health_history_svg([{"date": "2026-11-01", "score": 70}], label="x")
    assert one is not None and one.count("<circle") == 1 and "<polyline" not in one
    assert health_history_svg([], label="x") is None
    assert health_history_svg([{"date": "2026-11-01", "score": None}], label="x") is None


def test_chart_escapes_the_label() -> None:
    svg = health_history_svg([{"date": "2026-11-01", "score": 1}], label="<script>")
    assert svg is not None and "<script>" not in svg and "&lt;script&gt;" in svg


async def test_memo_keeps_answers_for_its_ttl_and_never_keeps_errors() -> None:
    now = [0.0]
    memo = PageMemo(ttl_s=30, max_entries=2, clock=lambda: now[0])
    calls: list[str] = []

    async def compute(value: str) -> str:
        calls.append(value)
        return value

    assert await memo.get("a", lambda: compute("a1")) == "a1"
    assert await memo.get("a", lambda: compute("a2")) == "a1"
    now[0] = 31
    assert await memo.get("a", lambda: compute("a3")) == "a3"

    async def fail() -> str:
        raise ValueError("upstream down")

    for _ in range(2):
        with pytest.raises(ValueError, match="upstream down"):
            await memo.get("b", fail)
    assert await memo.get("b", lambda: compute("b1")) == "b1"
    await memo.get("c", lambda: compute("c1"))
    assert await memo.get("a", lambda: compute("a4")) == "a4", "oldest entry evicted"
