"""
Inline SVG charts, built as strings by pure functions (no script, no external file): the CSP allows
inline SVG and the page draws without JavaScript. Every chart is an `img` with a title and a
description in words, so a screen reader hears what a sighted reader sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 12, 12, 28


def _x(i: int, n: int) -> float:
    span = WIDTH - LEFT - RIGHT
    return LEFT + (span / 2 if n == 1 else span * i / (n - 1))


def _y(score: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - max(0.0, min(100.0, score)) / 100)


def health_history_svg(snapshots: Sequence[dict[str, Any]], *, label: str) -> str | None:
    """
    A line chart of `snapshots` (the `/api/history` wire: `date`, `score`, oldest first) on a 0–100
    scale, with a point per day and a tooltip per point; None when no snapshot has a score (the
    page says why instead of drawing an empty axis). `label` names the package in the title.
    """
    points = [(str(s["date"]), float(s["score"])) for s in snapshots if s.get("score") is not None]
    if not points:
        return None
    n = len(points)
    coords = [(_x(i, n), _y(score)) for i, (_, score) in enumerate(points)]
    first, last = points[0], points[-1]
    desc = (
        f"{n} daily health snapshot{'s' if n != 1 else ''} from {first[0]} to {last[0]}; "
        f"score {first[1]:g} on the first day, {last[1]:g} on the last, "
        f"lowest {min(s for _, s in points):g}, highest {max(s for _, s in points):g}."
    )
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-title">Health score history of {escape(label)}</title>',
        f'<desc id="chart-desc">{escape(desc)}</desc>',
    ]
    for tick in (0, 25, 50, 75, 100):
        y = _y(tick)
        parts.append(
            f'<line class="grid-line" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>'
        )
    parts.append(
        f'<text x="{LEFT}" y="{HEIGHT - 8}">{escape(first[0])}</text>'
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{escape(last[0])}</text>'
    )
    if n > 1:
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline class="series" points="{line}"/>')
    for (x, y), (day, score) in zip(coords, points, strict=True):
        parts.append(
            f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="3.5">'
            f"<title>{escape(day)}: {score:g}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def usage_bars_svg(calls: Sequence[dict[str, Any]]) -> str | None:
    """
    A bar a day of an account's calls (the usage answer's `{day, endpoint, calls}` rows, summed
    per day), oldest first; None when there is no call to draw.
    """
    per_day: dict[str, int] = {}
    for row in calls:
        per_day[str(row["day"])] = per_day.get(str(row["day"]), 0) + int(row["calls"])
    if not per_day:
        return None
    days = sorted(per_day)
    top = max(per_day.values()) or 1
    span = WIDTH - LEFT - RIGHT
    width = span / len(days)
    total = sum(per_day.values())
    desc = f"{total} calls over {len(days)} days from {days[0]} to {days[-1]}; busiest day {top}."
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="usage-title usage-desc" xmlns="http://www.w3.org/2000/svg">',
        '<title id="usage-title">Calls per day</title>',
        f'<desc id="usage-desc">{escape(desc)}</desc>',
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" '
        f'y2="{HEIGHT - BOTTOM}"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end">{top}</text>',
        f'<text x="{LEFT}" y="{HEIGHT - 8}">{escape(days[0])}</text>',
        f'<text x="{WIDTH - RIGHT}" y="{HEIGHT - 8}" text-anchor="end">{escape(days[-1])}</text>',
    ]
    plot = HEIGHT - TOP - BOTTOM
    for i, day in enumerate(days):
        h = plot * per_day[day] / top
        x = LEFT + i * width
        parts.append(
            f'<rect class="point" x="{x + width * 0.1:.1f}" y="{HEIGHT - BOTTOM - h:.1f}" '
            f'width="{width * 0.8:.1f}" height="{h:.1f}"><title>{escape(day)}: '
            f"{per_day[day]} calls</title></rect>"
        )
    parts.append("</svg>")
    return "".join(parts)
