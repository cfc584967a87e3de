"""`SqlStore` contract on SQLite always and PostgreSQL when configured; migrations are idempotent."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from pkgintel.config import Settings
from pkgintel.domain.names.rules import NameEntry, NameIndexState
from pkgintel.domain.packages import Ecosystem
from pkgintel.storage.migrate import current_revision, head_revision, upgrade
from pkgintel.storage.sql import SqlStore, create_engine


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[SqlStore]:
    engine = create_engine(settings.database_url)
    assert await upgrade(engine) == head_revision()
    assert await upgrade(engine) == head_revision()  # a second run changes nothing
    assert await current_revision(engine) == head_revision()
    yield SqlStore(engine)
    await engine.dispose()


async def test_ping(store: SqlStore) -> None:
    await store.ping()


async def test_names_upsert_keeps_popularity_on_live_sighting(store: SqlStore) -> None:
    await store.upsert_names(
        [
            NameEntry(
                Ecosystem.NPM,
                "left-pad",
                "left-pad",
                "1.3.0",
                monthly_downloads=900,
                summary="pads",
            )
        ]
    )
    await store.upsert_names(
        [NameEntry(Ecosystem.NPM, "left-pad", "left-pad", "1.4.0", source="live")]
    )
    got = await store.get_name(Ecosystem.NPM, "left-pad")
    assert got is not None
    assert got.latest_version == "1.4.0"
    assert got.monthly_downloads == 900 and got.summary == "pads"
    assert await store.get_name(Ecosystem.PYPI, "left-pad") is None


async def test_index_state_roundtrip(store: SqlStore) -> None:
    assert await store.get_index_state(Ecosystem.PYPI) is None
    when = datetime(2026, 11, 1, tzinfo=UTC)
    await store.save_index_state(NameIndexState(Ecosystem.PYPI, "names.tsv", when, 3))
    await store.save_index_state(NameIndexState(Ecosystem.PYPI, "names2.tsv", when, 4))
    state = await store.get_index_state(Ecosystem.PYPI)
    assert state == NameIndexState(Ecosystem.PYPI, "names2.tsv", when, 4)
    assert [s.ecosystem for s in await store.list_index_states()] == [Ecosystem.PYPI]


async def test_popular_names_rank_first_then_downloads(store: SqlStore) -> None:
    await store.upsert_names(
        [
            NameEntry(Ecosystem.PYPI, "b", "b", popularity_rank=2),
            NameEntry(Ecosystem.PYPI, "a", "a", popularity_rank=1),
            NameEntry(Ecosystem.PYPI, "c", "c", monthly_downloads=10**9),
            NameEntry(Ecosystem.PYPI, "d", "d"),
        ]
    )
    assert [e.name for e in await store.list_popular_names(Ecosystem.PYPI, 10)] == ["a", "b", "c"]
    assert [e.name for e in await store.list_popular_names(Ecosystem.PYPI, 1)] == ["a"]


async def test_mixed_case_names_with_downloads_most_downloaded_first(store: SqlStore) -> None:
    await store.upsert_names(
        [
            NameEntry(Ecosystem.NPM, "JSONStream", "JSONStream", monthly_downloads=9_000),
            NameEntry(Ecosystem.NPM, "Base64", "Base64", monthly_downloads=90_000),
            NameEntry(Ecosystem.NPM, "NoDownloads", "NoDownloads"),
            NameEntry(Ecosystem.NPM, "lodash", "lodash", monthly_downloads=10**8),
            NameEntry(Ecosystem.CPAN, "Moose", "Moose", monthly_downloads=5),
        ]
    )
    found = await store.list_mixed_case_names(Ecosystem.NPM, 10)
    assert [e.name for e in found] == ["Base64", "JSONStream"]
    assert [e.name for e in await store.list_mixed_case_names(Ecosystem.NPM, 1)] == ["Base64"]


async def test_names_with_downloads_at_or_above_the_floor(store: SqlStore) -> None:
    await store.upsert_names(
        [
            NameEntry(Ecosystem.NPM, "at-floor", "at-floor", monthly_downloads=1_000),
            NameEntry(Ecosystem.NPM, "below", "below", monthly_downloads=999),
            NameEntry(Ecosystem.NPM, "unknown", "unknown"),
            NameEntry(
                Ecosystem.PYPI, "other-ecosystem", "other-ecosystem", monthly_downloads=10**6
            ),
        ]
    )
    assert await store.list_names_with_downloads(Ecosystem.NPM, 1_000) == ["at-floor"]
    assert await store.list_names_with_downloads(Ecosystem.CARGO, 0) == []
    # Every key of the ecosystem, whatever is known of its popularity.
    assert sorted(await store.list_name_keys(Ecosystem.NPM)) == ["at-floor", "below", "unknown"]
    assert await store.list_name_keys(Ecosystem.CARGO) == []


async def test_names_near_share_first_character_and_length(store: SqlStore) -> None:
    await store.upsert_names(
        [NameEntry(Ecosystem.NPM, n, n) for n in ("react", "reakt", "redux-toolkit", "preact")]
    )
    assert sorted(await store.list_names_near(Ecosystem.NPM, "raect", 10)) == ["react", "reakt"]


async def test_snapshot_roundtrip_and_replace(store: SqlStore) -> None:
    t1 = datetime(2026, 1, 1, tzinfo=UTC)
    t2 = datetime(2026, 2, 1, tzinfo=UTC)
    await store.save_snapshot(Ecosystem.NPM, "x", "", b"one", t1)
    await store.save_snapshot(Ecosystem.NPM, "x", "", b"two", t2)
    await store.save_snapshot(Ecosystem.NPM, "x", "1.0.0", b"v1", t1)
    assert await store.load_snapshot(Ecosystem.NPM, "x", "") == (b"two", t2)
    assert await store.load_snapshot(Ecosystem.NPM, "x", "1.0.0") == (b"v1", t1)
    assert await store.load_snapshot(Ecosystem.NPM, "y", "") is None
    assert await store.count_snapshots() == 2


async def test_bulk_upsert_of_many_names_in_one_call(store: SqlStore) -> None:
    entries = [
        NameEntry(Ecosystem.NPM, f"pkg-{i}", f"pkg-{i}", monthly_downloads=i) for i in range(5000)
    ]
    assert await store.upsert_names(entries) == 5000
    assert (await store.get_name(Ecosystem.NPM, "pkg-4999")).monthly_downloads == 4999  # type: ignore[union-attr]
