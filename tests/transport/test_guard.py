"""
Upstream protection: the per-host circuit breaker (opens after repeated failures, no call while
open, one half-open probe after a jittered backoff), the per-host concurrency cap, and what the API
answers meanwhile (stale copy marked, or 503 with Retry-After, without a call).
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from pkgintel.config import Settings
from pkgintel.runtime.adapters import build_http_client, configured_upstreams
from pkgintel.transport.guard import (
    BreakerPolicy,
    CircuitOpen,
    FanOut,
    GuardedTransport,
    Upstream,
)


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


MIRROR = (
    Upstream("pypi", "https://mirror.example/pypi"),
    Upstream("osv_export", "https://mirror.example/osv/"),
    Upstream("npm", "https://mirror.example/npm"),
    Upstream("npm_downloads", "https://mirror.example/npm/-/downloads"),
)


async def test_a_failing_upstream_behind_a_shared_mirror_host_blocks_only_itself() -> None:
    clock = Clock()

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503 if request.url.path.startswith("/osv/") else 200)

    calls: list[str] = []

    def record(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        return handler(request)

    transport = GuardedTransport(
        httpx.MockTransport(record),
        BreakerPolicy(failures=3, backoff_s=10.0),
        clock=clock,
        jitter=lambda: 1.0,
        upstreams=MIRROR,
    )
    async with httpx.AsyncClient(transport=transport) as client:
        for _ in range(3):
            assert (await client.get("https://mirror.example/osv/PyPI/all.zip")).status_code == 503
        with pytest.raises(CircuitOpen) as opened:
            await client.get("https://mirror.example/osv/npm/all.zip")
        assert opened.value.host == "osv_export"
        # The registries served by the same host are still asked.
        assert (await client.get("https://mirror.example/pypi/requests/json")).status_code == 200
        assert (await client.get("https://mirror.example/npm/lodash")).status_code == 200
    assert transport.states() == {"osv_export": "open", "pypi": "closed", "npm": "closed"}
    assert calls[-2:] == ["/pypi/requests/json", "/npm/lodash"]


def test_a_request_counts_against_the_longest_matching_base_url() -> None:
    transport = GuardedTransport(
        httpx.MockTransport(lambda r: httpx.Response(200)), upstreams=MIRROR
    )
    key = transport.circuit_key
    assert key(httpx.URL("https://mirror.example/npm/-/downloads/point/last-week/x")) == (
        "npm_downloads"
    )
    assert key(httpx.URL("https://mirror.example/npm/react")) == "npm"
    # A segment boundary, not a string prefix: `/pypi-extra` is not under `/pypi`.
    assert key(httpx.URL("https://mirror.example/pypi-extra/x")) == "mirror.example"
    # Scheme and port are part of the base URL.
    assert key(httpx.URL("http://mirror.example/pypi/x")) == "mirror.example"
    assert key(httpx.URL("https://mirror.example:8443/pypi/x")) == "mirror.example:8443"
    assert key(httpx.URL("https://files.example/pkg.whl")) == "files.example"


def test_upstreams_with_the_same_base_url_share_one_circuit() -> None:
    same = (
        Upstream("b_feed", "https://feeds.example/"),
        Upstream("a_feed", "https://feeds.example"),
    )
    transport = GuardedTransport(httpx.MockTransport(lambda r: httpx.Response(200)), upstreams=same)
    assert transport.circuit_key(httpx.URL("https://feeds.example/x")) == "a_feed"


def test_every_url_setting_is_a_configured_upstream() -> None:
    settings = Settings(
        upstream_pypi_url="https://mirror.example/pypi",
        upstream_osv_export_url="https://mirror.example/osv",
    )
    found = {u.name: u.base_url for u in configured_upstreams(settings)}
    assert found["pypi"] == "https://mirror.example/pypi"
    assert found["osv_export"] == "https://mirror.example/osv"
    assert "npm" in found and "kev" in found
    assert all(v.startswith(("http://", "https://")) for v in found.values())


async def test_the_shared_client_keeps_a_circuit_per_configured_upstream() -> None:
    settings = Settings(
        upstream_pypi_url="https://mirror.example/pypi",
        upstream_osv_export_url="https://mirror.example/osv",
        upstream_breaker_failures=2,
    )

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503 if request.url.path.startswith("/osv") else 200)

    client = build_http_client(settings, httpx.MockTransport(handler))
    async with client:
        for _ in range(2):
            await client.get("https://mirror.example/osv/PyPI/all.zip")
        with pytest.raises(CircuitOpen):
            await client.get("https://mirror.example/osv/PyPI/all.zip")
        assert (await client.get("https://mirror.example/pypi/requests/json")).status_code == 200


def test_fan_out_budget_names_what_it_skipped() -> None:
    budget = FanOut(2)
    assert budget.take("a") and budget.take("b")
    assert not budget.take("c") and not budget.take("c")
    assert budget.skipped == ["c"]


def test_a_spent_budget_records_each_skipped_name_once_in_constant_time() -> None:
    budget = FanOut(limit=2)
    assert budget.take("a") and budget.take("b")
    for name in ("c", "d", "c", "e", "d"):
        assert not budget.take(name)
    assert budget.skipped == ["c", "d", "e"]
    # A 50,000-package scan past its budget: linear, not quadratic (was minutes, now milliseconds).
    big = FanOut(limit=0)
    started = time.perf_counter()
    for i in range(50_000):
        big.take(f"dep-{i}")
    assert len(big.skipped) == 50_000
    assert time.perf_counter() - started < 2.0
