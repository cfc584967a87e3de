"""`GitHubSignals`: cached 6 hours, a stale copy while GitHub fails, "unavailable" without one."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pkgintel.cache.memory import MemoryCache
from pkgintel.domain.errors import AccountNotFound, RegistryUnavailable
from pkgintel.domain.signals.provenance import SourceState
from pkgintel.services.signals.github import GitHubSignals

ADA = json.loads(
    (Path(__file__).parents[2] / "recordings" / "github" / "account-ada-example.json").read_text()
)


class FakeGitHub:
    """Answers from the hand-written account; `down` makes every call fail like a GitHub outage."""

    def __init__(self) -> None:
        self.down = False
        self.calls = 0

    def _answer(self, body: Any) -> Any:
        self.calls += 1
        if self.down:
            raise RegistryUnavailable(
                "github", "down", reason="status.503", source="api.github.com"
            )
        return body

    async def fetch_repository(self, owner: str, repo: str) -> Any:
        return self._answer(
            {"full_name": f"{owner}/{repo}", "stargazers_count": 7, "archived": True}
        )

    async def fetch_account(self, login: str) -> Any:
        if login != "ada-example":
            self.calls += 1
            raise AccountNotFound(login)
        return self._answer(ADA["user"])

    async def fetch_account_repositories(self, login: str) -> Any:
        return self._answer(ADA["repos"])

    async def fetch_account_organizations(self, login: str) -> Any:
        return self._answer(ADA["orgs"])


class Clock:
    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


async def test_trust_is_cached_then_served_stale_while_github_fails():
    clock = Clock()
    cache = MemoryCache(clock=clock)
    api = FakeGitHub()
    signals = GitHubSignals(api, cache, ttl_s=21600, stale_s=86400)
    clock.offset = -7 * 3600  # stored seven hours ago: past the 6-hour freshness
    first = await signals.trust("ada-example")
    assert first.available and api.calls == 3
    clock.offset = 0
    api.down = True
    again = await signals.trust("ada-example")
    assert again.available and again.trust == first.trust
    assert {s.status for s in again.sources} == {SourceState.STALE}
    assert all("serving the copy" in (s.detail or "") for s in again.sources)


async def test_fresh_copy_means_no_call():
    api = FakeGitHub()
    signals = GitHubSignals(api, MemoryCache())
    await signals.trust("ada-example")
    await signals.trust("ada-example")
    assert api.calls == 3


async def test_github_down_and_nothing_cached_is_unavailable_not_zero():
    api = FakeGitHub()
    api.down = True
    signals = GitHubSignals(api, MemoryCache())
    ans = await signals.trust("ada-example")
    assert not ans.available and ans.trust is None
    assert "status.503" in (ans.reason or "")
    stats = await signals.repository_stats("https://github.com/chalk/chalk")
    assert stats.stats is None and "unavailable" in (stats.reason or "")
    assert stats.sources[0].status is SourceState.UNAVAILABLE


async def test_unknown_account_raises_and_is_remembered():
    api = FakeGitHub()
    signals = GitHubSignals(api, MemoryCache())
    with pytest.raises(AccountNotFound):
        await signals.trust("nobody-here")
    calls = api.calls
    with pytest.raises(AccountNotFound):
        await signals.trust("nobody-here")
    # the account's 404 is cached; only the other two lookups may be repeated
    assert api.calls - calls <= 2


@pytest.mark.parametrize(
    ("url", "why"),
    [
        (None, "names no source repository"),
        ("https://gitlab.com/a/b", "not on github.com"),
    ],
)
async def test_no_github_repository(url: str | None, why: str):
    ans = await GitHubSignals(FakeGitHub(), MemoryCache()).repository_stats(url)
    assert ans.stats is None and why in (ans.reason or "") and ans.sources == ()


async def test_repository_stats():
    ans = await GitHubSignals(FakeGitHub(), MemoryCache()).repository_stats(
        "https://github.com/chalk/chalk"
    )
    assert ans.stats is not None
    assert ans.stats.stars == 7 and ans.stats.archived is True
