"""
Sharing upstream requests: single-flight by key, and one request per URL within one answer.

- `SharedFetches`: one in-flight request per key, awaited by every caller that asks for it while it
  runs; nothing is kept once it ends (adapters use it where two fetches of one report need one body,
  e.g. Hex's package document carries the downloads figure too).
- `one_answer()` / `AnswerFetches`: a composite answer (a compatibility check, a stack audit, a
  tree, a comparison) reads the same documents from several places — detection, loading, each
  resolver candidate's snapshot, each tree node's report — and every `PackageService` snapshot of
  another version of a package asks for the package's document again. While the answer's scope is
  open, `upstream.send` hands every GET of a URL (with the same headers) the outcome of the first
  one: its response, whatever the status, or its error. So each document is asked for once per
  answer, and an upstream that failed is not asked again by the same answer.

Scope (a contextvar, as `upstream_guard.fan_out`): opened by the composite answer itself, so every
door (API, MCP, CLI, briefs) gets it; a nested answer (the stack audit's compatibility check, a
tree node's report) joins the open one. When the outermost scope ends the memo closes: tasks the
answer leaves running (stale-while-revalidate refreshes, second-round report signals) then fetch as
usual, and nothing is ever served from it after the answer. Freshness is unchanged: a kept response
is at most as old as the answer, and the caches behind it (`PackageService`) keep their own
freshness and stale marking.

Memory: response bodies up to `MAX_KEPT_BYTES` in total are kept per answer; past that a request
is still shared while it runs, but not kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from typing import Final, Generic, TypeVar

import httpx

from pkgintel.domain.errors import PkgIntelError

logger = logging.getLogger(__name__)

T = TypeVar("T")

MAX_KEPT_BYTES: Final = 96 * 1024 * 1024
"""Response bytes one answer keeps at most (npm packuments of popular packages run to tens of MB)."""


class SharedFetches(Generic[T]):
    """
    Single-flight by key: `get(key, start)` returns the result of the request already running
    for `key`, or starts one with `start()`. The entry is dropped when the request ends, so
    nothing is cached here (caching is `PackageService`'s job); errors reach every waiter.
    """

    def __init__(self) -> None:
        self._running: dict[str, asyncio.Future[T]] = {}

    async def get(self, key: str, start: Callable[[], Awaitable[T]]) -> T:
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(start())
            self._running[key] = running
            running.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(running)

    def running(self, key: str) -> bool:
        """Whether a request for `key` is in flight now."""
        return key in self._running

    def _forget(self, key: str, done: asyncio.Future[T]) -> None:
        self._running.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved: the waiters re-raise it; none left must not log it


class AnswerFetches:
    """The requests of one answer (module docstring). `get` shares; `close` ends the sharing."""

    def __init__(self, max_bytes: int = MAX_KEPT_BYTES) -> None:
        self._flights = SharedFetches[httpx.Response]()
        self._kept: dict[str, httpx.Response | PkgIntelError] = {}
        self._bytes = 0
        self._max_bytes = max_bytes
        self.open = True
        self.reused = 0
        """How many requests were answered from the memo instead of upstream."""

    @staticmethod
    def key(client: object, method: str, url: str, headers: Mapping[str, str]) -> str:
        """The memo key of a request: the client (its own headers, e.g. credentials), method, URL
        and headers (an `Accept` changes the body)."""
        fields = "\n".join(f"{k.lower()}: {v}" for k, v in sorted(headers.items()))
        return f"{id(client)} {method} {url}\n{fields}"

    async def get(self, key: str, start: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
        """The outcome of `key`'s first request in this answer, starting it with `start()` when
        there is none. Raises the first request's `PkgIntelError` again (the same instance)."""
        if not self.open:
            return await start()
        kept = self._kept.get(key)
        if kept is not None:
            self.reused += 1
            logger.debug("%s: answered from this answer's earlier request", key.split("\n", 1)[0])
            if isinstance(kept, PkgIntelError):
                raise kept
            return kept
        try:
            response = await self._flights.get(key, start)
        except PkgIntelError as exc:
            if self.open:
                self._kept.setdefault(key, exc)
            raise
        size = len(response.content)
        if self.open and key not in self._kept and self._bytes + size <= self._max_bytes:
            self._kept[key] = response
            self._bytes += size
        return response

    def close(self) -> None:
        """Stop sharing and drop what was kept; later requests go upstream."""
        self.open = False
        self._kept.clear()
        self._bytes = 0


answer_fetches: ContextVar[AnswerFetches | None] = ContextVar(
    "pkgintel_answer_fetches", default=None
)
"""The open answer's memo (None outside a composite answer: every request goes upstream)."""


@contextlib.contextmanager
def one_answer() -> Iterator[AnswerFetches]:
    """Open the answer's memo, or join the one already open (module docstring); the outermost
    scope closes it on exit."""
    current = answer_fetches.get()
    if current is not None and current.open:
        yield current
        return
    memo = AnswerFetches()
    token = answer_fetches.set(memo)
    try:
        yield memo
    finally:
        memo.close()
        answer_fetches.reset(token)
