"""`MaintainerService.history`: cached, stale while the registry fails, 404s remembered, and
"does not say" for registries without per-release publishers."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import ClassVar

from pkgintel.cache.memory import MemoryCache
from pkgintel.domain.errors import PackageNotFound, RegistryUnavailable
from pkgintel.domain.packages import Ecosystem
from pkgintel.domain.signals.maintainers import Publication, PublisherHistory
from pkgintel.domain.signals.provenance import SourceState
from pkgintel.services.signals.maintainers import MaintainerService


class FakeNpm:
    ecosystem: ClassVar[Ecosystem] = Ecosystem.NPM
    registry_source: ClassVar[str] = "registry.npmjs.org"
    downloads_source: ClassVar[str | None] = None
    publishers_source: ClassVar[str] = "registry.npmjs.org"

    def __init__(self) -> None:
        self.down = False
        self.calls = 0

    async def fetch_package(self, name, *, version=None):  # pragma: no cover - unused
        raise NotImplementedError

    async def fetch_weekly_downloads(self, name):  # pragma: no cover - unused
        return None

    async def fetch_publishers(self, name: str) -> PublisherHistory:
        self.calls += 1
        if name == "missing":
            raise PackageNotFound("npm", name)
        if self.down:
            raise RegistryUnavailable("npm", "down", reason="timeout", source="registry.npmjs.org")
        when = datetime(2024, 1, 1, tzinfo=UTC)
        return PublisherHistory(
            "registry.npmjs.org", (Publication("1.0.0", when, "alice", ("alice",)),)
        )


class NoHistory:
    ecosystem: ClassVar[Ecosystem] = Ecosystem.PYPI
    registry_source: ClassVar[str] = "pypi.org"
    downloads_source: ClassVar[str | None] = None


class Clock:
    offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


def _service(adapter, cache) -> MaintainerService:
    return MaintainerService(None, {adapter.ecosystem: adapter}, cache)  # type: ignore[arg-type]


async def test_history_is_cached_and_served_stale_when_the_registry_fails():
    clock = Clock()
    adapter = FakeNpm()
    svc = _service(adapter, MemoryCache(clock=clock))
    clock.offset = -7 * 3600
    first = await svc.history(Ecosystem.NPM, "left-pad")
    assert first.history is not None and first.status.status is SourceState.OK
    clock.offset = 0
    adapter.down = True
    again = await svc.history(Ecosystem.NPM, "left-pad")
    assert again.history == first.history
    assert again.status.status is SourceState.STALE


async def test_registry_down_with_nothing_cached_is_unavailable_with_reason():
    adapter = FakeNpm()
    adapter.down = True
    res = await _service(adapter, MemoryCache()).history(Ecosystem.NPM, "left-pad")
    assert res.history is None
    assert res.status.status is SourceState.UNAVAILABLE
    assert "timeout" in res.reason


async def test_unknown_package_is_remembered():
    adapter = FakeNpm()
    svc = _service(adapter, MemoryCache())
    for _ in range(3):
        res = await svc.history(Ecosystem.NPM, "missing")
        assert res.history is None and "does not know" in res.reason
    assert adapter.calls == 1


async def test_registry_without_publishers_says_so():
    res = await _service(NoHistory(), MemoryCache()).history(Ecosystem.PYPI, "requests")
    assert res.history is None and res.status is None
    assert res.reason == "pypi.org does not say who published each release"
