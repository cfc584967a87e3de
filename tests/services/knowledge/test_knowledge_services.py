"""Usage log buffering and retention; the GitHub client's failure mapping; harvest states on failure."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from pkgintel.domain.errors import RegistryUnavailable
from pkgintel.domain.packages import Ecosystem
from pkgintel.runtime.container import Runtime
from pkgintel.services.operations.usage import UsageLog
from pkgintel.sources.github import GitHubClient, RepositoryNotFound, github_repo
from pkgintel.storage.knowledge import SqlKnowledgeStore
from pkgintel.storage.migrate import upgrade
from pkgintel.storage.sql import create_engine

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqlKnowledgeStore]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'k.db'}")
    await upgrade(engine)
    yield SqlKnowledgeStore(engine)
    await engine.dispose()


async def test_usage_log_batches_and_prunes(store: SqlKnowledgeStore) -> None:
    clock = [NOW]
    log = UsageLog(
        store, clock=lambda: clock[0], batch_size=3, flush_interval_s=3600, retention_days=7
    )
    log.record(
        "api:/api/check/{ecosystem}/{package}",
        ecosystem="pypi",
        package="Django_Rest",
        user_agent="claude-code/1",
        client="a",
    )
    log.record(
        "api:/api/check/{ecosystem}/{package}",
        ecosystem="pypi",
        package="requests",
        user_agent="Googlebot/2.1",
        client="b",
    )
    assert await store.usage_for_client("a") == []  # buffered, not written yet
    log.record(
        "api:/api/latest/{ecosystem}/{package}",
        ecosystem="npm",
        package="axios",
        user_agent=None,
        client="a",
    )
    await asyncio.sleep(0.05)  # the batch size was reached: a background flush wrote it
    rows = await store.usage_for_client("a")
    assert [(r.package, r.ua_class) for r in rows] == [
        ("django-rest", "ai-agent"),
        ("axios", "other"),
    ]
    clock[0] = NOW + timedelta(days=8)
    assert await log.prune() == 3
    assert await store.usage_for_client("a") == []


async def test_trending_excludes_crawlers_and_compares_windows(store: SqlKnowledgeStore) -> None:
    clock = [NOW - timedelta(days=10)]
    log = UsageLog(store, clock=lambda: clock[0], batch_size=10_000)
    log.record("api:/x", ecosystem="npm", package="old", user_agent="claude", client="a")
    log.record("api:/x", ecosystem="npm", package="axios", user_agent="claude", client="a")
    await log.flush()
    clock[0] = NOW
    for client in ("a", "b"):
        log.record("api:/x", ecosystem="npm", package="axios", user_agent="cursor", client=client)
    for _ in range(9):
        log.record(
            "api:/x", ecosystem="npm", package="bot-food", user_agent="AhrefsBot", client="z"
        )
    log.record(
        "api:/api/status", ecosystem="npm", package="status-probe", user_agent="claude", client="a"
    )
    trends, _start, _end = await log.trending("npm")
    assert [(t.package, t.this_window, t.previous_window, t.clients) for t in trends] == [
        ("axios", 2, 1, 2)
    ]
    assert trends[0].growth == 1.0


async def test_agents_by_range_rejects_bad_buckets(store: SqlKnowledgeStore) -> None:
    log = UsageLog(store, clock=lambda: NOW)
    from pkgintel.domain.errors import InvalidInput

    with pytest.raises(InvalidInput):
        await log.agents_by_range(NOW, NOW + timedelta(days=1), bucket="week")
    with pytest.raises(InvalidInput):
        await log.agents_by_range(NOW, NOW - timedelta(days=1))
    log.record("api:/x", ecosystem=None, package=None, user_agent="GitHub-Actions", client="c")
    rows = await log.agents_by_range(NOW - timedelta(days=1), NOW + timedelta(days=1))
    assert [(r.ua_class, r.calls, r.clients) for r in rows] == [("ci", 1, 1)]


def _client(handler: object) -> httpx.AsyncClient:
    assert callable(handler)
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def test_github_client_failures() -> None:
    def limited(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            403, headers={"x-ratelimit-remaining": "0", "retry-after": "60"}, json={}
        )

    async with _client(limited) as c:
        with pytest.raises(RegistryUnavailable) as info:
            await GitHubClient(c, "http://gh.test").fetch_releases("o", "r")
        assert info.value.reason == "rate_limited" and info.value.retry_after == 60

    def missing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"message": "Not Found"})

    async with _client(missing) as c:
        gh = GitHubClient(c, "http://gh.test", token="t0k")
        with pytest.raises(RepositoryNotFound):
            await gh.fetch_releases("o", "r")
        assert await gh.fetch_changelog("o", "r") is None

    seen: list[httpx.Request] = []

    def changelog(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path.endswith("/HISTORY.md"):
            return httpx.Response(200, text="## 1.0.0\n- first\n")
        return httpx.Response(404)

    async with _client(changelog) as c:
        found = await GitHubClient(c, "http://gh.test", token="t0k").fetch_changelog("o", "r")
    assert found == ("HISTORY.md", "## 1.0.0\n- first\n")
    assert seen[0].headers["authorization"] == "Bearer t0k"
    assert seen[0].headers["accept"] == "application/vnd.github.raw"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/gocardless/business", ("gocardless", "business")),
        ("https://github.com/a/b.git", ("a", "b")),
        ("https://gitlab.com/a/b", None),
        ("https://github.com/a", None),
        (None, None),
    ],
)
def test_github_repo(url: str | None, expected: tuple[str, str] | None) -> None:
    assert github_repo(url) == expected


async def test_harvest_records_failures(runtime: Runtime) -> None:
    assert runtime.knowledge is not None
    h = runtime.knowledge.harvest
    # tiny-lib's repository is on GitHub, but the replay registry has no releases for it: 404.
    result = await h.harvest(Ecosystem.NPM, "tiny-lib")
    assert {k: s.status for k, s in result.outcomes.items()} == {
        "releases": "failed",
        "bugs": "failed",
    }
    assert "not found" in (result.outcomes["releases"].detail or "")
    result = await h.harvest(Ecosystem.NPM, "tiny-lib", repository="https://gitlab.com/x/y")
    assert result.outcomes["releases"].status == "no_repository"
    result = await h.harvest(Ecosystem.CARGO, "serde")  # no cargo adapter here, no repository given
    assert result.outcomes["bugs"].status == "failed"
    answer = await runtime.knowledge.breaking.breaking(Ecosystem.NPM, "tiny-lib")
    assert answer.status == "no_repository" and answer.versions == ()
