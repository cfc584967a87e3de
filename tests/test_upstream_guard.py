"""
Upstream protection: the per-host circuit breaker (opens after repeated failures, no call while
open, one half-open probe after a jittered backoff), the per-host concurrency cap, and what the API
answers meanwhile (stale copy marked, or 503 with Retry-After, without a call).
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pkgintel.upstream_guard import BreakerPolicy, CircuitOpen, FanOut, GuardedTransport


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _guarded(handler, clock: Clock, **policy) -> tuple[GuardedTransport, list[str]]:
    calls: list[str] = []

    def record(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        return handler(request)

    transport = GuardedTransport(
        httpx.MockTransport(record),
        BreakerPolicy(**{"failures": 3, "backoff_s": 10.0, **policy}),
        clock=clock,
        jitter=lambda: 1.0,  # the longest wait of the jitter range: backoff x 1.0
    )
    return transport, calls


async def test_opens_after_repeated_failures_and_makes_no_call_while_open() -> None:
    clock = Clock()
    transport, calls = _guarded(lambda r: httpx.Response(503), clock)
    async with httpx.AsyncClient(transport=transport) as client:
        for _ in range(3):
            assert (await client.get("http://reg.example/a")).status_code == 503
        assert transport.states() == {"reg.example": "open"}
        with pytest.raises(CircuitOpen) as opened:
            await client.get("http://reg.example/b")
        assert len(calls) == 3
        assert opened.value.retry_after == 10
        # Another host is not affected: its request is sent.
        assert (await client.get("http://other.example/a")).status_code == 503
    assert calls[-1] == "http://other.example/a"


async def test_half_open_probe_closes_on_success_and_reopens_longer_on_failure() -> None:
    clock = Clock()
    outcome = {"status": 500}
    transport, calls = _guarded(lambda r: httpx.Response(outcome["status"]), clock)
    async with httpx.AsyncClient(transport=transport) as client:
        for _ in range(3):
            await client.get("http://reg.example/x")
        clock.now += 10.5  # past the first backoff: one probe goes through, and fails
        assert (await client.get("http://reg.example/x")).status_code == 500
        assert len(calls) == 4
        with pytest.raises(CircuitOpen) as again:
            await client.get("http://reg.example/x")
        assert again.value.retry_after == 20  # doubled
        clock.now += 20.5
        outcome["status"] = 200
        assert (await client.get("http://reg.example/x")).status_code == 200
        assert transport.states() == {"reg.example": "closed"}
        assert (await client.get("http://reg.example/x")).status_code == 200
        assert len(calls) == 6


async def test_jitter_spreads_the_backoff() -> None:
    clock = Clock()
    transport = GuardedTransport(
        httpx.MockTransport(lambda r: httpx.Response(503)),
        BreakerPolicy(failures=1, backoff_s=10.0),
        clock=clock,
        jitter=lambda: 0.0,
    )
    async with httpx.AsyncClient(transport=transport) as client:
        await client.get("http://reg.example/x")
        clock.now += 5.1  # backoff x 0.5 with the smallest jitter
        await client.get("http://reg.example/x")  # the probe was let through
        assert transport.hosts["reg.example"].opened == 2


async def test_concurrency_cap_per_host() -> None:
    active = 0
    peak = 0

    async def slow(request: httpx.Request) -> httpx.Response:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01)
        active -= 1
        return httpx.Response(200)

    transport = GuardedTransport(httpx.MockTransport(slow), BreakerPolicy(max_concurrency=3))
    async with httpx.AsyncClient(transport=transport) as client:
        await asyncio.gather(*(client.get(f"http://reg.example/{i}") for i in range(12)))
    assert peak == 3


def test_fan_out_budget_names_what_it_skipped() -> None:
    budget = FanOut(2)
    assert budget.take("a") and budget.take("b")
    assert not budget.take("c") and not budget.take("c")
    assert budget.skipped == ["c"]
