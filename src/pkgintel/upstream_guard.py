"""
Protection of upstream hosts, for every adapter and source at once: the one shared
`httpx.AsyncClient` (built in `bootstrap.py`) sends through `GuardedTransport`, so an adapter added
later is covered without a line of its own.

Per upstream host (`host:port`):

- **Circuit breaker.** `failures` consecutive failures (transport errors, timeouts, 429, 5xx) open
  the circuit: for a backoff (`backoff_s`, doubling per reopening up to `max_backoff_s`, times a
  random jitter in [0.5, 1)) every request fails at once with `CircuitOpen` — no call is made.
  After the backoff one probe request is let through (half-open); its success closes the circuit,
  its failure reopens it with the next backoff. Callers map `CircuitOpen` to
  `RegistryUnavailable(reason="circuit_open")` with `retry_after`, so answers fall back to the stored
  copy (marked stale) or a 503 with `Retry-After`.
- **Concurrency cap.** At most `max_concurrency` requests in flight per host; the others wait.

Per request (`FanOut`, set by the API for each request): at most `limit` packages are looked up
upstream on demand; the rest are answered as "not looked up" and named in the answer.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

import httpx


class CircuitOpen(httpx.TransportError):
    """The host's circuit is open: the request was not sent."""

    def __init__(self, host: str, retry_after_s: float, request: httpx.Request) -> None:
        super().__init__(f"{host}: circuit open for {retry_after_s:.0f} s more", request=request)
        self.host = host
        self.retry_after = max(1, math.ceil(retry_after_s))


@dataclass
class HostState:
    """Breaker state of one host."""

    semaphore: asyncio.Semaphore
    failures: int = 0
    opened: int = 0
    """How many times the circuit opened in a row (drives the backoff)."""
    open_until: float = 0.0
    probing: bool = False

    @property
    def state(self) -> str:
        if self.opened == 0:
            return "closed"
        return "half_open" if self.probing else "open"


@dataclass
class BreakerPolicy:
    failures: int = 5
    backoff_s: float = 5.0
    max_backoff_s: float = 300.0
    max_concurrency: int = 16


@dataclass
class GuardedTransport(httpx.AsyncBaseTransport):
    """An httpx transport that applies the host guards of the module docstring around `inner`."""

    inner: httpx.AsyncBaseTransport
    policy: BreakerPolicy = field(default_factory=BreakerPolicy)
    clock: Callable[[], float] = time.monotonic
    jitter: Callable[[], float] = random.random
    hosts: dict[str, HostState] = field(default_factory=dict)

    def _host(self, request: httpx.Request) -> tuple[str, HostState]:
        url = request.url
        key = f"{url.host}:{url.port}" if url.port else url.host
        state = self.hosts.get(key)
        if state is None:
            state = HostState(asyncio.Semaphore(self.policy.max_concurrency))
            self.hosts[key] = state
        return key, state

    def _admit(self, key: str, state: HostState, request: httpx.Request) -> bool:
        """Raise `CircuitOpen` when no call may be made; True when this call is the probe."""
        if state.opened == 0:
            return False
        now = self.clock()
        if now < state.open_until or state.probing:
            wait = max(state.open_until - now, 1.0)
            raise CircuitOpen(key, wait, request)
        state.probing = True
        return True

    def _failed(self, state: HostState, probe: bool) -> None:
        state.failures += 1
        if probe or (state.opened == 0 and state.failures >= self.policy.failures):
            state.opened += 1
            backoff = min(
                self.policy.max_backoff_s, self.policy.backoff_s * 2 ** (state.opened - 1)
            )
            state.open_until = self.clock() + backoff * (0.5 + self.jitter() / 2)
        if probe:
            state.probing = False

    @staticmethod
    def _succeeded(state: HostState) -> None:
        state.failures = 0
        state.opened = 0
        state.open_until = 0.0
        state.probing = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        key, state = self._host(request)
        probe = self._admit(key, state, request)
        try:
            async with state.semaphore:
                response = await self.inner.handle_async_request(request)
        except httpx.TransportError:
            self._failed(state, probe)
            raise
        except BaseException:
            if probe:
                state.probing = False
            raise
        if response.status_code == 429 or response.status_code >= 500:
            self._failed(state, probe)
        else:
            self._succeeded(state)
        return response

    def states(self) -> dict[str, str]:
        """`host → closed | open | half_open`, for `/api/status`."""
        return {key: state.state for key, state in self.hosts.items()}

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class FanOut:
    """How many packages one request may still look up upstream, and which it could not."""

    limit: int
    used: int = 0
    skipped: list[str] = field(default_factory=list)

    def take(self, name: str) -> bool:
        """Spend one lookup on `name`; False (and `name` recorded) when the budget is spent."""
        if self.used >= self.limit:
            if name not in self.skipped:
                self.skipped.append(name)
            return False
        self.used += 1
        return True


fan_out: ContextVar[FanOut | None] = ContextVar("pkgintel_fan_out", default=None)
"""The current request's budget (None outside a request: the CLI is not bounded)."""
