"""Helpers shared by the benchmark scripts (run as `python bench/<script>.py`, so this module is
importable as `_common`): the figures table, the event loop choice, percentiles, server timing."""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile of `values` (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(pct / 100 * len(ordered))) - 1]


@dataclass
class Row:
    """One line of the results table."""

    measurement: str
    result: str
    target: str = ""
    met: bool | None = None


def render_table(rows: list[Row]) -> str:
    head = ("measurement", "result", "target", "met")
    cells = [
        (r.measurement, r.result, r.target, {True: "yes", False: "NO", None: ""}[r.met])
        for r in rows
    ]
    widths = [max(len(c[i]) for c in (head, *cells)) for i in range(len(head))]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += [
        "  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip() for cell in cells
    ]
    return "\n".join(out)


def run_loop(args: argparse.Namespace, coro: Any) -> Any:
    """Run on the loop the service gets from uvicorn (uvloop when installed)."""
    if args.loop == "uvloop":
        import uvloop

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(coro)
    return asyncio.run(coro)


class ServerTimer:
    """Pure ASGI wrapper: time from the request entering the app to its final body chunk."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.last: float | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        self.last = None

        async def timed_send(message: Any) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body"):
                self.last = time.perf_counter() - started
            await send(message)

        await self.app(scope, receive, timed_send)


def pkgintel_cmd() -> list[str]:
    script = Path(sys.executable).parent / "pkgintel"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pkgintel"]
