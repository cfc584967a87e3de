"""
Benchmark of the rate-limit layer (`api/rate_limits.py`): what identifying the caller and counting
one request costs on the request path, in process memory (the default storage).

How: a temporary SQLite database (removed on exit) is migrated; the layer wraps an inner ASGI app
that answers at once, and is called directly (no HTTP, no routing), so the figure is the layer's
own cost: the keyed client hash, the caller's limit, one moving-window hit and its window stats,
the `RateLimit-*` headers. Cases: anonymous callers rotating over 1,000 client addresses (so no
call is refused), one API key (resolved from the in-process cache after its first call; its limit raised to
10,000/minute so no timed call is refused), and the
inner app alone. Each figure: 200 untimed calls, then `--runs` timed calls, p50 / p99 in µs.

Target: the layer adds ≤ 100 µs p50 per request (anonymous and keyed).

Run: `.venv/bin/python bench/bench_rate_limits.py [--runs 5000]`. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pkgintel.api.http import ClientIdentity
from pkgintel.api.rate_limits import RateLimitLayer
from pkgintel.config import Settings
from pkgintel.domain.accounts import Principal
from pkgintel.runtime.bootstrap import prepare_database
from pkgintel.services.accounts.service import build_accounts


async def _inner(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


async def _send(message: Any) -> None:
    return None


async def _receive() -> Any:
    return {"type": "http.request", "body": b""}


def _scope(app: Any, peer: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/api/exists/npm/express",
        "headers": headers,
        "client": (peer, 50000),
        "app": app,
    }


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


async def _time(call: Any, runs: int) -> list[float]:
    for i in range(200):
        await call(i)
    out = []
    for i in range(runs):
        start = time.perf_counter_ns()
        await call(i)
        out.append((time.perf_counter_ns() - start) / 1000)
    return out


async def main(runs: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="pkgintel-bench-limits-"))
    try:
        settings = Settings(_env_file=None, database_url=f"sqlite+aiosqlite:///{folder / 'b.db'}")
        engine, _ = await prepare_database(settings)
        from datetime import UTC, datetime

        accounts = build_accounts(settings, engine, lambda: datetime.now(UTC))
        account = await accounts.store.account_for("bench@example.org", datetime.now(UTC))
        _, key = await accounts.keys.create(account.id, "bench")
        app = SimpleNamespace(state=SimpleNamespace(runtime=SimpleNamespace(accounts=accounts)))
        layer = RateLimitLayer(_inner, ClientIdentity([], "bench-secret"))
        ua = [(b"user-agent", b"python-httpx/0.28")]

        async def anonymous(i: int) -> None:
            peer = f"10.0.{(i // 250) % 4}.{i % 250}"
            await layer(_scope(app, peer, ua), _receive, _send)

        async def keyed(i: int) -> None:
            await layer(
                _scope(app, "10.9.9.9", [*ua, (b"x-api-key", key.encode())]), _receive, _send
            )

        async def bare(i: int) -> None:
            await _inner(_scope(app, "10.0.0.1", ua), _receive, _send)

        assert isinstance((await accounts.principal("x", key=key, session=None)), Principal)
        rows = []
        for name, call in (
            ("inner app alone", bare),
            ("anonymous, 1,000 clients", anonymous),
            ("API key (cached)", keyed),
        ):
            times = await _time(call, runs)
            rows.append((name, _pct(times, 50), _pct(times, 99)))
        print(f"{'case':<28} {'p50 µs':>8} {'p99 µs':>8}")
        for name, p50, p99 in rows:
            print(f"{name:<28} {p50:>8.1f} {p99:>8.1f}")
        await accounts.close()
        await engine.dispose()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    asyncio.run(main(parser.parse_args().runs))
