"""
Protection of upstream hosts, for every adapter and source at once: the one shared
`httpx.AsyncClient` (built in `runtime/adapters.py`) sends through `GuardedTransport`, so an adapter added
later is covered without a line of its own.

Per configured upstream (its name and base URL, e.g. `pypi` → `https://mirror.example/pypi`): a
request belongs to the configured upstream whose base URL is the longest prefix of its URL (same
scheme, host and port, path on a segment boundary), so several registries and feeds served under one
mirror host (Artifactory, Nexus, a company proxy) each have a circuit of their own. A request that
matches no configured upstream (a URL named by a registry's answer, a redirect target) is keyed by its
`host:port`. Upstreams configured with the same base URL share one circuit (nothing tells them apart).

- **Circuit breaker.** `failures` consecutive failures (transport errors, timeouts, 429, 5xx) open
  the circuit: for a backoff (`backoff_s`, doubling per reopening up to `max_backoff_s`, times a
  random jitter in [0.5, 1)) every request fails at once with `CircuitOpen` — no call is made.
  After the backoff one probe request is let through (half-open); its success closes the circuit,
  its failure reopens it with the next backoff. Callers map `CircuitOpen` to
  `RegistryUnavailable(reason="circuit_open")` with `retry_after`, so answers fall back to the stored
  copy (marked stale) or a 503 with `Retry-After`.
- **Concurrency cap.** At most `max_concurrency` requests in flight per host (`host:port`, whatever
  upstreams it serves); the others wait.

Per request (`FanOut`, set by the API for each request): at most `limit` packages are looked up
upstream on demand; the rest are answered as "not looked up" and named in the answer.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field

import httpx


class CircuitOpen(httpx.TransportError):
    """The host's circuit is open: the request was not sent."""

    def __init__(self, host: str, retry_after_s: float, request: httpx.Request) -> None:
        super().__init__(f"{host}: circuit open for {retry_after_s:.0f} s more", request=request)
        self.host = host
        self.retry_after = max(1, math.ceil(retry_after_s))


@dataclass(frozen=True, slots=True)
class Upstream:
    """One configured upstream: its setting's name (`pypi`, `osv_export`, ...) and base URL."""

    name: str
    base_url: str


@dataclass(frozen=True, slots=True)
class _Prefix:
    scheme: str
    host: str
    port: int | None
    path: str
    """The base URL's path without its trailing slash ("" for the root)."""
    key: str


def _prefixes(upstreams: Iterable[Upstream]) -> tuple[_Prefix, ...]:
    """The http(s) upstreams as match prefixes, longest path first; one key per distinct base URL
    (the first name, by name order, among upstreams configured with the same base URL)."""
    by_base: dict[tuple[str, str, int | None, str], str] = {}
    for upstream in sorted(upstreams, key=lambda u: u.name):
        try:
            url = httpx.URL(upstream.base_url.strip())
        except (httpx.InvalidURL, TypeError):
            continue
        if url.scheme not in ("http", "https") or not url.host:
            continue
        base = (url.scheme, url.host.lower(), url.port, url.path.rstrip("/"))
        by_base.setdefault(base, upstream.name)
    found = [_Prefix(*base, key=name) for base, name in by_base.items()]
    return tuple(sorted(found, key=lambda p: len(p.path), reverse=True))


def _host_key(url: httpx.URL) -> str:
    return f"{url.host}:{url.port}" if url.port else url.host


@dataclass
class HostState:
    """Breaker state of one upstream (or of one unconfigured host)."""

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
    upstreams: Iterable[Upstream] = ()
    """The configured upstreams whose circuits are kept apart (see the module docstring)."""
    hosts: dict[str, HostState] = field(default_factory=dict)
    """Circuit state by key: an upstream's name, or `host:port` for a URL no upstream covers."""
    slots: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    """Concurrency cap by `host:port`."""

    def __post_init__(self) -> None:
        self._prefixes = _prefixes(self.upstreams)

    def circuit_key(self, url: httpx.URL) -> str:
        """The circuit a request to `url` counts against (see the module docstring)."""
        host, port, path = (url.host or "").lower(), url.port, url.path
        for p in self._prefixes:
            if p.host != host or p.port != port or p.scheme != url.scheme:
                continue
            if not p.path or path == p.path or path.startswith(p.path + "/"):
                return p.key
        return _host_key(url)

    def _host(self, request: httpx.Request) -> tuple[str, HostState, asyncio.Semaphore]:
        url = request.url
        key = self.circuit_key(url)
        state = self.hosts.get(key)
        if state is None:
            state = self.hosts[key] = HostState()
        host = _host_key(url)
        slot = self.slots.get(host)
        if slot is None:
            slot = self.slots[host] = asyncio.Semaphore(self.policy.max_concurrency)
        return key, state, slot

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
        key, state, slot = self._host(request)
        probe = self._admit(key, state, request)
        try:
            async with slot:
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
        """`upstream or host → closed | open | half_open`."""
        return {key: state.state for key, state in self.hosts.items()}

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class FanOut:
    """How many packages one request may still look up upstream, and which it could not."""

    limit: int
    used: int = 0
    skipped: list[str] = field(default_factory=list)
    _skipped_set: set[str] = field(default_factory=set, repr=False)

    def take(self, name: str) -> bool:
        """Spend one lookup on `name`; False (and `name` recorded once, in order) when the budget
        is spent. Constant time: a 50,000-package scan past its budget records each name once."""
        if self.used >= self.limit:
            if name not in self._skipped_set:
                self._skipped_set.add(name)
                self.skipped.append(name)
            return False
        self.used += 1
        return True


fan_out: ContextVar[FanOut | None] = ContextVar("pkgintel_fan_out", default=None)
"""The current request's budget (None outside a request: the CLI is not bounded)."""
