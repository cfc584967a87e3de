"""Helpers shared by the benchmark scripts (run as `python bench/<script>.py`, so this module is
importable as `_common`): the figures table, the event loop choice, percentiles, server timing, the
machine description and the profilers."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import math
import os
import platform
import pstats
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


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


async def tree_cold_and_warm(
    transport: Any, url: str, settings_for: Any, *, cold_runs: int, warm_runs: int
) -> tuple[list[float], list[float], dict[str, Any]]:
    """
    Server times of `GET url` (ms): once in each of `cold_runs` fresh runtimes (`settings_for(i)`
    gives run i's settings: an empty cache and database), and `warm_runs` times more in the first
    (the cached answer). Upstream requests go to `transport`. Returns (cold, warm, last body).
    """
    import httpx

    from pkgintel.app import create_app
    from pkgintel.runtime.bootstrap import build_runtime

    colds: list[float] = []
    warm: list[float] = []
    body: dict[str, Any] = {}
    for i in range(cold_runs):
        settings = settings_for(i)
        async with build_runtime(settings, transport=transport) as rt:
            timer = ServerTimer(create_app(settings, runtime=rt))
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=timer), base_url="http://bench"
            ) as client:
                body = (await client.get(url)).json()
                assert timer.last is not None
                colds.append(timer.last * 1000)
                if i == 0:
                    for _ in range(warm_runs):
                        await client.get(url)
                        assert timer.last is not None
                        warm.append(timer.last * 1000)
    return colds, warm, body


def pkgintel_cmd() -> list[str]:
    script = Path(sys.executable).parent / "pkgintel"
    return [str(script)] if script.exists() else [sys.executable, "-m", "pkgintel"]


def _git(*args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False
    )
    return out.stdout.strip()


def machine_info() -> dict[str, Any]:
    """The machine and the code a result was measured on (load average taken now, at the end)."""
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "nproc": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
        "git_commit": _git("rev-parse", "--short", "HEAD") or None,
        "src_changed_since_commit": bool(_git("status", "--porcelain", "--", "src")),
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
    }


class Profiles:
    """Profiles of in-process loops, kept as text by label: pyinstrument when importable (sampling;
    sees coroutine and greenlet stacks as they are), else cProfile (whose per-function split is
    blurred by SQLAlchemy's greenlet switches and by coroutine suspensions), `top` rows per table."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.results: dict[str, str] = {}
        try:
            import pyinstrument  # noqa: F401

            self.tool = "pyinstrument"
        except ImportError:
            self.tool = "cProfile"

    @contextlib.contextmanager
    def run(self, label: str) -> Iterator[None]:
        if self.tool == "pyinstrument":
            from pyinstrument import Profiler

            sampler = Profiler(interval=0.0002, async_mode="disabled")
            sampler.start()
            try:
                yield
            finally:
                sampler.stop()
                self.results[label] = sampler.output_text(unicode=False, color=False)
            return
        prof = cProfile.Profile()
        prof.enable()
        try:
            yield
        finally:
            prof.disable()
            text = []
            for order in ("tottime", "cumulative"):
                buf = io.StringIO()
                pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(order).print_stats(self.top)
                text.append(f"-- by {order} --\n{buf.getvalue()}")
            self.results[label] = "\n".join(text)
